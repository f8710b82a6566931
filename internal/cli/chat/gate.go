package chat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/internal/cli/planfile"
	"github.com/quorum-go/quorum/internal/cli/report"
	"github.com/quorum-go/quorum/internal/cli/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// question is what an /agent round asks the person: whether to carry out
// its plan (plan set), or to let the executor run a shell command (action
// set, when shell commands are decided by asking). The round's goroutine
// waits on reply, which takes one answer.
type question struct {
	plan   *quorum.AgentPlan
	action *quorum.Action
	reply  chan answer
}

type answer struct {
	approval quorum.Approval
	decision quorum.ActionDecision
}

// agentConfig is an /agent round's configuration: the command's (the
// repository checked, its context, the worktree to make), with the plan's
// gate and the shell commands put to the person through the feed.
func agentConfig(ctx context.Context, o *Options, task string) (quorum.AgentConfig, error) {
	if o.Agent == nil {
		return quorum.AgentConfig{}, errors.New("/agent is not available here; quorum agent carries out a change from the shell")
	}
	cfg, err := o.Agent(ctx, task)
	if err != nil {
		return quorum.AgentConfig{}, err
	}
	cfg.Approve = func(ctx context.Context, plan quorum.AgentPlan) (quorum.Approval, error) {
		a, err := o.Feed.ask(ctx, &question{plan: &plan})
		return a.approval, err
	}
	cfg.AskShell = nil
	if cfg.Shell == quorum.ShellAsk {
		cfg.AskShell = func(ctx context.Context, act quorum.Action) (quorum.ActionDecision, error) {
			a, err := o.Feed.ask(ctx, &question{action: &act})
			return a.decision, err
		}
	}
	return cfg, nil
}

// Choices at the gate, by their key.
const (
	choiceYes    = "y"
	choiceNo     = "n"
	choiceEdit   = "e"
	choiceAlways = "a"
)

// text is the question for the person: the plan (edited, when they
// edited it), or the command the executor asks to run; as Markdown for
// the screen, as plain text for the line mode.
func (q *question) text(edited *quorum.AgentPlan, simulated, markdown bool) string {
	var b strings.Builder
	if q.plan != nil {
		plan := *q.plan
		if edited != nil {
			plan = *edited
			b.WriteString("The plan as you edited it:\n\n")
		}
		rep, o := report.AgentPlan(plan, nil), report.Options{Simulated: simulated}
		if markdown {
			report.Markdown(&b, rep, o)
		} else {
			report.Text(&b, rep, o)
		}
		return b.String()
	}
	a := q.action
	if markdown {
		b.WriteString("## The executor asks to run a command\n\n```\n" + sanitize.Text(a.Command) + "\n```\n")
	} else {
		b.WriteString("The executor asks to run:\n  " + sanitize.Line(a.Command) + "\n")
	}
	if a.Intention != "" {
		b.WriteString("\nto " + sanitize.Line(a.Intention) + "\n")
	}
	return b.String()
}

// prompt is the question's line: what the keys do.
func (q *question) prompt(edited bool) string {
	switch {
	case q.action != nil:
		return "Allow this command? y yes · n no · a always this command"
	case edited:
		return "Carry out the edited plan? y yes · e edit again · n no"
	}
	return "Carry out this plan? y yes · e edit it · n no"
}

// decide is the answer a choice gives (edited: the plan as the person
// edited it, if they did); ok is false for a key that answers nothing
// (e, which edits, is not an answer).
func (q *question) decide(choice string, edited *quorum.AgentPlan) (a answer, ok bool) {
	if q.action != nil {
		switch choice {
		case choiceYes:
			return answer{decision: quorum.ActionDecision{Allow: true, Reason: "allowed in the chat"}}, true
		case choiceAlways:
			return answer{decision: quorum.ActionDecision{Allow: true, Always: true, Reason: "allowed in the chat, for the rest of the round"}}, true
		case choiceNo:
			return answer{decision: quorum.ActionDecision{Reason: "denied in the chat"}}, true
		}
		return answer{}, false
	}
	switch choice {
	case choiceYes:
		if edited != nil {
			return answer{approval: quorum.Approval{Verdict: quorum.ApprovalEdited, Plan: edited}}, true
		}
		return answer{approval: quorum.Approval{Verdict: quorum.ApprovalApproved}}, true
	case choiceNo:
		return answer{approval: quorum.Approval{Verdict: quorum.ApprovalRejected, Reason: "rejected in the chat"}}, true
	}
	return answer{}, false
}

// The gate on the full screen: the question replaces the round's panes
// until the person answers with a key (or cancels the round).

// ask shows q, or queues it behind the question shown.
func (m *Model) ask(q *question) {
	if m.asking != nil {
		m.queued = append(m.queued, q)
		return
	}
	m.asking, m.edited = q, nil
	m.focus = -1
	m.showQuestion()
	m.gate.GotoTop()
}

// showQuestion lays the question out at the screen's width.
func (m *Model) showQuestion() {
	md := m.asking.text(m.edited, m.o.Simulated, true)
	out, err := report.Terminal(md, m.width, m.o.Colour)
	if err != nil {
		out = ansi.Wrap(md, m.width, "") // clean already: built of sanitised text
	}
	m.gate.SetContent(strings.Trim(out, "\n"))
}

// gateKey handles a key while a question waits: an answer, e to edit
// the plan, scrolling, or cancelling the round; other keys do nothing.
func (m *Model) gateKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.asking, m.edited, m.queued = nil, nil, nil
		m.cancelRound()
		return nil
	case "pgup", "pgdown", "ctrl+u", "ctrl+b", "ctrl+f", "up", "down":
		return m.scroll(k)
	}
	choice := strings.ToLower(k.String())
	if choice == choiceEdit && m.asking.plan != nil {
		return m.editPlan()
	}
	a, ok := m.asking.decide(choice, m.edited)
	if !ok {
		return nil
	}
	m.asking.reply <- a // reply holds one answer: this never blocks
	m.asking, m.edited = nil, nil
	if len(m.queued) > 0 {
		q := m.queued[0]
		m.queued = m.queued[1:]
		m.ask(q)
	}
	return nil
}

// editPlan opens the plan (as edited so far) as JSON in the editor; the
// program gives the terminal to it and takes it back after.
func (m *Model) editPlan() tea.Cmd {
	plan := *m.asking.plan
	if m.edited != nil {
		plan = *m.edited
	}
	path, err := planfile.Write(plan)
	if err != nil {
		m.hint = sanitize.Line(err.Error())
		return nil
	}
	return tea.ExecProcess(editorCommand(m.o.Editor, path), func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return planEditedMsg{err: fmt.Errorf("the editor failed (%v); %w", err, planfile.ErrUnchanged)}
		}
		p, err := planfile.Read(path)
		return planEditedMsg{plan: p, err: err}
	})
}

// planEdited takes the plan back from the editor, to ask again.
func (m *Model) planEdited(p quorum.AgentPlan, err error) {
	if m.asking == nil || m.asking.plan == nil {
		return // the round ended while the editor ran
	}
	if err != nil {
		m.hint = sanitize.Line(err.Error())
		return
	}
	p.Author = m.asking.plan.Author
	m.edited = &p
	m.showQuestion()
	m.gate.GotoTop()
}
