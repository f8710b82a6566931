package connect

import (
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// The command probes the CLI it starts, so that a hung CLI ends a run with
// an error instead of a spinner; the library leaves it off.
func TestCommandProbesItsCLI(t *testing.T) {
	var inv cmdutil.Invocation
	o := ClientOptions(&inv, copilot.TCP)
	if o.Liveness == nil || o.Liveness.Interval <= 0 || o.Liveness.Timeout < o.Liveness.Interval {
		t.Fatalf("liveness %+v", o.Liveness)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.Transport != copilot.TCP {
		t.Errorf("transport %v", o.Transport)
	}
}
