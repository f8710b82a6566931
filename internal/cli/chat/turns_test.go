package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/quorum-go/quorum/quorum"
)

// A model's turns that run at once (a plan's votes, one per plan) each
// keep their own text, told apart by phase and target, whatever the order
// their pieces come in; the focused view (Ctrl-O) shows each under its
// heading, and the pane the turn still running. A turn of the same phase
// and target started again (a retry) has a section of its own; a tool
// call goes to the turn running.
func TestEachTurnKeepsItsOwnText(t *testing.T) {
	o := newOptions(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, o)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.panes = newPanes([]string{"sim-alpha"})
	m.running = true
	ev := func(kind quorum.ProgressKind, phase quorum.Phase, target, text string) {
		m.event(quorum.Progress{Kind: kind, Phase: phase, Model: "sim-alpha", Target: target, Text: text})
	}
	ev(quorum.ModelStarted, quorum.PhasePropose, "", "prompt")
	ev(quorum.Delta, quorum.PhasePropose, "", "my plan")
	ev(quorum.ModelFinished, quorum.PhasePropose, "", "my plan")
	ev(quorum.ModelStarted, quorum.PhaseVote, "A", "prompt A")
	ev(quorum.ModelStarted, quorum.PhaseVote, "C", "prompt C")
	for _, piece := range []string{"on A: one ", "two ", "three"} {
		ev(quorum.Delta, quorum.PhaseVote, "A", piece)
		ev(quorum.Delta, quorum.PhaseVote, "C", strings.ReplaceAll(piece, "A", "C"))
	}
	ev(quorum.ModelFinished, quorum.PhaseVote, "C", "on C: one two three")
	p := m.panes.list[0]
	if got := p.title(); got != "… sim-alpha · vote of A · 19 chars" {
		t.Errorf("the pane's title is %q, want the vote still running", got)
	}
	m.event(quorum.Progress{Kind: quorum.ToolActivity, Phase: quorum.PhaseVote, Model: "sim-alpha", Text: "view → ok"})
	m.event(quorum.Progress{Kind: quorum.ModelFinished, Phase: quorum.PhaseVote, Model: "sim-alpha", Target: "A",
		Err: &quorum.ModelError{Model: "sim-alpha", Phase: quorum.PhaseVote, Target: "A", Err: errors.New("boom")}})
	ev(quorum.ModelStarted, quorum.PhaseVote, "A", "prompt A again")
	ev(quorum.Delta, quorum.PhaseVote, "A", "on A, again")
	ev(quorum.ModelFinished, quorum.PhaseVote, "A", "on A, again")

	m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	want := "── propose ──\nmy plan\n\n" +
		"── vote of A ──\non A: one two three\n⚙ view → ok\n(failed: boom)\n\n" +
		"── vote of C ──\non C: one two three\n\n" +
		"── vote of A ──\non A, again\n\n"
	if got := p.whole(); got != want {
		t.Errorf("the focused view's text:\n%s\nwant:\n%s", got, want)
	}
	var view []string
	for _, l := range strings.Split(m.View(), "\n") {
		view = append(view, strings.TrimRight(l, " "))
	}
	if v := strings.Join(view, "\n"); !strings.Contains(v, "── vote of C ──\non C: one two three\n") {
		t.Errorf("the focused view does not show the vote of C apart:\n%s", v)
	}
	if ended, started := m.panes.progress(); ended != 4 || started != 4 {
		t.Errorf("progress %d/%d turns, want 4/4", ended, started)
	}
}
