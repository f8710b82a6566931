package progress

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// Live view timing: the spinner turns and the lines are redrawn at most
// this often; events between ticks only update the state, so a burst of
// deltas costs no drawing.
const liveTick = 100 * time.Millisecond

// maxLiveRows bounds the live lines, so the region stays on screen (cursor
// movement cannot reach lines scrolled off the top).
const maxLiveRows = 12

// minPhaseWidth fits every phase of discuss, plan, debate and review
// ("synthesis", "round-10"); the agent's are wider (progress.Options.Phases).
const minPhaseWidth = 9

// Spinner are the frames of the live view's spinner, in turn.
var Spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// liveView draws, on a terminal, one line per model of the running phase
// (phase, spinner, characters streamed, elapsed time, then ✓ or ✗ with the
// reason), redrawn in place with ANSI cursor movement. When the phase
// ends its lines are drawn one last time and stay, as the record of who
// did what. quorum calls event serially; the ticker goroutine that turns
// the spinner runs beside it, so both go through mu; close stops the
// ticker and draws the last frame, after which the screen holds the header
// and the finished lines, nothing live, and nothing more is written.
type liveView struct {
	mu     sync.Mutex
	w      io.Writer
	width  int
	colour bool
	now    func() time.Time

	// phaseWidth is the phase column's: the widest phase the run may show.
	phaseWidth int
	rows       []*liveRow       // the running phase's models, in order of appearance
	failed     map[turnKey]bool // turns whose failure was counted
	repeats    repeats
	drawn      int  // live lines on screen, above the cursor
	frame      int  // spinner frame
	dirty      bool // state changed since the last draw
	// closed: the view is finished; nothing more is drawn.
	closed bool
	// held: Interject's f has the screen; nothing is drawn, and the
	// permanent lines that come meanwhile wait in pending.
	held    bool
	pending []string

	stop, done chan struct{}
	once       sync.Once
}

// liveRow is one model in the running phase; in the vote phase it counts
// several turns (one per plan).
type liveRow struct {
	phase   quorum.Phase
	model   string
	started time.Time // first turn's start; zero while waiting
	ended   time.Time // last turn's end
	running int
	ok      int
	failed  int
	chars   int
	streams map[string]int // characters streamed per turn (by target)
	reason  string         // the latest failure
}

func newLiveView(w io.Writer, width int, colour bool, now func() time.Time) *liveView {
	return &liveView{w: w, width: width, colour: colour, now: now, phaseWidth: minPhaseWidth, failed: map[turnKey]bool{}, repeats: repeats{}}
}

// start draws the estimate (when there is one) and the header, and starts
// the spinner.
func (v *liveView) start(estimate, header string) {
	v.mu.Lock()
	var lines []string
	if estimate != "" {
		lines = append(lines, v.wrap(estimate)...)
	}
	v.draw(append(lines, v.wrap(header)...))
	v.mu.Unlock()
	v.stop, v.done = make(chan struct{}), make(chan struct{})
	go v.tickLoop()
}

func (v *liveView) tickLoop() {
	defer close(v.done)
	t := time.NewTicker(liveTick)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.tick()
		}
	}
}

// tick turns the spinner and redraws if anything moved.
func (v *liveView) tick() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed || v.held {
		return
	}
	v.frame++
	running := false
	for _, r := range v.rows {
		running = running || r.running > 0
	}
	if v.dirty || running {
		v.draw(nil)
	}
}

func (v *liveView) row(phase quorum.Phase, model string) *liveRow {
	for _, r := range v.rows {
		if r.model == model {
			return r
		}
	}
	r := &liveRow{phase: phase, model: model, streams: map[string]int{}}
	v.rows = append(v.rows, r)
	return r
}

func (v *liveView) Event(ev quorum.Progress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	v.dirty = true
	switch ev.Kind {
	case quorum.PhaseStarted:
		v.rows = nil
		for _, m := range strings.Split(ev.Text, ", ") {
			if m != "" {
				v.row(ev.Phase, m)
			}
		}
		v.draw(nil)
	case quorum.ModelStarted:
		r := v.row(ev.Phase, ev.Model)
		if r.started.IsZero() {
			r.started = ev.Time
		}
		r.running++
	case quorum.Delta:
		r := v.row(ev.Phase, ev.Model)
		n := utf8.RuneCountInString(ev.Text)
		r.chars += n
		r.streams[ev.Target] += n
	case quorum.ModelFinished:
		r := v.row(ev.Phase, ev.Model)
		r.running = max(r.running-1, 0)
		r.ended = ev.Time
		if n := utf8.RuneCountInString(ev.Text); n > r.streams[ev.Target] {
			r.chars += n - r.streams[ev.Target] // not streamed, or merged away
		}
		delete(r.streams, ev.Target)
		if ev.Err != nil {
			v.failed[turnKey{ev.Phase, ev.Model, ev.Target}] = true
			r.failed++
			r.reason = v.repeats.say(ev.Model, report.ModelError(ev.Err))
		} else {
			r.ok++
		}
	case quorum.ReviewParsed, quorum.VoteCast, quorum.ProposalParsed, quorum.ArgumentParsed, quorum.FindingsParsed, quorum.VerdictParsed:
		if parseFailure(ev, v.failed) {
			r := v.row(ev.Phase, ev.Model)
			r.ok = max(r.ok-1, 0)
			r.failed++
			r.reason = v.repeats.say(ev.Model, report.ModelError(ev.Err))
		}
	case quorum.ModeratorReplaced:
		v.row(ev.Phase, ev.Model)
	case quorum.DebateSettled:
		v.draw([]string{"  " + v.fit(sanitize.Line(ev.Text))})
	case quorum.ToolActivity, quorum.ActionDecided:
		v.draw([]string{"  " + v.fit(sanitize.Line(ev.Model)+": "+sanitize.Line(ev.Text))})
	case quorum.PhaseFinished:
		v.finalise()
	}
}

// line is a live row as drawn.
func (v *liveView) line(r *liveRow) string {
	var glyph, s string
	prefix := fmt.Sprintf("%-*s %-14s ", v.phaseWidth, r.phase, sanitize.Line(r.model))
	turns := ""
	if n := r.ok + r.failed + r.running; n > 1 {
		turns = fmt.Sprintf(" %d/%d", r.ok+r.failed, n)
	}
	switch {
	case r.started.IsZero() && v.closed:
		glyph, s = v.paint("✗", "31"), prefix+"not started"
	case r.started.IsZero():
		glyph, s = v.paint("·", "2"), prefix+"waiting"
	case r.running > 0:
		glyph = v.paint(Spinner[v.frame%len(Spinner)], "36")
		s = fmt.Sprintf("%s%s%s  %d chars  %s", prefix, verb(r.phase), turns, r.chars, fmtDuration(v.now().Sub(r.started)))
	case r.failed > 0:
		glyph = v.paint("✗", "31")
		failed := "failed"
		if n := r.ok + r.failed; n > 1 {
			failed = fmt.Sprintf("%d of %d failed", r.failed, n)
		}
		s = fmt.Sprintf("%s%s after %s: %s", prefix, failed, fmtDuration(r.ended.Sub(r.started)), oneLine(r.reason))
	default:
		glyph = v.paint("✓", "32")
		s = fmt.Sprintf("%sdone%s  %d chars  %s", prefix, turns, r.chars, fmtDuration(r.ended.Sub(r.started)))
	}
	return glyph + " " + v.fit(s)
}

func verb(p quorum.Phase) string {
	switch p {
	case quorum.PhaseAnswer:
		return "answering"
	case quorum.PhaseReview:
		return "reviewing"
	case quorum.PhaseSynthesis:
		return "writing the synthesis"
	case quorum.PhasePropose:
		return "proposing"
	case quorum.PhaseVote:
		return "voting"
	case quorum.PhaseOpening:
		return "opening"
	case quorum.PhaseVerdict:
		return "writing the verdict"
	case quorum.PhaseInspect:
		return "reviewing the change"
	case quorum.PhasePlanReview:
		return "reviewing the plan"
	case quorum.PhaseRevise:
		return "revising the plan"
	case quorum.PhaseExecute:
		return "carrying out the plan"
	case quorum.PhaseShellVote:
		return "voting on a command"
	case quorum.PhaseFix:
		return "fixing findings"
	}
	if _, ok := p.Round(); ok {
		return "arguing"
	}
	return "working"
}

// draw erases the live lines, writes perm as permanent lines, then the
// live rows, in one write. The cursor stays at the start of the line
// below the live rows.
func (v *liveView) draw(perm []string) {
	if v.held && !v.closed {
		v.pending = append(v.pending, perm...)
		v.dirty = true
		return
	}
	perm, v.pending = append(v.pending, perm...), nil
	var b bytes.Buffer
	if v.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", v.drawn)
	}
	b.WriteString("\r\x1b[J")
	for _, l := range perm {
		b.WriteString(l)
		b.WriteString("\n")
	}
	rows := v.rows
	if len(rows) > maxLiveRows {
		rows = rows[:maxLiveRows-1]
	}
	for _, r := range rows {
		b.WriteString(v.line(r))
		b.WriteString("\n")
	}
	v.drawn = len(rows)
	if len(rows) < len(v.rows) {
		b.WriteString("  " + v.fit(fmt.Sprintf("… and %d more", len(v.rows)-len(rows))) + "\n")
		v.drawn++
	}
	v.dirty = false
	_, _ = v.w.Write(b.Bytes())
}

// finalise makes the live rows permanent lines: the phase is over.
func (v *liveView) finalise() {
	perm := make([]string, len(v.rows))
	for i, r := range v.rows {
		perm[i] = v.line(r)
	}
	v.rows = nil
	v.draw(perm)
}

// close stops the spinner and leaves the screen clean: the rows of a phase
// cut short (the run was interrupted) become permanent lines too, their
// running turns marked as stopped.
func (v *liveView) Close() {
	v.once.Do(func() {
		if v.stop != nil {
			close(v.stop)
			<-v.done
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		v.closed = true
		for _, r := range v.rows {
			if r.running > 0 {
				r.failed += r.running
				r.running = 0
				r.ended = v.now()
				r.reason = "stopped"
			}
		}
		v.finalise()
		_, _ = io.WriteString(v.w, "\n") // a blank line before the result
	})
}

// interject makes the running rows permanent lines, so the live region is
// empty, and runs f with the view held: events go on updating the rows
// but nothing is drawn until f returns, and the view draws again below
// what f wrote. The lock is not held while f runs (it waits for a person's
// answer), so that a notice (Ctrl-C's) is not kept waiting behind it.
func (v *liveView) Interject(f func()) {
	v.mu.Lock()
	if !v.closed {
		v.finalise()
	}
	v.held = true
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.held = false
		if !v.closed {
			v.draw(nil)
		}
		v.mu.Unlock()
	}()
	f()
}

// Notice shows text (the first Ctrl-C's "stopping…") as permanent lines
// above the live rows, which are drawn again below it: written behind the
// view's back, it would push the rows down out of the view's reach and
// leave them frozen on the screen. The line the terminal echoed ^C on is
// erased with the rows. With nothing live on screen (closed, or held by
// Interject), text goes on a line of its own.
func (v *liveView) Notice(text string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed || v.held {
		_, _ = io.WriteString(v.w, "\n"+text+"\n")
		return
	}
	v.draw(v.wrap(text))
}

// wrap breaks s, a permanent line (the header, a notice), at spaces into
// lines that fit the terminal: cut, it would lose its end. A word wider
// than the terminal (a long path) stays whole, for the terminal to fold:
// permanent lines are not counted when the view moves up to redraw.
func (v *liveView) wrap(s string) []string {
	width := max(v.width-1, 10)
	var lines []string
	line, cols := "", 0
	for _, w := range strings.Fields(sanitize.Line(s)) {
		n := ansi.StringWidth(w)
		if cols > 0 && cols+1+n > width {
			lines = append(lines, line)
			line, cols = "", 0
		}
		if cols > 0 {
			line += " "
			cols++
		}
		line += w
		cols += n
	}
	return append(lines, line)
}

// fit cuts s to the terminal's width, leaving room for the glyph and a
// spare column, so no line wraps (a wrapped line would break the count of
// lines to move up).
func (v *liveView) fit(s string) string {
	n := max(v.width-3, 10)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func (v *liveView) paint(s, code string) string {
	if !v.colour {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// fmtDuration is a short, human duration: 0.4s, 12.3s, 2m5s.
func fmtDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// oneLine is the first line of s.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
