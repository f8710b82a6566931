// This file draws the chat: which pane has the focus, the layout for the
// terminal's size, and the screen itself (View) with its phase and status
// lines.

package chat

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// Focus.

func (m *Model) cycleFocus() {
	if len(m.panes.list) == 0 {
		return
	}
	if m.focus+1 >= len(m.panes.list) {
		m.focus = -1
		m.refresh(false)
		return
	}
	m.setFocus(m.focus + 1)
}

func (m *Model) setFocus(i int) {
	if i < 0 || i >= len(m.panes.list) {
		return
	}
	m.focus = i
	m.refreshZoom()
	m.zoom.GotoBottom()
}

func (m *Model) refreshZoom() {
	p := m.panes.list[m.focus]
	atBottom := m.zoom.AtBottom()
	m.zoom.SetContent(ansi.Wrap(p.whole(), m.zoom.Width, ""))
	if atBottom {
		m.zoom.GotoBottom()
	}
}

// scroll scrolls the view in front: the focused pane or the conversation.
func (m *Model) scroll(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if m.asking != nil {
		m.gate, cmd = m.gate.Update(msg)
	} else if m.focus >= 0 {
		m.zoom, cmd = m.zoom.Update(msg)
	} else {
		m.conv, cmd = m.conv.Update(msg)
	}
	return cmd
}

// Layout.

func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, chrome+3)
	main := m.height - chrome
	m.input.SetWidth(m.width)
	m.conv.Width, m.conv.Height = m.width, main
	m.zoom.Width, m.zoom.Height = m.width, main-1
	m.gate.Width, m.gate.Height = m.width, main
	if m.asking != nil {
		m.showQuestion()
	}
	for i := range m.entries {
		m.entries[i].width = 0 // rendered again at the new width
	}
	m.refresh(true)
	if m.focus >= 0 {
		m.refreshZoom()
	}
	if m.picker != nil {
		m.picker.scroll(pickerRows(main))
	}
}

// refresh lays the conversation out again; land shows the landing entry
// (from its anchor: a report's lead heading), or the end when there is
// none; otherwise the view stays where it was scrolled.
//
// A report is rendered once per width and compacted (compact.go); the
// entry then keeps its rendering as a part of the view's content, so that
// the chat's reports are held once, not in the cache and in the content.
func (m *Model) refresh(land bool) {
	var parts []string
	reports := map[int]int{} // part → entry, for the reports
	landAt := -1             // the landing entry's first line
	lines := 0
	for i := range m.entries {
		e := &m.entries[i]
		if len(parts) > 0 {
			lines++ // the blank line between parts
		}
		if i == m.landing {
			landAt = lines
		}
		var part string
		switch e.kind {
		case entryPrompt:
			part = m.st.prompt.Render(ansi.Wrap("› "+e.text, m.width, ""))
		case entryNote:
			part = m.st.note.Render(ansi.Wrap(e.text, m.width, ""))
		case entryReport:
			if e.width != m.width {
				out, err := report.Terminal(e.md, m.width, m.o.Colour)
				if err != nil {
					out = ansi.Wrap(e.md, m.width, "") // Markdown as it is: clean already
				}
				e.rendered, e.width = compact(strings.Trim(out, "\n")), m.width
				e.anchor = headingLine(e.rendered, e.lead)
			}
			if i == m.landing {
				landAt += e.anchor
			}
			reports[len(parts)] = i
			part = e.rendered
		}
		parts = append(parts, part)
		lines += strings.Count(part, "\n") + 1
	}
	content := strings.Join(parts, "\n\n")
	at := 0
	for j, p := range parts {
		if i, ok := reports[j]; ok {
			m.entries[i].rendered = content[at : at+len(p)]
		}
		at += len(p) + len("\n\n")
	}
	m.conv.SetContent(content)
	switch {
	case !land:
	case landAt >= 0:
		m.conv.SetYOffset(landAt) // at most the end's offset: a short entry shows with what is above it
	default:
		m.conv.GotoBottom()
	}
}

// headingLine is the line of rendered (a report as drawn) that shows the
// heading title, the last such; 0 (the top) for "" or when none does. A
// section's heading is drawn in capitals, without its "## " (report's
// terminal style), so the case is not compared.
func headingLine(rendered, title string) int {
	if title == "" {
		return 0
	}
	lines := strings.Split(rendered, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(ansi.Strip(lines[i]))
		if strings.EqualFold(strings.TrimSpace(strings.TrimLeft(l, "#")), title) {
			return i
		}
	}
	return 0
}

// View draws the screen.
func (m *Model) View() string {
	if m.quit {
		return ""
	}
	main := m.height - chrome
	var body string
	switch {
	case m.asking != nil:
		body = m.gate.View()
	case m.picker != nil:
		body = m.picker.view(m.width, main, m.st)
	case m.focus >= 0:
		p := m.panes.list[m.focus]
		body = m.st.paneTitle.Render(fit(p.title()+"  (Esc: back, Ctrl-O: next)", m.width)) + "\n" + m.zoom.View()
	case m.running:
		body = fit(m.phaseLine(), m.width) + "\n" + m.panes.view(m.width, main-1, m.st)
	default:
		body = m.conv.View()
	}
	body = lipgloss.NewStyle().Height(main).MaxHeight(main).Render(body)
	title := "quorum chat · " + m.o.Chat.ID()
	if n := len(m.o.Chat.Rounds()); n > 0 {
		title += fmt.Sprintf(" · %d round(s)", n)
	}
	if m.o.Simulated {
		title += " · simulated"
	}
	hint := m.hint
	if hint == "" && m.asking != nil {
		hint = "read the question: its keys work in a moment (typing goes on into the input)"
		if m.armed {
			hint = m.asking.keys(m.edited != nil)
		}
	}
	if hint == "" && m.picker != nil {
		hint = pickerHint
	}
	if hint == "" && !m.running && m.focus < 0 && len(m.panes.list) > 0 {
		hint = "Ctrl-O: each model's whole text of the last round"
	}
	return strings.Join([]string{
		m.st.title.Render(fit(title, m.width)),
		body,
		m.st.hint.Render(fit(hint, m.width)),
		m.input.View(),
		m.st.status.Render(fit(m.statusLine(), m.width)),
	}, "\n")
}

// phaseLine says where the running round is.
func (m *Model) phaseLine() string {
	done, total := m.panes.progress()
	phase := string(m.phase)
	if phase == "" {
		phase = "starting"
	}
	return fmt.Sprintf("%s · %s · %d/%d turns done · %s · Esc cancels", m.req.round, phase, done, total, elapsed(clock().Sub(m.started)))
}

// statusLine: tokens and premium requests so far, the time of the
// running or last round, then the models and the moderator (what a
// narrow terminal cuts first, as it changes least).
func (m *Model) statusLine() string {
	models, moderator := m.o.Chat.Models()
	u := m.o.Chat.Usage()
	u.Add(m.live)
	s := tokens(u.InputTokens+u.OutputTokens) + " tokens · " + strconv.FormatFloat(u.Cost, 'f', -1, 64) + " premium"
	switch {
	case m.running:
		s += " · " + elapsed(clock().Sub(m.started))
	case !m.ended.IsZero():
		s += " · last " + elapsed(m.ended.Sub(m.started))
	}
	s += " · " + strings.Join(models, " ") + " · mod " + firstNonEmpty(moderator, first(models))
	return sanitize.Line(s)
}

func tokens(n int) string {
	if n >= 10000 {
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.Itoa(n)
}

func elapsed(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// fit cuts s to w columns, padding it to w.
func fit(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}
