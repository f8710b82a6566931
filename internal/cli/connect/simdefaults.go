package connect

import (
	"slices"

	"github.com/quorum-go/quorum/internal/simquorum"
)

// SimDefaults are the participants and moderator of a --sim run that names
// none, when the simulator offers them all.
func SimDefaults(offered []string) (participants []string, moderator string, ok bool) {
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
