package copilottest

import (
	"fmt"
	"io"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
)

// taps are the schema checks of every connection the tests open, the
// examples' included: an Example has no *testing.T to fail, so TestMain
// checks them all once the tests have run.
var taps struct {
	sync.Mutex
	list []*schemacheck.Tap
}

// TestMain checks, besides leaks, that everything the package's server
// sends (and its clients send it) validates against the pinned CLI's
// schemas, as the engine's own traffic is checked in internal/sim.
func TestMain(m *testing.M) {
	schemas, err := loadSchemas()
	if err != nil {
		fmt.Fprintln(os.Stderr, "copilottest:", err)
		os.Exit(1)
	}
	wrapClientEnd = func(rwc io.ReadWriteCloser) io.ReadWriteCloser {
		tap := schemacheck.NewTap(schemas, rwc)
		taps.Lock()
		taps.list = append(taps.list, tap)
		taps.Unlock()
		return tap
	}
	goleak.VerifyTestMain(schemaChecked{m})
}

// schemaChecked runs the tests, then fails the run for every message that
// broke its schema.
type schemaChecked struct{ m *testing.M }

func (s schemaChecked) Run() int {
	code := s.m.Run()
	taps.Lock()
	defer taps.Unlock()
	checked := 0
	for _, tap := range taps.list {
		checked += tap.Checked()
		for _, v := range tap.Violations() {
			fmt.Fprintln(os.Stderr, "schema violation:", v)
			code = 1
		}
	}
	// Every connection's handshake alone is checkable: fewer checked
	// messages than connections means the taps saw nothing, and the check
	// above proved nothing.
	if checked < len(taps.list) {
		fmt.Fprintf(os.Stderr, "copilottest: only %d messages of %d connections were checked against the schemas\n", checked, len(taps.list))
		code = 1
	}
	return code
}

func loadSchemas() (*schemacheck.Schemas, error) {
	dir, err := clitest.SchemaDir()
	if err != nil {
		return nil, err
	}
	return schemacheck.Load(dir)
}
