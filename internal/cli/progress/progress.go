// Package progress shows a quorum run's events on stderr while it runs:
// a live view redrawn in place on a terminal, plain lines elsewhere, or
// nothing. A View takes events from one goroutine at a time (quorum's
// Config.Progress); the live view's own ticker runs beside it under the
// view's lock.
package progress

import (
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// View shows a run's events on stderr while it runs. quorum calls
// Event from one goroutine at a time (Config.Progress); Close may be
// called more than once and leaves stderr ready for the result: after it,
// nothing more is written.
type View interface {
	Event(quorum.Progress)
	Close()
	// interject runs f with the view held still: nothing is drawn while f
	// writes to stderr or waits for an answer, and the view goes on below
	// what f wrote.
	Interject(f func())
}

// Noticer is a view that must show the process's own notices itself
// (the live view: see cmdutil.Notices); the command routes them to it
// while it is drawn.
type Noticer interface {
	Notice(text string)
}

// Options say how the progress of one run is shown.
type Options struct {
	// Quiet: no progress at all (-q).
	Quiet bool
	// Plain: plain lines even on a terminal (-v, whose logs would tear a
	// live view, or TERM=dumb).
	Plain bool
	// NoColor: no colour in the live view.
	NoColor bool
	// Estimate, when set, is a line drawn above the header: what the run
	// will cost.
	Estimate string
	// Phases are the phases the run may show, so that the live view's
	// phase column fits the widest of them; it always fits those of
	// discuss, plan, debate and review.
	Phases []quorum.Phase
}

// New picks the view on w, which it starts with header: none when quiet;
// on a terminal a live view, redrawn in place; otherwise (piped, CI, a
// dumb terminal, or -v) plain lines.
func New(w io.Writer, header string, o Options) View {
	if o.Quiet {
		return nopProgress{}
	}
	if tty, width := iostreams.TerminalWidth(w); tty && !o.Plain {
		v := newLiveView(w, width, !o.NoColor, time.Now)
		v.phaseWidth = phaseColumn(o.Phases)
		v.start(o.Estimate, header)
		return v
	}
	if o.Estimate != "" {
		fmt.Fprintln(w, sanitize.Line(o.Estimate))
	}
	fmt.Fprintln(w, sanitize.Line(header))
	return &plainView{w: w, failed: map[turnKey]bool{}, repeats: repeats{}}
}

// phaseColumn is the width of the live view's phase column: the widest
// of phases, and at least minPhaseWidth.
func phaseColumn(phases []quorum.Phase) int {
	n := minPhaseWidth
	for _, p := range phases {
		n = max(n, utf8.RuneCountInString(string(p)))
	}
	return n
}

type nopProgress struct{}

func (nopProgress) Event(quorum.Progress) {}
func (nopProgress) Close()                {}
func (nopProgress) Interject(f func())    { f() }

// who is a model, with the plan it votes on if any.
func who(ev quorum.Progress) string {
	if ev.Target == "" || ev.Phase == quorum.PhaseReview || ev.Phase == quorum.PhaseAnswer {
		return sanitize.Line(ev.Model)
	}
	return sanitize.Line(ev.Model) + " on " + report.TargetNoun(ev.Phase) + " " + ev.Target
}

// repeats shortens a failure that another model already had: when the
// CLI dies, every model fails with the same long message, which is shown
// once; the others say whose it was.
type repeats map[string]string

// say returns msg, the error of model's failure, or a pointer to the
// first model that had it.
func (r repeats) say(model, msg string) string {
	if first, ok := r[msg]; ok && first != model {
		return "the same error as " + first
	}
	r[msg] = model
	return msg
}

// turnKey names one model turn within a run.
type turnKey struct {
	phase         quorum.Phase
	model, target string
}

// parseFailure reports whether ev, an event of a parsed reply (a review,
// vote, proposal, argument, inspection or verdict), is a failure that was not already reported as the
// turn's own: quorum sends a failed vote's error again with its VoteCast.
func parseFailure(ev quorum.Progress, failed map[turnKey]bool) bool {
	k := turnKey{ev.Phase, ev.Model, ev.Target}
	if ev.Err == nil || failed[k] {
		return false
	}
	failed[k] = true
	return true
}
