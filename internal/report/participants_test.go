package report

import (
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// A model that failed in a phase dropped out of it; one that was only cut
// short when the person stopped the run was stopped, and the participants
// line says how the run was stopped (Ctrl-C), or that it was cancelled
// when nothing says how (a library caller, a chat round).
func TestParticipantsStoppedOrDroppedOut(t *testing.T) {
	d := &quorum.DiscussResult{Models: []string{"a", "b", "c"}}
	d.Phases = []quorum.PhaseReport{
		{Phase: quorum.PhaseAnswer, Models: []string{"a", "b", "c"}, Dropped: []string{"a"}},
		{Phase: quorum.PhaseReview, Models: []string{"b", "c"}, Dropped: []string{"b", "c"}},
	}
	d.Failures = []quorum.Failure{
		{Model: "a", Phase: quorum.PhaseAnswer, Kind: "error", Error: "boom"},
		{Model: "b", Phase: quorum.PhaseReview, Kind: "error", Error: "boom"},
		{Model: "b", Phase: quorum.PhaseReview, Target: "C", Kind: "canceled", Error: "context canceled"},
		{Model: "c", Phase: quorum.PhaseReview, Kind: "canceled", Error: "context canceled"},
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Interrupted: "interrupted by Ctrl-C"}, "Participants: a (dropped out in the answer phase), b (dropped out in the review phase), c (stopped in the review phase: the run was interrupted by Ctrl-C)\n"},
		{Options{}, "Participants: a (dropped out in the answer phase), b (dropped out in the review phase), c (stopped in the review phase: the run was cancelled)\n"},
	} {
		var b strings.Builder
		Text(&b, Discuss(d), c.o)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%+v: the report lacks %q:\n%s", c.o, c.want, b.String())
		}
	}
}
