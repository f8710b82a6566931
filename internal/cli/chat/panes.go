package chat

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// pane is one model's part of the running round: its turns so far. A
// model may have several turns running at once (a plan's votes, one per
// plan): each turn is told apart by its phase and target, as quorum's
// events name it, so that each keeps its own text. Text is cleaned as it
// comes in.
type pane struct {
	model string
	// turns are pointers: a turn's text (a strings.Builder) is written
	// after later turns were appended, and a Builder must not be copied.
	turns []*turn
}

type turn struct {
	phase  quorum.Phase
	target string
	text   strings.Builder
	state  paneState
	err    string
}

type paneState int

const (
	waiting paneState = iota
	streaming
	done
	failed
)

// ended tells whether the turn is over.
func (t *turn) ended() bool { return t.state == done || t.state == failed }

// what names the turn: its phase, and its target if any.
func (t *turn) what() string {
	if t.target != "" {
		return string(t.phase) + " of " + t.target
	}
	return string(t.phase)
}

// start begins a turn. A turn of the same phase and target that already
// ended stays as it was: a new one (a retry) has its own section.
func (p *pane) start(phase quorum.Phase, target string) {
	p.turns = append(p.turns, &turn{phase: phase, target: target, state: streaming})
}

// turnOf is the turn an event of phase and target belongs to: the latest
// such turn still running, else the latest such turn, else a new one (an
// event whose start was not seen).
func (p *pane) turnOf(phase quorum.Phase, target string) *turn {
	var ended *turn
	for i := len(p.turns) - 1; i >= 0; i-- {
		t := p.turns[i]
		if t.phase != phase || t.target != target {
			continue
		}
		if !t.ended() {
			return t
		}
		if ended == nil {
			ended = t
		}
	}
	if ended != nil {
		return ended
	}
	p.start(phase, target)
	return p.turns[len(p.turns)-1]
}

// current is the turn the pane shows: the latest still running, else the
// latest; nil before the first.
func (p *pane) current() *turn {
	for i := len(p.turns) - 1; i >= 0; i-- {
		if !p.turns[i].ended() {
			return p.turns[i]
		}
	}
	if len(p.turns) == 0 {
		return nil
	}
	return p.turns[len(p.turns)-1]
}

// add appends a streamed piece to the turn of phase and target.
func (p *pane) add(phase quorum.Phase, target, d string) {
	t := p.turnOf(phase, target)
	t.state = streaming
	t.text.WriteString(sanitize.Text(d))
}

// note appends a line about the pane's running turn (a tool call, a
// decision), whose events name no target: to the turn it shows.
func (p *pane) note(phase quorum.Phase, s string) {
	t := p.current()
	if t == nil {
		t = p.turnOf(phase, "")
	}
	t.text.WriteString(sanitize.Text(s))
}

func (p *pane) finish(ev quorum.Progress) {
	t := p.turnOf(ev.Phase, ev.Target)
	if t.text.Len() == 0 && ev.Text != "" { // a provider that does not stream
		t.text.WriteString(sanitize.Text(ev.Text))
	}
	t.state = done
	if ev.Err != nil {
		t.state, t.err = failed, sanitize.Line(report.ModelError(ev.Err))
	}
}

// title is the pane's first line: the model, the turn it shows, how far
// it is.
func (p *pane) title() string {
	t := p.current()
	if t == nil {
		return p.model + " · waiting"
	}
	n := len([]rune(t.text.String()))
	switch t.state {
	case done:
		return fmt.Sprintf("✓ %s · %s · %d chars", p.model, t.what(), n)
	case failed:
		return fmt.Sprintf("✗ %s · %s · %s", p.model, t.what(), t.err)
	}
	return fmt.Sprintf("… %s · %s · %d chars", p.model, t.what(), n)
}

// whole is every turn of the round, for the focused view.
func (p *pane) whole() string {
	var b strings.Builder
	for _, t := range p.turns {
		fmt.Fprintf(&b, "── %s ──\n%s\n", t.what(), strings.TrimSpace(t.text.String()))
		if t.err != "" {
			fmt.Fprintf(&b, "(failed: %s)\n", t.err)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "(nothing yet)"
	}
	return b.String()
}

// panes are the running round's, one per model, in order.
type panes struct {
	list []*pane
}

func newPanes(models []string) panes {
	var ps panes
	for _, m := range models {
		ps.list = append(ps.list, &pane{model: m})
	}
	return ps
}

// get returns model's pane, adding one for a model the round brought in
// (a substitute moderator).
func (ps *panes) get(model string) *pane {
	for _, p := range ps.list {
		if p.model == model {
			return p
		}
	}
	p := &pane{model: model}
	ps.list = append(ps.list, p)
	return p
}

// progress counts the turns that ended, of those started.
func (ps *panes) progress() (ended, started int) {
	for _, p := range ps.list {
		for _, t := range p.turns {
			started++
			if t.ended() {
				ended++
			}
		}
	}
	return ended, started
}

// view lays the panes out in a grid of w×h: as many columns as fit 38
// columns each (at most 3), rows sharing the height; each pane its title
// line, then the end of its last turn's text.
func (ps *panes) view(w, h int, st styles) string {
	n := len(ps.list)
	if n == 0 || h <= 0 {
		return ""
	}
	cols := min(max(w/38, 1), 3, n)
	rows := (n + cols - 1) / cols
	ph := max(h/rows, 2)
	var lines []string
	for r := 0; r < rows; r++ {
		var cells []string
		for c := 0; c < cols; c++ {
			i := r*cols + c
			cw := w / cols
			if c == cols-1 {
				cw = w - cw*(cols-1)
			}
			if i >= n {
				cells = append(cells, lipgloss.NewStyle().Width(cw).Height(ph).Render(""))
				continue
			}
			cells = append(cells, ps.list[i].cell(cw, ph, c < cols-1, st))
		}
		lines = append(lines, lipgloss.JoinHorizontal(lipgloss.Top, cells...))
	}
	return strings.Join(lines, "\n")
}

// cell draws the pane in w×h, a gap on its right when sep.
func (p *pane) cell(w, h int, sep bool, st styles) string {
	tw := w
	if sep {
		tw = w - 1
	}
	title := fit(p.title(), tw)
	ts := st.paneTitle
	cur := p.current()
	if cur != nil {
		switch cur.state {
		case done:
			ts = st.paneDone
		case failed:
			ts = st.paneFail
		}
	}
	body := ""
	if cur != nil {
		// Only the end shows: wrapping the whole text at every delta
		// would cost more the longer a reply gets.
		text := []rune(strings.TrimSpace(cur.text.String()))
		if keep := tw * h * 2; len(text) > keep {
			text = text[len(text)-keep:]
		}
		body = ansi.Wrap(strings.ReplaceAll(string(text), "\t", "    "), tw, "")
	}
	bl := strings.Split(body, "\n")
	if len(bl) > h-1 {
		bl = bl[len(bl)-(h-1):]
	}
	out := []string{ts.Render(title)}
	for _, l := range bl {
		out = append(out, fit(l, tw))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", tw))
	}
	if sep {
		for i := range out {
			out[i] += " "
		}
	}
	return strings.Join(out, "\n")
}
