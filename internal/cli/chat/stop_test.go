package chat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// A round stopped with Esc during its review phase: the round, as saved,
// says the person stopped it, and so does its report on the screen, with
// the phase and what was kept; Go's "context canceled" is nowhere.
func TestStoppedRoundSaysYouStoppedIt(t *testing.T) {
	o := newOptions(t, hangsIn("sim-gamma", quorum.PhaseReview))
	tm := startUI(t, o, 100, 30)
	enter(tm, "Should we shard the database?")
	teatest.WaitFor(t, tm.Output(), outputHas("discuss · review"), teatest.WithDuration(guard))
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	teatest.WaitFor(t, tm.Output(), outputHas("round interrupted"), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	rs := o.Chat.Rounds()
	if len(rs) != 1 || rs[0].Status != quorum.RoundInterrupted || !strings.Contains(rs[0].Error, "you stopped the round") {
		t.Fatalf("rounds: %+v", rs)
	}
	var shown string
	for _, e := range m.entries {
		shown += ansi.Strip(e.rendered) + "\n"
	}
	shown = strings.Join(strings.Fields(shown), " ")
	for _, want := range []string{
		"INCOMPLETE: interrupted: you stopped the round in its review phase; what had come in by then is kept.",
		"sim-gamma, review phase (canceled): you stopped the round",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the report lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "context canceled") {
		t.Errorf("Go's words in the report:\n%s", shown)
	}
	if v := ansi.Strip(m.conv.View()); !strings.Contains(v, "INCOMPLETE: interrupted: you stopped") {
		t.Errorf("the screen does not start with the round's top, which says it was stopped:\n%s", v)
	}
}

// A round stopped before it began (here while /review reads its change)
// says so, not Go's "context canceled"; nothing is saved.
func TestRoundStoppedBeforeItBegan(t *testing.T) {
	o := newOptions(t)
	reading := make(chan struct{})
	o.Change = func(ctx context.Context, rng string) (quorum.Change, string, error) {
		close(reading)
		<-ctx.Done()
		return quorum.Change{}, "", ctx.Err()
	}
	tm := startUI(t, o, 100, 30)
	enter(tm, "/review")
	select {
	case <-reading:
	case <-time.After(guard):
		t.Fatal("/review never read its change")
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	teatest.WaitFor(t, tm.Output(), outputHas("You stopped the round before anything was asked"), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	if n := len(o.Chat.Rounds()); n != 0 || strings.Contains(m.conv.View(), "context canceled") {
		t.Errorf("%d rounds; the screen:\n%s", n, m.conv.View())
	}
}

// Why a round did not finish, in the chat's words, for rounds saved
// before the chat said who stopped them too.
func TestIncomplete(t *testing.T) {
	discuss := &quorum.DiscussResult{Outcome: quorum.Outcome{Phases: []quorum.PhaseReport{{Phase: quorum.PhaseAnswer}, {Phase: quorum.PhaseReview}}}}
	for _, c := range []struct {
		r    quorum.ChatRound
		want string
	}{
		{quorum.ChatRound{Status: quorum.RoundOK}, ""},
		{quorum.ChatRound{Status: quorum.RoundDegraded, Error: "x"}, ""},
		{quorum.ChatRound{Status: quorum.RoundInterrupted, Discuss: discuss, Error: "quorum: the run was stopped in the review phase: context canceled"},
			"interrupted: you stopped the round in its review phase; what had come in by then is kept."},
		{quorum.ChatRound{Status: quorum.RoundInterrupted, Error: "you stopped the round"},
			"interrupted: you stopped the round; what had come in by then is kept."},
		{quorum.ChatRound{Status: quorum.RoundInterrupted, Error: "the program stopped during this round; what it had collected was not saved"},
			"interrupted: the program stopped during this round; what it had collected was not saved"},
		{quorum.ChatRound{Status: quorum.RoundFailed, Error: "quorum: too few models"}, "failed: too few models"},
		{quorum.ChatRound{Status: quorum.RoundFailed}, "failed"},
	} {
		if got := incomplete(&c.r); got != c.want {
			t.Errorf("incomplete(%s, %q) = %q, want %q", c.r.Status, c.r.Error, got, c.want)
		}
	}
	if !errors.Is(errYouStopped, context.Canceled) {
		t.Error("the person's stop is not a cancellation for errors.Is")
	}
}

// hangsIn makes model's turns of phase hang until they are stopped.
func hangsIn(model string, phase quorum.Phase) sim.Rule {
	return sim.Rule{Name: model + " hangs in " + string(phase), Match: func(tt sim.Turn) bool {
		return tt.Model == model && simquorum.Is(phase)(tt)
	}, Respond: func(sim.Turn) sim.Response { return sim.Response{Hang: true} }}
}
