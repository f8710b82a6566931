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

// pane is one model's part of the running round: its turns so far, the
// last one streaming. Text is cleaned as it comes in.
type pane struct {
	model string
	turns []turn
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

func (p *pane) last() *turn {
	if len(p.turns) == 0 {
		p.turns = append(p.turns, turn{})
	}
	return &p.turns[len(p.turns)-1]
}

func (p *pane) start(phase quorum.Phase, target string) {
	p.turns = append(p.turns, turn{phase: phase, target: target, state: streaming})
}

func (p *pane) add(d string) {
	t := p.last()
	t.state = streaming
	t.text.WriteString(sanitize.Text(d))
}

func (p *pane) finish(ev quorum.Progress) {
	t := p.last()
	if t.text.Len() == 0 && ev.Text != "" { // a provider that does not stream
		t.text.WriteString(sanitize.Text(ev.Text))
	}
	t.state = done
	if ev.Err != nil {
		t.state, t.err = failed, sanitize.Line(report.ModelError(ev.Err))
	}
}

// title is the pane's first line: the model, the phase of its last turn,
// how far it is.
func (p *pane) title() string {
	if len(p.turns) == 0 {
		return p.model + " · waiting"
	}
	t := &p.turns[len(p.turns)-1]
	what := string(t.phase)
	if t.target != "" {
		what += " of " + t.target
	}
	n := len([]rune(t.text.String()))
	switch t.state {
	case done:
		return fmt.Sprintf("✓ %s · %s · %d chars", p.model, what, n)
	case failed:
		return fmt.Sprintf("✗ %s · %s · %s", p.model, what, t.err)
	}
	return fmt.Sprintf("… %s · %s · %d chars", p.model, what, n)
}

// whole is every turn of the round, for the focused view.
func (p *pane) whole() string {
	var b strings.Builder
	for i := range p.turns {
		t := &p.turns[i]
		what := string(t.phase)
		if t.target != "" {
			what += " of " + t.target
		}
		fmt.Fprintf(&b, "── %s ──\n%s\n", what, strings.TrimSpace(t.text.String()))
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
			if t.state == done || t.state == failed {
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
	if len(p.turns) > 0 {
		switch p.turns[len(p.turns)-1].state {
		case done:
			ts = st.paneDone
		case failed:
			ts = st.paneFail
		}
	}
	body := ""
	if len(p.turns) > 0 {
		// Only the end shows: wrapping the whole text at every delta
		// would cost more the longer a reply gets.
		text := []rune(strings.TrimSpace(p.turns[len(p.turns)-1].text.String()))
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
