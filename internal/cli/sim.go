package cli

import (
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
)

// simModels are the models of --sim runs: simquorum's participants and
// moderator, which answer quorum's prompts in the shapes it asks for (and
// plain questions, for ask), streaming at pace p.
func simModels(p pace) []sim.Model {
	return sim.Paced(simquorum.Models(), p.first, p.chunk)
}

// pace is how fast simulated models stream.
type pace struct{ first, chunk time.Duration }

// defaultSimPace makes the simulated demo look live without being slow.
var defaultSimPace = pace{first: 150 * time.Millisecond, chunk: 25 * time.Millisecond}
