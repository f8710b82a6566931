package chat

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// picker is /models' checklist in the full-screen UI: every model the CLI
// offers (and the chat's own, offered or not), one a row; a cursor; which
// take part; which moderates. It changes nothing until the model applies
// what it returns (chosen) with quorum.Chat.SetModels. Like Model, it is
// touched by bubbletea's goroutine only.
type picker struct {
	ids       []string        // the rows: raw model ids (cleaned when drawn)
	on        map[string]bool // takes part
	was       []string        // the participants when it opened, in their order
	moderator string          // "": the default, the first participant
	cursor    int
	top       int // the first row shown
}

// pickerResult is what a key did to the picker.
type pickerResult int

const (
	pickerOpen   pickerResult = iota // still open
	pickerApply                      // Enter: apply chosen, close
	pickerCancel                     // Esc: close, nothing changed
)

// newPicker lists offered, then the participants and the moderator that
// are not offered; the cursor starts on the first participant.
func newPicker(offered, models []string, moderator string) *picker {
	p := &picker{on: map[string]bool{}, was: slices.Clone(models), moderator: moderator}
	for _, id := range append(append(slices.Clone(offered), models...), moderator) {
		if id != "" && !slices.Contains(p.ids, id) {
			p.ids = append(p.ids, id)
		}
	}
	for _, id := range models {
		p.on[id] = true
	}
	if len(models) > 0 {
		p.cursor = slices.Index(p.ids, models[0])
	}
	return p
}

// key handles a key (tea.KeyMsg.String()'s name).
func (p *picker) key(k string) pickerResult {
	switch k {
	case "up", "k", "ctrl+p":
		p.cursor = max(p.cursor-1, 0)
	case "down", "j", "ctrl+n":
		p.cursor = min(p.cursor+1, len(p.ids)-1)
	case "home", "g":
		p.cursor = 0
	case "end", "G":
		p.cursor = len(p.ids) - 1
	case " ":
		if id, ok := p.current(); ok {
			p.on[id] = !p.on[id]
		}
	case "m":
		if id, ok := p.current(); ok {
			if p.moderator == id {
				p.moderator = "" // back to the default
			} else {
				p.moderator = id
			}
		}
	case "enter":
		return pickerApply
	case "esc", "ctrl+c":
		return pickerCancel
	}
	return pickerOpen
}

func (p *picker) current() (string, bool) {
	if p.cursor < 0 || p.cursor >= len(p.ids) {
		return "", false
	}
	return p.ids[p.cursor], true
}

// chosen is what to apply: the participants that were already in, in
// their order (the first is the default moderator: opening the picker and
// pressing Enter changes nothing), then those added, in list order; and
// the moderator ("": the first participant).
func (p *picker) chosen() (models []string, moderator string) {
	for _, id := range p.was {
		if p.on[id] {
			models = append(models, id)
		}
	}
	for _, id := range p.ids {
		if p.on[id] && !slices.Contains(models, id) {
			models = append(models, id)
		}
	}
	return models, p.moderator
}

// scroll keeps the cursor within the rows rows shown.
func (p *picker) scroll(rows int) {
	rows = max(rows, 1)
	switch {
	case p.cursor < p.top:
		p.top = p.cursor
	case p.cursor >= p.top+rows:
		p.top = p.cursor - rows + 1
	}
	p.top = max(min(p.top, len(p.ids)-rows), 0)
}

// pickerRows is how many models the picker shows in a main area of
// height h: all of it but its heading.
func pickerRows(h int) int { return max(h-1, 1) }

// view draws the picker in w columns and h rows: a heading, then the rows
// from top (scroll has kept the cursor among them). Model ids are cleaned.
func (p *picker) view(w, h int, st styles) string {
	rows := pickerRows(h)
	models, moderator := p.chosen()
	def := moderator == ""
	if def && len(models) > 0 {
		moderator = models[0]
	}
	head := fmt.Sprintf("Models of the next rounds: %d of %d take part", len(models), len(p.ids))
	if len(p.ids) > rows {
		head += fmt.Sprintf(" · %d–%d of %d shown", p.top+1, min(p.top+rows, len(p.ids)), len(p.ids))
	}
	lines := []string{st.paneTitle.Render(fit(head, w))}
	for i := p.top; i < len(p.ids) && i < p.top+rows; i++ {
		id := p.ids[i]
		mark, check := "  ", "[ ]"
		if i == p.cursor {
			mark = "› "
		}
		if p.on[id] {
			check = "[x]"
		}
		line := mark + check + " " + sanitize.Line(id)
		if id == moderator {
			line += "  · moderator"
			if def {
				line += " (the first taking part)"
			}
		}
		line = fit(line, w)
		if i == p.cursor {
			line = st.pickCursor.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// pickerHint is the hint line while the picker is open.
const pickerHint = "↑/↓ move · Space: take part or not · m: moderator · Enter: apply · Esc: cancel"

// openPicker opens /models' picker on the chat's models; not while a
// round runs, whose models they are.
func (m *Model) openPicker() {
	if m.running {
		m.hint = "a round is running: the models change after it"
		return
	}
	models, moderator := m.o.Chat.Models()
	m.picker = newPicker(m.o.Offered, models, moderator)
	m.picker.scroll(pickerRows(m.height - chrome))
}

// pickerKey hands a key to the open picker; Enter applies its choice
// (a choice the chat refuses, none taking part for one, is a note and
// changes nothing), Esc closes it as it was.
func (m *Model) pickerKey(k tea.KeyMsg) {
	m.hint = ""
	switch m.picker.key(k.String()) {
	case pickerOpen:
		m.picker.scroll(pickerRows(m.height - chrome))
		return
	case pickerApply:
		models, moderator := m.picker.chosen()
		m.picker = nil
		if err := m.o.Chat.SetModels(models, moderator); err != nil {
			m.note("The models stay as they were: " + sanitize.Text(err.Error()))
			return
		}
		models, moderator = m.o.Chat.Models()
		m.note(sanitize.Text(fmt.Sprintf("The next rounds: %s; moderator %s.",
			strings.Join(models, ", "), firstNonEmpty(moderator, first(models)))))
	case pickerCancel:
		m.picker = nil
		m.refresh(false)
	}
}
