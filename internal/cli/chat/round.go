// This file runs a round of the chat and takes in its events and its
// end.

package chat

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// startRound starts a round on a command goroutine.
func (m *Model) startRound(req request, line string) tea.Cmd {
	// Whoever cancels the round is the person (Esc, Ctrl-C, leaving):
	// the cause says so to quorum and to what it reports.
	ctx, cancel := context.WithCancelCause(m.ctx)
	m.running, m.cancel, m.roundCtx, m.req = true, func() { cancel(errYouStopped) }, ctx, req
	m.started, m.ended = clock(), time.Time{}
	m.phase = ""
	m.live = quorum.Usage{}
	models, moderator := m.o.Chat.Models()
	switch req.round {
	case quorum.RoundAsk:
		models = []string{firstNonEmpty(req.model, first(models))}
	case quorum.RoundPlan, quorum.RoundReview, quorum.RoundAgent:
	default:
		moderator = firstNonEmpty(moderator, first(models))
		if !contains(models, moderator) {
			models = append(models, moderator)
		}
	}
	m.panes = newPanes(models)
	m.focus = -1
	m.entries = append(m.entries, entry{kind: entryPrompt, text: sanitize.Text(line)})
	m.landing = -1
	m.refresh(true)
	o, c := m.o, m.o.Chat
	return tea.Batch(tick(ctx), func() tea.Msg {
		r, err := runRound(ctx, o, c, req)
		return roundDoneMsg{r, err}
	})
}

// event applies one of the running round's events to the panes.
func (m *Model) event(ev quorum.Progress) {
	switch ev.Kind {
	case quorum.PhaseStarted:
		m.phase = ev.Phase
	case quorum.ModelStarted:
		m.panes.get(ev.Model).start(ev.Phase, ev.Target)
	case quorum.Delta:
		m.panes.get(ev.Model).add(ev.Phase, ev.Target, ev.Text)
	case quorum.ModelFinished:
		m.panes.get(ev.Model).finish(ev)
		if ev.Usage != nil {
			m.live.Add(*ev.Usage)
		}
	case quorum.ToolActivity:
		m.panes.get(ev.Model).note(ev.Phase, "\n⚙ "+ev.Text+"\n")
	case quorum.ActionDecided:
		m.panes.get(ev.Model).note(ev.Phase, "\n→ "+ev.Text+"\n")
	}
	if m.focus >= 0 {
		m.refreshZoom()
	}
}

// roundDone shows a round's report, or why there is none.
func (m *Model) roundDone(r *quorum.ChatRound, err error) {
	m.running = false
	m.asking, m.edited, m.queued = nil, nil, nil
	stopped := m.roundCtx != nil && context.Cause(m.roundCtx) == errYouStopped
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.ended = clock()
	m.live = quorum.Usage{}
	if r != nil {
		m.addRound(r)
	}
	switch {
	case cliStopped(err):
		what := "its report above says what came in"
		if r == nil {
			what = sanitize.Line(err.Error())
		}
		m.note(fmt.Sprintf("The Copilot CLI stopped during this round (%s). The conversation is saved: leave, and continue it with quorum chat --resume %s.",
			what, m.o.Chat.ID()))
	case r == nil && err != nil && stopped:
		m.note("You stopped the round before anything was asked; the conversation goes on as it was.")
	case r == nil && err != nil:
		m.note(sanitize.Text(err.Error()))
	case r != nil && r.Status == quorum.RoundInterrupted:
		m.hint = "round interrupted: what came in is shown; the conversation goes on"
	}
	m.refresh(true)
}

// cliStopped tells whether err says the Copilot CLI stopped: itself, or
// the failure of a model that made the run stop (a TooFewError lists
// them; the CLI dying fails every model at once).
func cliStopped(err error) bool {
	if errors.Is(err, copilot.ErrStopped) {
		return true
	}
	var tf *quorum.TooFewError
	if errors.As(err, &tf) {
		for _, f := range tf.Failures {
			if errors.Is(f, copilot.ErrStopped) {
				return true
			}
		}
	}
	return false
}

// addRound adds a round's report; the conversation lands on it, where
// its reader starts (leadHeading).
func (m *Model) addRound(r *quorum.ChatRound) {
	m.entries = append(m.entries, entry{kind: entryReport, md: RoundMarkdown(r, m.o.Simulated), lead: leadHeading(r)})
	m.landing = len(m.entries) - 1
}

// note adds a note, and shows it from its top (/help is longer than
// many a screen).
func (m *Model) note(s string) {
	m.entries = append(m.entries, entry{kind: entryNote, text: s})
	m.landing = len(m.entries) - 1
	m.refresh(true)
}

// leadHeading is the heading of the part of r's report a reader starts
// with, after the round: what it concluded (the synthesis, the winning
// plan, the verdict, the findings, what to do with the agent's branch);
// below it the report's end, above it how the round got there. "" for
// the report's top: an answer to /ask, and a round that did not finish
// (its top says so).
func leadHeading(r *quorum.ChatRound) string {
	if r.Status != quorum.RoundOK && r.Status != quorum.RoundDegraded {
		return ""
	}
	switch {
	case r.Discuss != nil:
		return "Synthesis"
	case r.Plan != nil:
		return "Winning plan"
	case r.Debate != nil:
		return "Verdict"
	case r.Review != nil:
		return "Findings"
	case r.Agent != nil:
		return "What now"
	}
	return ""
}
