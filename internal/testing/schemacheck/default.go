package schemacheck

import (
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/clitest"
)

var pinned struct {
	once    sync.Once
	schemas *Schemas
	err     error
}

// Default returns the pinned CLI's schemas, loaded once per test binary. A
// missing install fails the test (it never skips): CI installs the CLI, and
// the error says how.
func Default(t testing.TB) *Schemas {
	t.Helper()
	pinned.once.Do(func() {
		dir, err := clitest.SchemaDir()
		if err != nil {
			pinned.err = err
			return
		}
		pinned.schemas, pinned.err = Load(dir)
	})
	if pinned.err != nil {
		t.Fatal(pinned.err)
	}
	return pinned.schemas
}
