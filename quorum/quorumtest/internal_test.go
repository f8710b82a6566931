package quorumtest

import (
	"testing"

	"github.com/quorum-go/quorum/internal/simquorum"
)

// Moderator is written out, so that go doc shows its value; it must stay
// the engine's.
func TestModeratorIsTheEngines(t *testing.T) {
	if Moderator != simquorum.Moderator {
		t.Errorf("Moderator is %q, the engine's %q", Moderator, simquorum.Moderator)
	}
}
