package copilottest

import (
	"testing"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
)

// The package's constants are written out, so that go doc shows their
// values; they must stay the engine's.
func TestConstantsAreTheEngines(t *testing.T) {
	for _, c := range [][2]string{
		{BuiltinView, sim.ToolView}, {BuiltinCreate, sim.ToolCreate}, {BuiltinEdit, sim.ToolEdit},
		{BuiltinBash, sim.ToolBash}, {BuiltinWebFetch, sim.ToolWebFetch},
		{PermittedToolOutput, sim.PermittedToolOutput}, {QuorumModerator, simquorum.Moderator},
	} {
		if c[0] != c[1] {
			t.Errorf("%q is %q in the engine", c[0], c[1])
		}
	}
}
