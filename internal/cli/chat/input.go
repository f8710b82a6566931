// This file is what the person types: keys, completion, the input
// history, $EDITOR, and a submitted line (a message or a slash command).

package chat

import (
	"errors"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// key handles a key.
func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.hint = ""
	if m.asking != nil {
		return m, m.gateKey(k)
	}
	switch k.String() {
	case "ctrl+c":
		switch {
		case m.running:
			m.cancelRound()
		case strings.TrimSpace(m.input.Value()) == "":
			return m.leave()
		default:
			m.input.Reset()
		}
		return m, nil
	case "ctrl+d":
		if !m.running && m.input.Value() == "" {
			return m.leave()
		}
	case "esc":
		switch {
		case m.focus >= 0:
			m.focus = -1
			m.refresh(false)
		case m.running:
			m.cancelRound()
		}
		return m, nil
	case "ctrl+o":
		m.cycleFocus()
		return m, nil
	case "pgup", "pgdown":
		// Only these scroll: Ctrl-U, Ctrl-K, Ctrl-B, Ctrl-F and the like
		// edit the input, as in a shell.
		return m, m.scroll(k)
	case "tab":
		line, hits := complete(m.input.Value(), m.completions())
		m.input.SetValue(line)
		if len(hits) > 1 {
			m.hint = strings.Join(hits, "  ")
		}
		return m, nil
	case "ctrl+e":
		return m, m.edit()
	case "enter":
		return m.submit()
	case "up":
		// On the input's first line ↑ recalls; below it, it moves up.
		if m.input.Line() == 0 && len(m.hist) > 0 {
			m.browse(true)
			return m, nil
		}
	case "down":
		// On the input's last line ↓ recalls; above it, it moves down.
		if m.input.Line() == m.input.LineCount()-1 && len(m.hist) > 0 {
			m.browse(false)
			return m, nil
		}
	}
	if k.Alt && len(k.Runes) == 1 && k.Runes[0] >= '1' && k.Runes[0] <= '9' {
		m.setFocus(int(k.Runes[0] - '1'))
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

// leave ends the program; the command closes the chat (its sessions
// deleted) once bubbletea has given the terminal back.
func (m *Model) leave() (tea.Model, tea.Cmd) {
	m.quit = true
	if m.cancel != nil {
		m.cancel()
	}
	return m, tea.Quit
}

func (m *Model) cancelRound() {
	if m.cancel != nil {
		m.cancel()
		m.hint = "cancelling the round: turns aborted, what came in is kept"
	}
}

// completions are the words Tab completes after a command: model ids.
func (m *Model) completions() []string {
	models, _ := m.o.Chat.Models()
	out := append([]string{}, m.o.Offered...)
	for _, x := range models {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// browse moves through the input history, as readline does in a
// multi-line input: ↑ and ↓ recall only from the input's first and last
// line (its own lines, Ctrl-J's, not the rows a long line wraps to);
// elsewhere the textarea moves the cursor between lines. So that pressing
// the same key again goes on through the history, the cursor lands at the
// end of the entry's first line after ↑ and at the end of its last line
// after ↓ (for a one-line entry both are its end).
func (m *Model) browse(up bool) {
	if m.histPos == len(m.hist) {
		m.draft = m.input.Value()
	}
	switch {
	case up && m.histPos > 0:
		m.histPos--
	case !up && m.histPos < len(m.hist):
		m.histPos++
	default:
		return
	}
	if m.histPos == len(m.hist) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.hist[m.histPos])
	}
	// SetValue leaves the cursor at the end, on the last line.
	if up {
		for n := m.input.Length(); m.input.Line() > 0 && n >= 0; n-- { // n: a bound only
			m.input.CursorUp()
		}
		m.input.CursorEnd()
	}
	// The textarea scrolls to its cursor only in Update: a message it
	// ignores lets it.
	m.input, _ = m.input.Update(nil)
}

// edit opens the input in the user's editor; the program gives the
// terminal to it and takes it back after.
func (m *Model) edit() tea.Cmd {
	editor := m.o.Editor
	f, err := os.CreateTemp("", "quorum-chat-*.md")
	if err != nil {
		m.hint = "editor: " + sanitize.Line(err.Error())
		return nil
	}
	path := f.Name()
	_, werr := f.WriteString(m.input.Value())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		m.hint = "editor: " + sanitize.Line(werr.Error())
		return nil
	}
	return tea.ExecProcess(editorCommand(editor, path), func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorMsg{err: errors.New(editorFailed(editor, err))}
		}
		b, err := os.ReadFile(path)
		return editorMsg{text: string(b), err: err}
	})
}

// editorCommand runs editor (a command line: "code --wait") on path.
func editorCommand(editor, path string) *exec.Cmd {
	if editor == "" {
		editor = "vi"
	}
	fields := strings.Fields(editor)
	return exec.Command(fields[0], append(fields[1:], path)...)
}

// submit acts on the input.
func (m *Model) submit() (tea.Model, tea.Cmd) {
	line := strings.TrimSpace(m.input.Value())
	if line == "" {
		return m, nil
	}
	if m.running {
		m.hint = "a round is running: wait, or cancel it with Esc"
		return m, nil
	}
	if m.renewing {
		m.hint = "a new conversation is starting: wait a moment"
		return m, nil
	}
	m.input.Reset()
	if len(m.hist) == 0 || m.hist[len(m.hist)-1] != line {
		m.hist = append(m.hist, line)
	}
	m.histPos, m.draft = len(m.hist), ""
	if m.o.History != nil {
		if err := m.o.History.Add(line); err != nil {
			m.hint = sanitize.Line(err.Error())
		}
	}
	models, _ := m.o.Chat.Models()
	req, err := parseLine(line, models)
	if err != nil {
		m.note(sanitize.Text(err.Error()))
		return m, nil
	}
	o := m.o
	switch req.kind {
	case reqQuit:
		return m.leave()
	case reqHelp:
		m.note(helpText(true))
	case reqModels:
		if len(req.args) == 0 {
			m.openPicker()
			break
		}
		if err := setModels(o.Chat, o.Offered, req.args); err != nil {
			m.note(sanitize.Text(err.Error()))
			break
		}
		m.note(modelsText(o.Chat, o.Offered))
	case reqHistory:
		s, err := historyText(o.ChatDir, 20)
		if err != nil {
			s = err.Error()
		}
		m.note(sanitize.Text(s))
	case reqSave:
		path := firstNonEmpty(req.text, "quorum-chat-"+o.Chat.ID()+".md")
		if err := saveMarkdown(path, o.Chat, o.Simulated); err != nil {
			m.note(sanitize.Text(err.Error()))
		} else {
			m.note("Saved the conversation to " + sanitize.Line(path) + ".")
		}
	case reqNew:
		m.renewing = true
		m.note("Starting a new conversation…")
		ctx := m.ctx
		return m, func() tea.Msg {
			c, err := renew(ctx, o)
			return newChatMsg{c, err}
		}
	case reqRound:
		return m, m.startRound(req, line)
	}
	return m, nil
}
