package chat

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
	"go.uber.org/goleak"
)

// teatest leaves one goroutine per test model waiting for a SIGINT that
// never comes (teatest.go: signal.Notify with no way to stop it); it is
// the test library's, holds nothing of ours, and is ignored by name only.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2"))
}

// guard bounds waits that only a bug would make long; no test asserts
// how long anything took.
const guard = 60 * time.Second

// fixedClock keeps the elapsed times on screen the same from run to run.
func fixedClock() time.Time { return time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC) }

// newOptions is a chat on the simulator, its models simquorum's (with
// extra rules first), with no pacing: replies come at once.
func newOptions(t *testing.T, rules ...sim.Rule) Options {
	t.Helper()
	o, _ := newOptionsOn(t, rules...)
	return o
}

// newOptionsOn is newOptions, with the simulator.
func newOptionsOn(t *testing.T, rules ...sim.Rule) (Options, *sim.Server) {
	t.Helper()
	var models []sim.Model
	for _, m := range simquorum.Models() {
		models = append(models, m.With(rules...))
	}
	srv := sim.NewServer(sim.Options{Models: models})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	feed := NewFeed()
	ch, err := quorum.NewChat(quorum.Copilot(c), quorum.ChatConfig{ID: "golden", Config: quorum.Config{
		Models: simquorum.Participants, Moderator: simquorum.Moderator, Progress: feed.Progress,
	}})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Chat: ch, Feed: feed, Offered: append(append([]string{}, simquorum.Participants...), simquorum.Moderator),
		Simulated: true, Now: fixedClock, ChatDir: t.TempDir()}
	o.NewChat = func(models []string, moderator string) (*quorum.Chat, error) {
		return quorum.NewChat(quorum.Copilot(c), quorum.ChatConfig{ID: "golden-2", Config: quorum.Config{
			Models: models, Moderator: moderator, Progress: feed.Progress}})
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		o.Chat.Close(ctx)
		feed.Stop()
		c.Close()
		srv.Close()
	})
	return o, srv
}

func outputHas(s string) func([]byte) bool {
	return func(b []byte) bool { return bytes.Contains(b, []byte(s)) }
}

func enter(tm *teatest.TestModel, text string) {
	tm.Type(text)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
}

// TestScreen asks a question and a follow-up, and keeps the final frame
// at 80×24 and at 120×40 (go test -update writes them anew).
func TestScreen(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			o := newOptions(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tm := teatest.NewTestModel(t, New(ctx, o), teatest.WithInitialTermSize(size.w, size.h))
			enter(tm, "Should we shard the database?")
			teatest.WaitFor(t, tm.Output(), outputHas("1 round(s)"), teatest.WithDuration(guard))
			enter(tm, "And what about read replicas?")
			teatest.WaitFor(t, tm.Output(), outputHas("2 round(s)"), teatest.WithDuration(guard))
			tm.Send(tea.QuitMsg{})
			m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
			rounds := o.Chat.Rounds()
			if len(rounds) != 2 || rounds[1].Sessions["sim-alpha"] != rounds[0].Sessions["sim-alpha"] {
				t.Fatalf("the follow-up did not go to the same sessions: %+v", rounds)
			}
			// Every model's pane filled in the last round.
			for _, p := range m.panes.list {
				if len(p.turns) == 0 || p.turns[len(p.turns)-1].state != done || p.turns[len(p.turns)-1].text.Len() == 0 {
					t.Errorf("%s's pane did not fill: %+v", p.model, p.turns)
				}
			}
			if len(m.panes.list) != 4 {
				t.Errorf("%d panes, want 3 participants and the moderator", len(m.panes.list))
			}
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}

// TestCancelRoundKeepsWhatCameInAndGoesOn cancels a round with Esc while
// one model's answer hangs; the round is interrupted, the others' answers
// kept, and the next round runs.
func TestCancelRoundKeepsWhatCameInAndGoesOn(t *testing.T) {
	hung := make(chan struct{})
	var once sync.Once
	o := newOptions(t, sim.Rule{Name: "gamma hangs once", Match: func(tt sim.Turn) bool {
		return tt.Model == "sim-gamma" && simquorum.Is(quorum.PhaseAnswer)(tt) && tt.Number == 1
	}, Respond: func(sim.Turn) sim.Reply {
		once.Do(func() { close(hung) })
		return sim.Reply{Hang: true}
	}})
	tm := startUI(t, o, 100, 30)
	enter(tm, "Should we shard the database?")
	select {
	case <-hung:
	case <-time.After(guard):
		t.Fatal("sim-gamma's answer never started")
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("✓ sim-beta · answer")) && bytes.Contains(b, []byte("✓ sim-alpha · answer"))
	}, teatest.WithDuration(guard))
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	teatest.WaitFor(t, tm.Output(), outputHas("round interrupted"), teatest.WithDuration(guard))
	enter(tm, "/ask sim-gamma are you there?")
	teatest.WaitFor(t, tm.Output(), outputHas("2 round(s)"), teatest.WithDuration(guard))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlD})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	if !m.quit {
		t.Error("Ctrl-D at an empty prompt did not leave")
	}
	rs := o.Chat.Rounds()
	if len(rs) != 2 || rs[0].Status != quorum.RoundInterrupted || len(rs[0].Discuss.Answers) != 2 || rs[1].Status != quorum.RoundOK {
		t.Fatalf("rounds: %+v", rs)
	}
	if rs[1].Sessions["sim-gamma"] != rs[0].Sessions["sim-gamma"] {
		t.Errorf("after the cancel sim-gamma was asked in session %s, not its kept %s", rs[1].Sessions["sim-gamma"], rs[0].Sessions["sim-gamma"])
	}
}

// TestCLIStoppedMidRound: the CLI (here the simulator) dies while a
// round runs; the round fails, what came in is shown, and the screen says
// the conversation is saved and how to resume it.
func TestCLIStoppedMidRound(t *testing.T) {
	hung := make(chan struct{})
	var once sync.Once
	o, srv := newOptionsOn(t, sim.Rule{Name: "beta hangs", Match: func(tt sim.Turn) bool {
		return tt.Model == "sim-beta" && simquorum.Is(quorum.PhaseAnswer)(tt)
	}, Respond: func(sim.Turn) sim.Reply {
		once.Do(func() { close(hung) })
		return sim.Reply{Hang: true}
	}})
	tm := startUI(t, o, 100, 30)
	enter(tm, "Should we shard the database?")
	select {
	case <-hung:
	case <-time.After(guard):
		t.Fatal("sim-beta's answer never started")
	}
	srv.Close()
	teatest.WaitFor(t, tm.Output(), outputHas("The Copilot CLI stopped"), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	rs := o.Chat.Rounds()
	if len(rs) != 1 || rs[0].Status != quorum.RoundFailed {
		t.Fatalf("rounds: %+v", rs)
	}
	if v := strings.Join(strings.Fields(m.conv.View()), " "); !strings.Contains(v, "The Copilot CLI stopped during this round") || !strings.Contains(v, "quorum chat --resume golden") {
		t.Errorf("the screen does not say how to resume:\n%s", v)
	}
}

// TestModelTextIsCleaned: escape sequences a model writes reach the
// screen as visible symbols, in the panes and in the report.
func TestModelTextIsCleaned(t *testing.T) {
	evil := sim.Rule{Name: "evil answer", Match: simquorum.Is(quorum.PhaseAnswer), Respond: func(tt sim.Turn) sim.Reply {
		return sim.Reply{Text: "[simulated] \x1b[2J\x1b]0;pwned\x07 cleared \x9b31m red"}
	}}
	o := newOptions(t, evil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.startRound(request{kind: reqRound, round: quorum.RoundDiscuss, text: "q?"}, "q?")
	m.event(quorum.Event{Kind: quorum.ModelStarted, Phase: quorum.PhaseAnswer, Model: "sim-alpha"})
	m.event(quorum.Event{Kind: quorum.Delta, Phase: quorum.PhaseAnswer, Model: "sim-alpha", Text: "\x1b[2J\x1b]0;pwned\x07 x"})
	v := m.View()
	if rawControls(v) || !strings.Contains(v, "␛[2J") {
		t.Errorf("a pane shows raw control characters:\n%q", v)
	}
	m.cancel()
	// No program reads the feed here: drain it while the round runs.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			if _, _, ok := o.Feed.next(ctx); !ok {
				return
			}
		}
	}()
	r, err := o.Chat.Discuss(ctx, "Should we shard?")
	cancel()
	<-drained
	if err != nil {
		t.Fatal(err)
	}
	m.running = false
	m.roundDone(r, nil)
	v = m.View()
	if rawControls(v) || !strings.Contains(v, "␛[2J") {
		t.Errorf("the report shows raw control characters:\n%q", v)
	}
}

// rawControls reports ESC, BEL or CSI (U+009B) in s.
func rawControls(s string) bool {
	return strings.ContainsRune(s, 0x1b) || strings.ContainsRune(s, 0x07) || strings.ContainsRune(s, 0x9b)
}

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
		if err != nil || got.kind != c.want.kind || got.round != c.want.round || got.text != c.want.text || got.model != c.want.model {
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

// The line mode: questions and commands read line by line (a trailing \
// continues a line), a line per step, each round's report as text, model
// text cleaned; it returns at /quit, leaving the rest of the input unread.
func TestPlain(t *testing.T) {
	evil := sim.Rule{Name: "evil ask", Match: func(tt sim.Turn) bool { return tt.Model == "sim-beta" && tt.Number == 2 }, Respond: func(sim.Turn) sim.Reply {
		return sim.Reply{Text: "because \x1b[2J\x1b]52;c;cHduZWQ=\x07 I said so"}
	}}
	o := newOptions(t, evil)
	var out bytes.Buffer
	in := strings.NewReader("Should we \\\nshard?\n/ask sim-beta why?\n/models\n/bogus\n/help\n/quit\nnever read\n")
	c, err := RunPlain(context.Background(), o, in, &out)
	if err != nil || c != o.Chat {
		t.Fatalf("RunPlain: %v", err)
	}
	s := out.String()
	for _, want := range []string{
		"· answer: sim-alpha, sim-beta, sim-gamma", "✓ sim-moderator", "Round 1 · discuss: Should we", "SYNTHESIS",
		"Round 2 · ask: why?", "because ␛[2J␛]52;c;cHduZWQ=␇ I said so", "   M sim-moderator", "*  sim-beta", "unknown command /bogus",
		"a line ending with \\ goes on on the next",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the line mode lacks %q:\n%s", want, s)
		}
	}
	if rawControls(s) {
		t.Errorf("raw control characters in the line mode:\n%q", s)
	}
	if strings.Contains(s, "Ctrl-O") {
		t.Errorf("the line mode's help lists the full screen's keys:\n%s", s)
	}
	if rs := o.Chat.Rounds(); len(rs) != 2 || rs[1].Sessions["sim-beta"] != rs[0].Sessions["sim-beta"] {
		t.Errorf("rounds: %+v", rs)
	}
}

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
	teatest.WaitFor(t, tm.Output(), outputHas("at an empty prompt, or /quit"), teatest.WithDuration(guard))
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
