package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// plainView writes one line per step, nothing redrawn: for logs and pipes.
type plainView struct {
	mu      sync.Mutex
	w       io.Writer
	failed  map[turnKey]bool // turns whose failure was reported
	repeats repeats
	closed  bool
}

func (v *plainView) Event(ev quorum.Progress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	p := ev.Phase
	switch ev.Kind {
	case quorum.PhaseStarted:
		fmt.Fprintf(v.w, "quorum: %s phase started: %s\n", p, sanitize.Line(ev.Text))
	case quorum.ModelFinished:
		if ev.Err != nil {
			v.failed[turnKey{ev.Phase, ev.Model, ev.Target}] = true
			fmt.Fprintf(v.w, "quorum: %s: ✗ %s failed after %s: %s\n", p, who(ev), fmtDuration(ev.Elapsed), v.repeats.say(ev.Model, report.ModelError(ev.Err)))
			return
		}
		fmt.Fprintf(v.w, "quorum: %s: ✓ %s done in %s (%d chars)\n", p, who(ev), fmtDuration(ev.Elapsed), utf8.RuneCountInString(ev.Text))
	case quorum.ReviewParsed, quorum.VoteCast, quorum.ProposalParsed, quorum.ArgumentParsed, quorum.FindingsParsed, quorum.VerdictParsed:
		if parseFailure(ev, v.failed) {
			fmt.Fprintf(v.w, "quorum: %s: ✗ %s: %s\n", p, who(ev), v.repeats.say(ev.Model, report.ModelError(ev.Err)))
		}
	case quorum.DebateSettled:
		fmt.Fprintf(v.w, "quorum: %s\n", sanitize.Line(ev.Text))
	case quorum.ToolActivity, quorum.ActionDecided:
		fmt.Fprintf(v.w, "quorum: %s: %s: %s\n", p, sanitize.Line(ev.Model), sanitize.Line(ev.Text))
	case quorum.ModeratorReplaced:
		fmt.Fprintf(v.w, "quorum: %s: %s\n", p, sanitize.Line(strings.TrimPrefix(ev.Text, "quorum: ")))
	case quorum.PhaseFinished:
		line := fmt.Sprintf("quorum: %s phase finished in %s", p, fmtDuration(ev.Elapsed))
		if ev.Text != "" {
			line += "; " + sanitize.Line(ev.Text)
		}
		fmt.Fprintln(v.w, line)
	}
}

func (v *plainView) Close() {
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
}

func (v *plainView) Interject(f func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f()
}
