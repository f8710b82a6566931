package schemacheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

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
//
// The schemas are files the CLI unpacks on its first run, and the test that
// calls Default first is the first of its binary: a binary started while
// the CLI is installed or unpacked (the install script, its warm-up, the
// first real-CLI test of another package) would find no schemas, fail at
// once (in 0.00 s), and have every later test of the binary fail with the
// same cached error. So while the CLI's binary is there and its schemas
// are not yet, Default waits for them, up to unpackWait.
func Default(t testing.TB) *Schemas {
	t.Helper()
	pinned.once.Do(func() {
		dir, err := clitest.SchemaDir()
		if err == nil {
			err = awaitSchemas(dir, unpackWait)
		}
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

// unpackWait bounds the wait for the CLI's first-run unpack (2-3 s on an
// idle machine, ~235 MB) or its install.
const unpackWait = 2 * time.Minute

// awaitSchemas returns once both schema files are in dir, or at once when
// the CLI itself is not installed (nothing will unpack them: Load's error
// names the install script), or with an error after wait.
func awaitSchemas(dir string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		_, aerr := os.Stat(filepath.Join(dir, apiFile))
		_, eerr := os.Stat(filepath.Join(dir, eventsFile))
		switch {
		case aerr == nil && eerr == nil:
			return nil
		case !errors.Is(aerr, os.ErrNotExist) && aerr != nil:
			return fmt.Errorf("schemacheck: %w", aerr)
		case !errors.Is(eerr, os.ErrNotExist) && eerr != nil:
			return fmt.Errorf("schemacheck: %w", eerr)
		}
		if _, err := clitest.Binary(); err != nil {
			return nil // not installed: nothing will unpack them
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("schemacheck: the Copilot CLI is installed but its schemas did not appear in %s within %v; its first run unpacks them (bash .ci/install-copilot.sh runs it)", dir, wait)
		}
		time.Sleep(100 * time.Millisecond) // another process's progress: there is nothing to wait on but the files
	}
}
