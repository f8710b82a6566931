package chat

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/quorum-go/quorum/quorum"
)

func TestKeysHistoryCompletionAndFocus(t *testing.T) {
	o := newOptions(t)
	o.History = &History{entries: []string{"first", "second"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	key := func(k tea.KeyMsg) { m.Update(k) }
	key(tea.KeyMsg{Type: tea.KeyUp})
	if m.input.Value() != "second" {
		t.Errorf("↑ gives %q, want the last entry", m.input.Value())
	}
	key(tea.KeyMsg{Type: tea.KeyUp})
	key(tea.KeyMsg{Type: tea.KeyDown})
	key(tea.KeyMsg{Type: tea.KeyDown})
	if m.input.Value() != "" {
		t.Errorf("↓ past the end gives %q, want the draft", m.input.Value())
	}
	m.input.SetValue("/de")
	key(tea.KeyMsg{Type: tea.KeyTab})
	if m.input.Value() != "/debate " {
		t.Errorf("Tab completes /de to %q", m.input.Value())
	}
	m.input.SetValue("/ask sim-g")
	key(tea.KeyMsg{Type: tea.KeyTab})
	if m.input.Value() != "/ask sim-gamma " {
		t.Errorf("Tab completes a model to %q", m.input.Value())
	}
	m.input.SetValue("/ask sim-")
	key(tea.KeyMsg{Type: tea.KeyTab})
	if !strings.Contains(m.hint, "sim-alpha") || m.input.Value() != "/ask sim-" {
		t.Errorf("Tab with several candidates: input %q, hint %q", m.input.Value(), m.hint)
	}
	m.input.Reset()
	m.panes = newPanes([]string{"a", "b"})
	key(tea.KeyMsg{Type: tea.KeyCtrlO})
	if m.focus != 0 || !strings.Contains(m.View(), "a · waiting") {
		t.Errorf("Ctrl-O focuses %d", m.focus)
	}
	key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'2'}, Alt: true})
	if m.focus != 1 {
		t.Errorf("Alt-2 focuses %d", m.focus)
	}
	key(tea.KeyMsg{Type: tea.KeyEsc})
	if m.focus != -1 {
		t.Errorf("Esc leaves focus at %d", m.focus)
	}
	m.input.SetValue("/nope")
	key(tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(m.conv.View(), "unknown command /nope") {
		t.Errorf("an unknown command says nothing:\n%s", m.conv.View())
	}
	if got := o.History.Entries(); got[len(got)-1] != "/nope" {
		t.Errorf("history %q", got)
	}
}

func TestParseLine(t *testing.T) {
	models := []string{"a", "b"}
	for _, c := range []struct {
		line string
		want request
		err  string
	}{
		{"hello", request{kind: reqRound, round: quorum.RoundDiscuss, text: "hello"}, ""},
		{"/plan migrate", request{kind: reqRound, round: quorum.RoundPlan, text: "migrate"}, ""},
		{"/debate x", request{kind: reqRound, round: quorum.RoundDebate, text: "x"}, ""},
		{"/review main..HEAD", request{kind: reqRound, round: quorum.RoundReview, text: "main..HEAD"}, ""},
		{"/ask b why?", request{kind: reqRound, round: quorum.RoundAsk, model: "b", text: "why?"}, ""},
		{"/ask why?", request{kind: reqRound, round: quorum.RoundAsk, text: "why?"}, ""},
		{"/quit", request{kind: reqQuit}, ""},
		{"/agent fix it", request{kind: reqRound, round: quorum.RoundAgent, text: "fix it"}, ""},
		{"/agent --attempts 3 fix it", request{kind: reqRound, round: quorum.RoundAgent, text: "fix it", attempts: 3}, ""},
		{"/agent --attempts=2 fix it", request{kind: reqRound, round: quorum.RoundAgent, text: "fix it", attempts: 2}, ""},
		{"/agent --attempts 0 fix it", request{}, "--attempts takes a number from 1 to"},
		{"/agent --attempts x", request{}, "--attempts takes a number"},
		{"/agent --attempts 2", request{}, "/agent needs a task"},
		{"/agent --attempts 2 --plan", request{kind: reqRound, round: quorum.RoundAgent, givenPlan: true, attempts: 2}, ""},
		{"/agent --plan", request{kind: reqRound, round: quorum.RoundAgent, givenPlan: true}, ""},
		{"/plan", request{}, "/plan needs a task"},
		{"/ask b", request{}, "/ask needs a question"},
		{"/\x1b[2J", request{}, "unknown command /␛[2J"},
	} {
		got, err := parseLine(c.line, models)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseLine(%q): %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || got.kind != c.want.kind || got.round != c.want.round || got.text != c.want.text || got.model != c.want.model || got.attempts != c.want.attempts {
			t.Errorf("parseLine(%q) = %+v, %v; want %+v", c.line, got, err, c.want)
		}
	}
}

func TestHistoryIsKeptAcrossRuns(t *testing.T) {
	path := t.TempDir() + "/state/input.jsonl"
	h, err := LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"one", "two\nlines", "two\nlines", "three"} {
		if err := h.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	h2, err := LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h2.Entries(), "|"); got != "one|two\nlines|three" {
		t.Errorf("history read back: %q", got)
	}
}

// TestHistoryInAMultiLineInput: ↑ and ↓ recall only from the input's
// first and last line; between them they move the cursor. A multi-line
// entry recalled with ↑ has the cursor on its first line (↑ again goes
// on to the older entry), with ↓ on its last.
func TestHistoryInAMultiLineInput(t *testing.T) {
	o := newOptions(t)
	o.History = &History{entries: []string{"one", "two\nlines\nhere", "three"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	press := func(k string, value string, line int) {
		t.Helper()
		m.Update(keyMsg(k))
		if m.input.Value() != value || m.input.Line() != line {
			t.Fatalf("after %s: %q, cursor on line %d; want %q, line %d", k, m.input.Value(), m.input.Line(), value, line)
		}
	}
	multi := "two\nlines\nhere"
	press("up", "three", 0)
	press("up", multi, 0)
	press("up", "one", 0)
	press("up", "one", 0) // the oldest: nothing older
	press("down", multi, 2)
	press("up", multi, 1)
	press("up", multi, 0)
	press("down", multi, 1)
	press("down", multi, 2)
	press("down", "three", 0)
	press("down", "", 0) // the draft

	// A multi-line draft: ↑ moves up its lines first, then recalls;
	// ↓ comes back to it, on its last line.
	draft := "draft a\ndraft b\ndraft c"
	m.input.SetValue(draft)
	press("up", draft, 1)
	press("up", draft, 0)
	press("up", "three", 0)
	press("down", draft, 2)
	press("down", draft, 2) // past the draft: nothing newer
	if m.input.View() == "" || !strings.Contains(m.input.View(), "draft c") {
		t.Errorf("the input does not show the draft's last line:\n%s", m.input.View())
	}
}

// Ctrl-U and Ctrl-K delete the input's line before and after the cursor,
// as in a shell; they do not scroll the conversation (PgUp does).
func TestCtrlUAndCtrlKEditTheInput(t *testing.T) {
	o := newOptions(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 10})
	m.note(strings.Repeat("a line of the conversation\n", 30))
	at := m.conv.YOffset
	m.input.SetValue("first line\nhello there")
	m.input.SetCursor(len("hello "))
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlU})
	if got := m.input.Value(); got != "first line\nthere" {
		t.Errorf("Ctrl-U leaves %q, want the line's text before the cursor gone", got)
	}
	m.input.SetValue("hello there")
	m.input.SetCursor(len("hello"))
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlK})
	if got := m.input.Value(); got != "hello" {
		t.Errorf("Ctrl-K leaves %q, want the text after the cursor gone", got)
	}
	if m.conv.YOffset != at || at == 0 {
		t.Errorf("a key of the input scrolled the conversation from line %d to %d", at, m.conv.YOffset)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
	if m.conv.YOffset >= at {
		t.Error("PgUp did not scroll the conversation")
	}
}
