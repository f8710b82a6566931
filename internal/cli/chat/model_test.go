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

// replace sets a seam of the package (clock, armDelay) to v for the
// test's length; the tests of this package do not run in parallel.
func replace[T any](t *testing.T, seam *T, v T) {
	old := *seam
	*seam = v
	t.Cleanup(func() { *seam = old })
}

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
	// Early stop off: every turn of a phase starts at once, so a test that
	// stops a round mid-phase knows which turns were in flight (with early
	// stop, a hanging model's review may be in a later wave, or skipped).
	ch, err := quorum.NewChat(quorum.Copilot(c), quorum.ChatConfig{ID: "golden", Config: quorum.Config{
		Models: simquorum.Participants, Moderator: simquorum.Moderator, Progress: feed.Progress, NoEarlyStop: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Chat: ch, Feed: feed, Offered: append(append([]string{}, simquorum.Participants...), simquorum.Moderator),
		Simulated: true, ChatDir: t.TempDir()}
	replace(t, &clock, fixedClock)
	o.NewChat = func(models []string, moderator string) (*quorum.Chat, error) {
		return quorum.NewChat(quorum.Copilot(c), quorum.ChatConfig{ID: "golden-2", Config: quorum.Config{
			Models: models, Moderator: moderator, Progress: feed.Progress, NoEarlyStop: true}})
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
	}, Respond: func(sim.Turn) sim.Response {
		once.Do(func() { close(hung) })
		return sim.Response{Hang: true}
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
	}, Respond: func(sim.Turn) sim.Response {
		once.Do(func() { close(hung) })
		return sim.Response{Hang: true}
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
	evil := sim.Rule{Name: "evil answer", Match: simquorum.Is(quorum.PhaseAnswer), Respond: func(tt sim.Turn) sim.Response {
		return sim.Response{Text: "[simulated] \x1b[2J\x1b]0;pwned\x07 cleared \x9b31m red"}
	}}
	o := newOptions(t, evil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.startRound(request{kind: reqRound, round: quorum.RoundDiscuss, text: "q?"}, "q?")
	m.event(quorum.Progress{Kind: quorum.ModelStarted, Phase: quorum.PhaseAnswer, Model: "sim-alpha"})
	m.event(quorum.Progress{Kind: quorum.Delta, Phase: quorum.PhaseAnswer, Model: "sim-alpha", Text: "\x1b[2J\x1b]0;pwned\x07 x"})
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

// The line mode: questions and commands read line by line (a trailing \
// continues a line), a line per step, each round's report as text, model
// text cleaned; it returns at /quit, leaving the rest of the input unread.
func TestPlain(t *testing.T) {
	evil := sim.Rule{Name: "evil ask", Match: func(tt sim.Turn) bool { return tt.Model == "sim-beta" && tt.Number == 2 }, Respond: func(sim.Turn) sim.Response {
		return sim.Response{Text: "because \x1b[2J\x1b]52;c;cHduZWQ=\x07 I said so"}
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
