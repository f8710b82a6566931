package copilot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// simBinary is the copilot-sim program, built once, for tests of the child
// process: it takes the real CLI's flags.
var simBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "copilot-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	simBinary = filepath.Join(dir, "copilot-sim")
	build := exec.Command("go", "build", "-o", simBinary, "github.com/quorum-go/quorum/cmd/copilot-sim")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building copilot-sim:", err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}

// hangGuard bounds waits so a bug fails a test instead of hanging it. It is
// never a timing assertion.
const hangGuard = 20 * time.Second

// simClient connects a client to an in-process simulator.
func simClient(t *testing.T, opts sim.Options) (*Client, *sim.Server) {
	t.Helper()
	srv := sim.NewServer(opts)
	c, err := Connect(testutil.Context(t, hangGuard), srv.Dial(), Options{})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return c, srv
}

func model(id string, respond func(sim.Turn) sim.Response) sim.Model {
	return sim.Model{ID: id, Respond: respond}
}
