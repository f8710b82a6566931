package chat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/internal/cli/planfile"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// question is what an /agent round asks the person: whether to carry out
// its plan (plan set), or to let the executor run a shell command (action
// set, when shell commands are decided by asking). The asker waits on
// reply, which takes one answer; over is closed once it stops waiting,
// answered or not (its turn ended, the round was cancelled): a question
// still shown then is withdrawn.
type question struct {
	plan   *quorum.AgentPlan
	action *quorum.Action
	reply  chan answer
	over   chan struct{}
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
		// One question at a time: several attempts' executors may ask at
		// once.
		one := make(chan struct{}, 1)
		cfg.AskShell = func(ctx context.Context, act quorum.Action) (quorum.ActionDecision, error) {
			select {
			case one <- struct{}{}:
			case <-ctx.Done():
				return quorum.ActionDecision{}, context.Cause(ctx)
			}
			defer func() { <-one }()
			a, err := o.Feed.ask(ctx, &question{action: &act})
			return a.decision, err
		}
	}
	return cfg, nil
}

// The answers, each by its key and the words the line mode also takes.
var choices = []struct{ key, word string }{
	{"y", "yes"}, {"n", "no"}, {"e", "edit"}, {"a", "always"},
}

// choiceOf is the key of an answer typed on a line ("y", "yes", "Yes"),
// "" for anything else: a line is never taken for an answer by its first
// letter ("abort" is not "always").
func choiceOf(line string) string {
	line = strings.ToLower(strings.TrimSpace(line))
	for _, c := range choices {
		if line == c.key || line == c.word {
			return c.key
		}
	}
	return ""
}

// text is the question for the person, as plain text (no Markdown: what
// is shown is exactly what runs, nothing a renderer would hide): the plan
// (edited, when they edited it), or the command the executor asks to run.
func (q *question) text(edited *quorum.AgentPlan, simulated bool) string {
	var b strings.Builder
	if q.plan != nil {
		plan := *q.plan
		if edited != nil {
			plan = *edited
			b.WriteString("The plan as you edited it:\n\n")
		}
		report.Text(&b, report.AgentPlan(plan, nil), report.Options{Simulated: simulated})
		return b.String()
	}
	a := q.action
	if a.Attempt != "" {
		b.WriteString("Attempt " + sanitize.Line(a.Attempt) + "'s executor asks to run:\n\n")
	} else {
		b.WriteString("The executor asks to run:\n\n")
	}
	for _, l := range strings.Split(sanitize.Exact(a.Command), "\n") {
		b.WriteString("  " + l + "\n")
	}
	if a.Intention != "" {
		b.WriteString("\nto " + sanitize.Exact(sanitize.Line(a.Intention)) + "\n")
	}
	return b.String()
}

// prompt is the line mode's question.
func (q *question) prompt(edited bool) string {
	switch {
	case q.action != nil:
		return "Allow this command? y yes · n no · a always this command"
	case edited:
		return "Carry out the edited plan? y yes · e edit again · n no"
	}
	return "Carry out this plan? y yes · e edit it · n no"
}

// keys is the full screen's hint while the question waits for a key.
func (q *question) keys(edited bool) string {
	switch {
	case q.action != nil:
		return "y allow · n deny · a always this command · Esc cancels the round"
	case edited:
		return "y carry out the edited plan · e edit again · n reject · Esc cancels"
	}
	return "y carry out · e edit · n reject · PgUp/PgDn scroll · Esc cancels"
}

// decide is the answer a choice gives (edited: the plan as the person
// edited it, if they did); ok is false for a key that answers nothing
// (e, which edits, is not an answer).
func (q *question) decide(choice string, edited *quorum.AgentPlan) (a answer, ok bool) {
	if q.action != nil {
		switch choice {
		case "y":
			return answer{decision: quorum.ActionDecision{Allow: true, Reason: "allowed in the chat"}}, true
		case "a":
			return answer{decision: quorum.ActionDecision{Allow: true, Always: true, Reason: "allowed in the chat, for the rest of the round"}}, true
		case "n":
			return answer{decision: quorum.ActionDecision{Reason: "denied in the chat"}}, true
		}
		return answer{}, false
	}
	switch choice {
	case "y":
		if edited != nil {
			return answer{approval: quorum.Approval{Verdict: quorum.ApprovalEdited, Plan: edited}}, true
		}
		return answer{approval: quorum.Approval{Verdict: quorum.ApprovalApproved}}, true
	case "n":
		return answer{approval: quorum.Approval{Verdict: quorum.ApprovalRejected, Reason: "rejected in the chat"}}, true
	}
	return answer{}, false
}

// withdrawnNote says that a question went unanswered because its asker
// stopped waiting.
func (q *question) withdrawnNote() string {
	if q.plan != nil {
		return "The plan's question was withdrawn: the round stopped waiting for an answer."
	}
	return "The question about " + sanitize.Line(q.action.Command) + " was withdrawn: the executor's turn ended without the answer (it was told no answer came)."
}

// The gate on the full screen: the question replaces the round's panes
// until the person answers with a key (or cancels the round).

// gateArmDelay is how long a question is shown before its keys answer
// it: someone typing the next question while the round runs must not
// answer a question that appeared under their fingers (a y, an a). Keys
// typed meanwhile go on into the input.
const gateArmDelay = 700 * time.Millisecond

// Seams of the package's tests, which replace them for a test's length
// (nothing else does; no Options field carries them): the clock of the
// elapsed times shown, fixed so that frames are the same from run to run,
// and the arming delay, shortened (or made endless) so that a test waits
// on the armed keys, never on a clock.
var (
	clock    = time.Now
	armDelay = gateArmDelay
)

type (
	// gateArmedMsg: the question shown has been up for gateArmDelay.
	gateArmedMsg struct{ q *question }
	// questionOverMsg: q's asker stopped waiting.
	questionOverMsg struct{ q *question }
)

// ask shows q, or queues it behind the question shown; the command
// returned arms the gate and watches for q's asker to stop waiting.
func (m *Model) ask(q *question) tea.Cmd {
	over := func() tea.Msg {
		<-q.over
		return questionOverMsg{q}
	}
	if m.asking != nil {
		m.queued = append(m.queued, q)
		return over
	}
	return tea.Batch(over, m.show(q))
}

// show puts q on the screen, not yet armed.
func (m *Model) show(q *question) tea.Cmd {
	m.asking, m.edited, m.armed = q, nil, false
	m.focus = -1
	m.showQuestion()
	m.gate.GotoTop()
	delay := armDelay
	return func() tea.Msg {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-q.over:
		}
		return gateArmedMsg{q}
	}
}

// next shows the first queued question, if any.
func (m *Model) next() tea.Cmd {
	m.asking, m.edited = nil, nil
	if len(m.queued) == 0 {
		return nil
	}
	q := m.queued[0]
	m.queued = m.queued[1:]
	return m.show(q)
}

// questionOver drops q if it still waits for an answer: its asker is
// gone, and an answer would reach nobody.
func (m *Model) questionOver(q *question) tea.Cmd {
	for i, x := range m.queued {
		if x == q {
			m.queued = append(m.queued[:i], m.queued[i+1:]...)
			return nil
		}
	}
	if m.asking != q {
		return nil // answered
	}
	m.note(q.withdrawnNote())
	return m.next()
}

// showQuestion lays the question out at the screen's width.
func (m *Model) showQuestion() {
	title := "Carry out this plan?"
	switch {
	case m.asking.action != nil:
		title = "Allow this command?"
	case m.edited != nil:
		title = "Carry out the edited plan?"
	}
	text := wrapIndented(strings.TrimRight(m.asking.text(m.edited, m.o.Simulated), "\n"), m.width)
	m.gate.SetContent(m.st.prompt.Render(title) + "\n\n" + text)
}

// wrapIndented wraps each line of s to width, its continuation lines
// indented two columns past the line's own indent (a plan's steps stay
// readable as a list).
func wrapIndented(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if ansi.StringWidth(l) <= width || indent+2 >= width/2 {
			lines[i] = ansi.Wrap(l, width, "")
			continue
		}
		pad := strings.Repeat(" ", indent+2)
		wrapped := strings.Split(ansi.Wrap(l[indent:], width-indent-2, ""), "\n")
		for j := range wrapped {
			if j == 0 {
				wrapped[j] = l[:indent] + wrapped[j]
			} else {
				wrapped[j] = pad + wrapped[j]
			}
		}
		lines[i] = strings.Join(wrapped, "\n")
	}
	return strings.Join(lines, "\n")
}

// gateKey handles a key while a question is shown: before the gate is
// armed the key goes to the input (Esc and Ctrl-C cancel the round
// either way); then an answer, e to edit the plan, or scrolling; other
// keys do nothing.
func (m *Model) gateKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.asking, m.edited, m.queued = nil, nil, nil
		m.cancelRound()
		return nil
	case "pgup", "pgdown", "ctrl+u", "ctrl+b", "ctrl+f", "up", "down":
		return m.scroll(k)
	}
	if !m.armed {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return cmd
	}
	choice := strings.ToLower(k.String())
	if choice == "e" && m.asking.plan != nil {
		return m.editPlan()
	}
	a, ok := m.asking.decide(choice, m.edited)
	if !ok {
		return nil
	}
	m.asking.reply <- a // reply holds one answer: this never blocks
	return m.next()
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
	editor := m.o.Editor
	return tea.ExecProcess(editorCommand(editor, path), func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return planEditedMsg{err: fmt.Errorf("%s; %w", editorFailed(editor, err), planfile.ErrUnchanged)}
		}
		p, err := planfile.Read(path)
		return planEditedMsg{plan: p, err: err}
	})
}

// editorFailed says that the editor did not run, and how to name another.
func editorFailed(editor string, err error) string {
	if editor == "" {
		editor = "vi"
	}
	return fmt.Sprintf("the editor (%s) failed: %v; set $VISUAL or $EDITOR to the editor to use", editor, err)
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
