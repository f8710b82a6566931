package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs a child's job when the suite runs this test binary as one
// of its clients (child.go), and the tests otherwise.
func TestMain(m *testing.M) {
	MaybeChild()
	goleak.VerifyTestMain(runThenCleanUp{m})
}

// runThenCleanUp ends what the benchmarks started once (the simulator, the
// official SDK's build) before goleak looks for leaks.
type runThenCleanUp struct{ m *testing.M }

func (r runThenCleanUp) Run() int {
	defer cleanup()
	return r.m.Run()
}
