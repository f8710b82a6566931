package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/quorum-go/quorum/quorum"
)

// pickerOptions is newOptions whose CLI offers, after the simulator's
// models, n more (model-01 …), so that the picker has to scroll.
func pickerOptions(t *testing.T, n int) Options {
	t.Helper()
	o := newOptions(t)
	for i := 1; i <= n; i++ {
		o.Offered = append(o.Offered, fmt.Sprintf("model-%02d", i))
	}
	return o
}

func keyMsg(text string) tea.KeyMsg {
	switch text {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text)}
}

// TestModelsPicker: /models opens the list; Space takes sim-alpha out and
// sim-moderator in, m makes sim-gamma the moderator, Enter applies it.
func TestModelsPicker(t *testing.T) {
	o := newOptions(t)
	tm := startUI(t, o, 80, 24)
	enter(tm, "/models")
	teatest.WaitFor(t, tm.Output(), outputHas("Models of the next rounds"), teatest.WithDuration(guard))
	// The cursor starts on the first participant, sim-alpha.
	for _, k := range []string{"space", "down", "j", "down", "space", "k", "m", "enter"} {
		tm.Send(keyMsg(k))
	}
	teatest.WaitFor(t, tm.Output(), outputHas("The next rounds: sim-beta, sim-gamma, sim-moderator; moderator sim-gamma."), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	models, moderator := o.Chat.Models()
	if strings.Join(models, " ") != "sim-beta sim-gamma sim-moderator" || moderator != "sim-gamma" {
		t.Errorf("the picker set %q, moderator %q", models, moderator)
	}
	if m.picker != nil {
		t.Error("the picker is still open after Enter")
	}
	if !strings.Contains(m.statusLine(), "sim-beta sim-gamma sim-moderator · mod sim-gamma") {
		t.Errorf("status line: %q", m.statusLine())
	}
}

// TestModelsPickerEscChangesNothing: what was toggled in the list is
// dropped with Esc.
func TestModelsPickerEscChangesNothing(t *testing.T) {
	o := newOptions(t)
	tm := startUI(t, o, 80, 24)
	enter(tm, "/models")
	teatest.WaitFor(t, tm.Output(), outputHas("Models of the next rounds"), teatest.WithDuration(guard))
	for _, k := range []string{"space", "down", "m", "esc"} {
		tm.Send(keyMsg(k))
	}
	// Keys reach the input again: /help is a command, not the picker's.
	enter(tm, "/help")
	teatest.WaitFor(t, tm.Output(), outputHas("Type a question and press Enter for a discussion round"), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	if m.picker != nil {
		t.Fatal("Esc left the picker open")
	}
	models, moderator := o.Chat.Models()
	if strings.Join(models, " ") != "sim-alpha sim-beta sim-gamma" || moderator != "sim-moderator" {
		t.Errorf("Esc changed the models to %q, moderator %q", models, moderator)
	}
}

// TestPickerScreen keeps the frame of the open picker at 80×24: the
// simulator's models, and thirty more, scrolled (go test -update writes
// them anew).
func TestPickerScreen(t *testing.T) {
	for _, c := range []struct {
		name string
		more int
		keys []string
	}{
		{"80x24", 0, []string{"down", "space", "down", "down"}},
		{"80x24-scrolled", 30, []string{"space", "down", "space", "m", "G", "k", "k", "space"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := pickerOptions(t, c.more)
			tm := startUI(t, o, 80, 24)
			enter(tm, "/models")
			for _, k := range c.keys {
				tm.Send(keyMsg(k))
			}
			tm.Send(tea.QuitMsg{})
			m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
			if m.picker == nil {
				t.Fatal("/models opened no picker")
			}
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}

// TestPickerScrollsAndCleans: a list longer than the area scrolls with
// the cursor; model ids reach the screen cleaned.
func TestPickerScrollsAndCleans(t *testing.T) {
	var offered []string
	for i := 1; i <= 20; i++ {
		offered = append(offered, fmt.Sprintf("m%02d", i))
	}
	p := newPicker(offered, []string{"evil\x1b]0;pwned\x07"}, "")
	const h = 6 // a heading and five rows
	rows := pickerRows(h)
	down := func(n int) {
		for range n {
			p.key("down")
			p.scroll(rows)
		}
	}
	if p.cursor != 20 || p.top != 0 {
		t.Fatalf("the cursor starts at %d (top %d), want the participant's row, 20", p.cursor, p.top)
	}
	p.scroll(rows)
	v := p.view(80, h, styles{})
	if rawControls(v) || !strings.Contains(v, "› [x] evil␛]0;pwned␇  · moderator") || !strings.Contains(v, "17–21 of 21") {
		t.Errorf("the last row, a participant with escapes in its id:\n%s", v)
	}
	p.key("home")
	p.scroll(rows)
	down(6)
	v = p.view(80, h, styles{})
	if p.top != 2 || !strings.Contains(v, "› [ ] m07") || strings.Contains(v, "m02") || !strings.Contains(v, "3–7 of 21") {
		t.Errorf("six rows down, top %d:\n%s", p.top, v)
	}
	if n := strings.Count(v, "\n") + 1; n != h {
		t.Errorf("%d lines in a picker of %d", n, h)
	}
	for range 3 {
		p.key("k")
		p.scroll(rows)
	}
	if p.top != 2 || p.cursor != 3 {
		t.Errorf("up within the rows shown scrolled: top %d, cursor %d", p.top, p.cursor)
	}
	p.key("up")
	p.scroll(rows)
	p.key("up")
	p.scroll(rows)
	if p.top != 1 || p.cursor != 1 {
		t.Errorf("up past the first row shown: top %d, cursor %d; want 1, 1", p.top, p.cursor)
	}
	// m twice: the moderator, then the default again.
	p.key("m")
	if _, mod := p.chosen(); mod != "m02" {
		t.Errorf("m makes %q the moderator", mod)
	}
	p.key("m")
	if _, mod := p.chosen(); mod != "" {
		t.Errorf("m again leaves %q the moderator, want the default", mod)
	}
}

// TestPickerKeepsTheOrder: the participants keep their order (the first
// moderates by default), the ones added come after.
func TestPickerKeepsTheOrder(t *testing.T) {
	p := newPicker([]string{"a", "b", "c"}, []string{"c", "a"}, "")
	if models, mod := p.chosen(); strings.Join(models, " ") != "c a" || mod != "" {
		t.Errorf("unchanged: %q %q", models, mod)
	}
	if p.cursor != 2 {
		t.Errorf("the cursor starts on row %d, want c's, the first participant", p.cursor)
	}
	p.key("up") // from c to b
	p.key(" ")
	if models, _ := p.chosen(); strings.Join(models, " ") != "c a b" {
		t.Errorf("b added: %q", models)
	}
	if v := p.view(80, 10, styles{}); !strings.Contains(v, "[x] c  · moderator (the first taking part)") {
		t.Errorf("the default moderator is not shown:\n%s", v)
	}
}

// TestPickerRefusals: no picker while a round runs; a choice the chat
// refuses (no model) is a note, and the models stay.
func TestPickerRefusals(t *testing.T) {
	o := newOptions(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	m.startRound(request{kind: reqRound, round: quorum.RoundDiscuss, text: "q?"}, "q?")
	m.openPicker()
	if m.picker != nil || !strings.Contains(m.hint, "a round is running") {
		t.Errorf("a picker opened during a round (hint %q)", m.hint)
	}
	m.input.SetValue("/models")
	m.Update(keyMsg("enter"))
	if m.picker != nil || !strings.Contains(m.hint, "a round is running") {
		t.Errorf("/models opened a picker during a round (hint %q)", m.hint)
	}
	m.cancel()
	m.running = false

	m.input.SetValue("/models")
	m.Update(keyMsg("enter"))
	if m.picker == nil {
		t.Fatal("/models opened no picker")
	}
	for _, k := range []string{"space", "down", "space", "down", "space", "enter"} {
		m.Update(keyMsg(k))
	}
	if v := strings.Join(strings.Fields(m.conv.View()), " "); m.picker != nil || !strings.Contains(v, "The models stay as they were: quorum: invalid configuration: Config.Models is empty") {
		t.Errorf("no model chosen: picker %v, screen:\n%s", m.picker, m.conv.View())
	}
	if models, _ := o.Chat.Models(); len(models) != 3 {
		t.Errorf("the models became %q", models)
	}
	// With ids, /models sets them, as in the line mode.
	m.input.SetValue("/models sim-alpha sim-beta moderator=sim-alpha")
	m.Update(keyMsg("enter"))
	if models, mod := o.Chat.Models(); m.picker != nil || strings.Join(models, " ") != "sim-alpha sim-beta" || mod != "sim-alpha" {
		t.Errorf("/models with ids: %q %q (picker %v)", models, mod, m.picker)
	}
}
