package cli

import "github.com/quorum-go/quorum/internal/sim"

// simModels are the participants of --sim runs, streaming at pace p.
func simModels(p pace) []sim.Model {
	return sim.Paced(sim.DefaultModels(), p.first, p.chunk)
}
