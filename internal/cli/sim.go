package cli

import (
	"slices"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
)

// simModels are the models of --sim runs: simquorum's participants and
// moderator, which answer quorum's prompts in the shapes it asks for (and
// plain questions, for ask), streaming at pace p.
func simModels(p pace) []sim.Model {
	return sim.Paced(simquorum.Models(), p.first, p.chunk)
}

// simDefaults are the participants and moderator of a --sim run that names
// none, when the simulator offers them all.
func simDefaults(offered []string) (participants []string, moderator string, ok bool) {
	for _, m := range simquorum.Participants {
		if !slices.Contains(offered, m) {
			return nil, "", false
		}
	}
	if !slices.Contains(offered, simquorum.Moderator) {
		return nil, "", false
	}
	return append([]string(nil), simquorum.Participants...), simquorum.Moderator, true
}
