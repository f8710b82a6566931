package quorum

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/quorum-go/quorum/copilot"
)

// execute carries the approved plan out: the workspace, the executor's
// conversation, one turn per step, each committed; then the review and
// the fix rounds.
func (r *run) execute(a *AgentResult, as *agentSettings) error {
	ws, err := as.Workspace(r.ctx)
	if err != nil {
		if err := r.stopped(PhaseExecute); err != nil {
			return err
		}
		return fmt.Errorf("quorum: making the workspace: %w", err)
	}
	a.Workspace = &WorkspaceInfo{Dir: ws.Dir(), Branch: ws.Branch(), Base: ws.Base()}
	sandbox, warnings := as.Sandbox.toolSandbox(ws)
	a.Sandbox = sandboxInfo(sandbox, warnings)
	a.Executor = as.Executor
	if a.Executor == "" {
		a.Executor = a.Plan.Author
	}
	a.Stage = StageExecuted
	g := &gate{ws: ws, mode: as.Shell, allowURL: as.AllowURL, ask: as.AskShell, attempt: as.attempt}
	g.vote = func(ctx context.Context, act Action) (ActionDecision, []ActionVote) {
		return r.shellVote(ctx, a, as, act)
	}
	g.told = func(rec ActionRecord) {
		r.ev.emit(Progress{Kind: ActionDecided, Phase: PhaseExecute, Model: a.Executor, Text: rec.describe()})
	}
	ex := &executor{r: r, a: a, as: as, ws: ws, g: g, sandbox: sandbox}
	defer func() { a.Actions = g.taken() }()
	if as.attempt != "" {
		// The judges read the attempt's diff as it ended.
		defer func() { as.diff, _ = ex.diff() }()
	}
	if err := ex.open(); err != nil {
		return err
	}
	defer ex.close()
	err = ex.run()
	// Whatever happened, the work so far is committed and described.
	ex.commit("quorum agent: work in progress (stopped)")
	a.Change = ex.summary()
	if err != nil {
		return err
	}
	a.Stage = StageReviewed
	for round := 0; ; round++ {
		name := "final"
		if round > 0 {
			name = fmt.Sprintf("fix-%d", round)
		}
		blocking, err := ex.review(name)
		if err != nil {
			return err
		}
		if len(blocking) == 0 || round == max(as.FixRounds, 0) {
			a.Findings = blocking
			return nil
		}
		if err := ex.fix(round+1, blocking); err != nil {
			a.Findings = blocking
			return err
		}
	}
}

// executor is the one session that carries the plan out.
type executor struct {
	r       *run
	a       *AgentResult
	as      *agentSettings
	ws      Workspace
	g       *gate
	conv    Conversation
	sandbox *ToolSandbox // nil: unconfined

	mu    sync.Mutex // guards calls and the current step's tools
	calls int
	tools *[]ToolUse
	limit context.CancelCauseFunc
}

// open opens the executor's conversation, which stays open through the
// plan's steps and the fix rounds, so the executor remembers what it did.
// It takes no slot of Config.MaxConcurrency: the votes on its commands and
// the reviews of its work need those slots while it waits, and with one
// slot it would wait for itself.
func (ex *executor) open() error {
	r := ex.r
	conv, err := r.b.Open(r.ctx, OpenOptions{
		Model:         ex.a.Executor,
		SystemMessage: agentExecuteSystem,
		Tools:         &ToolAccess{Dir: ex.ws.Dir(), Decide: ex.g.decide, OnTool: ex.onTool, Sandbox: ex.sandbox, OnSandbox: ex.onSandbox},
	})
	if err == nil && conv == nil {
		err = errors.New("quorum: the Backend's Open returned neither a conversation nor an error; fix the Backend")
	}
	if err != nil {
		if serr := r.stopped(PhaseExecute); serr != nil {
			return serr
		}
		return fmt.Errorf("quorum: opening the executor's session with %s: %w", ex.a.Executor, err)
	}
	ex.conv = conv
	return nil
}

// close ends the executor's conversation, also after the run was
// cancelled, and turns away shell votes asked for after it.
func (ex *executor) close() {
	if ex.conv == nil {
		return
	}
	r := ex.r
	cctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), r.s.CloseTimeout)
	ex.conv.Close(cctx)
	cancel()
	ex.as.votes.Lock()
	ex.as.votesOver = true
	ex.as.votes.Unlock()
}

// run carries out every step of the plan.
func (ex *executor) run() error {
	ph := ex.r.startPhase(PhaseExecute, []string{ex.a.Executor})
	defer func() { ph.finish(nil) }()
	plan := *ex.a.Plan
	nonce := nonceOf(ex.a.Task, planDoc(plan))
	for i, st := range plan.Steps {
		prompt := agentStepPrompt(ex.a.Task, ex.ws, quote("PLAN", nonce, planDoc(plan)), i+1, len(plan.Steps), st, i == 0)
		if i == 0 && ex.as.attempt != "" {
			prompt += agentAttemptNote(ex.as.attempt, ex.as.of)
		}
		if err := ex.turn(PhaseExecute, "execute", i+1, st.Goal, prompt, fmt.Sprintf("quorum agent: step %d: %s", i+1, oneLine(st.Goal))); err != nil {
			return err
		}
	}
	return nil
}

// turn sends one prompt to the executor and records it as a StepRun,
// committing what it changed.
func (ex *executor) turn(p Phase, round string, step int, goal, prompt, message string) error {
	r := ex.r
	settle, err := r.budget.reserve(ex.a.Executor)
	if err != nil {
		r.fail(&ModelError{Model: ex.a.Executor, Phase: p, Target: ex.target(step), Err: err}, "cap")
		r.recordCall(Call{Phase: p, Model: ex.a.Executor, Target: ex.target(step), StartMS: time.Since(r.start).Milliseconds(), Outcome: "cap", Error: err.Error()})
		return r.stopped(p)
	}
	ex.g.at(round, step)
	run := StepRun{Round: round, Step: step, Goal: goal, Tools: []ToolUse{}}
	ex.mu.Lock()
	ex.tools = &run.Tools
	ex.mu.Unlock()
	cause := fmt.Errorf("%w: no reply within the phase timeout (Config.PhaseTimeout, %v) of step %d", ErrTimeout, r.s.PhaseTimeout, step)
	tctx, cancelTimeout := context.WithTimeoutCause(r.ctx, r.s.PhaseTimeout, cause)
	ctx, cancel := context.WithCancelCause(tctx)
	ex.mu.Lock()
	ex.limit = cancel
	ex.mu.Unlock()
	start := time.Now()
	r.ev.emit(Progress{Kind: ModelStarted, Phase: p, Model: ex.a.Executor, Target: ex.target(step), Text: prompt})
	reply, err := ex.conv.Send(ctx, prompt, func(d string) {
		r.ev.emit(Progress{Kind: Delta, Phase: p, Model: ex.a.Executor, Target: ex.target(step), Text: d})
	})
	settle(reply.Usage.Cost)
	// The turn's bookkeeping shares the result with shell votes, which a
	// provider may still be finishing on its own goroutine.
	ex.as.votes.Lock()
	defer ex.as.votes.Unlock()
	if cause := context.Cause(ctx); errors.Is(cause, copilot.ErrToolLimit) || (err != nil && cause != nil) {
		// The limit stops the turn even if the reply came in first.
		err = cause
	}
	cancel(nil)
	cancelTimeout()
	el := time.Since(start)
	ex.mu.Lock()
	ex.tools = nil
	ex.mu.Unlock()
	run.Reply, run.ElapsedMS, run.Usage = reply.Text, el.Milliseconds(), reply.Usage
	call := Call{Phase: p, Model: ex.a.Executor, Target: ex.target(step), StartMS: start.Sub(r.start).Milliseconds(), ElapsedMS: el.Milliseconds(), Outcome: "ok", Usage: reply.Usage}
	if err != nil {
		run.Error = err.Error()
		call.Outcome, call.Error = "error", err.Error()
		r.fail(&ModelError{Model: ex.a.Executor, Phase: p, Target: ex.target(step), Err: err}, "error")
	}
	r.recordCall(call)
	ev := Progress{Kind: ModelFinished, Phase: p, Model: ex.a.Executor, Target: ex.target(step), Text: reply.Text, Elapsed: el, Usage: &reply.Usage}
	if err != nil {
		ev.Err = err
	}
	r.ev.emit(ev)
	run.Commit = ex.commit(message)
	ex.a.Steps = append(ex.a.Steps, run)
	if err != nil {
		if serr := r.stopped(p); serr != nil {
			return serr
		}
		return fmt.Errorf("quorum: step %d failed: %w", step, err)
	}
	return nil
}

// onTool records a tool call of the current turn and enforces the
// run's tool-call limit.
func (ex *executor) onTool(u ToolUse) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.tools == nil {
		return
	}
	if !u.Done {
		ex.calls++
		*ex.tools = append(*ex.tools, u)
		if ex.calls > ex.as.MaxToolCalls && ex.limit != nil {
			ex.limit(fmt.Errorf("quorum: the executor passed its limit of %d tool calls: %w; raise AgentConfig.MaxToolCalls (--max-tool-calls) if the task needs more", ex.as.MaxToolCalls, copilot.ErrToolLimit))
		}
	} else {
		for i := len(*ex.tools) - 1; i >= 0; i-- {
			if prev := (*ex.tools)[i]; prev.ID == u.ID {
				// The end of a call names neither the tool nor its arguments.
				u.Tool, u.Arguments = prev.Tool, prev.Arguments
				(*ex.tools)[i] = u
				break
			}
		}
	}
	ex.r.ev.emit(Progress{Kind: ToolActivity, Phase: PhaseExecute, Model: ex.a.Executor, Text: u.describe()})
}

// onSandbox records a record of the provider's sandbox in the current
// turn.
func (ex *executor) onSandbox(d SandboxDecision) {
	d.Round, d.Step = ex.g.where()
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.a.Sandbox.Decisions = append(ex.a.Sandbox.Decisions, d)
}

// commit records the workspace's changes; it returns the commit, "" when
// nothing changed or the commit failed (the failure is recorded: the work
// stays in the workspace, uncommitted).
func (ex *executor) commit(message string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ex.r.ctx), ex.r.s.CloseTimeout)
	defer cancel()
	c, changed, err := ex.ws.Commit(ctx, message)
	if err != nil {
		ex.r.out.Failures = append(ex.r.out.Failures, Failure{Model: ex.a.Executor, Phase: PhaseExecute, Kind: "error", Error: "committing the changes: " + err.Error()})
		return ""
	}
	if changed {
		ex.a.Workspace.Head = c
	}
	return c
}

// summary describes the branch's diff, or nil when it cannot be read.
func (ex *executor) summary() *ChangeSummary {
	diff, err := ex.diff()
	if err != nil {
		return nil
	}
	s, err := Change{Diff: diff}.Summary()
	if err != nil {
		return nil
	}
	return &s
}

func (ex *executor) diff() (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ex.r.ctx), ex.r.s.CloseTimeout)
	defer cancel()
	return ex.ws.Diff(ctx)
}

// review has the models other than the executor review the branch and
// returns the findings at or above the gate.
func (ex *executor) review(name string) ([]MergedFinding, error) {
	r := ex.r
	diff, err := ex.diff()
	if err != nil {
		return nil, fmt.Errorf("quorum: reading the branch's diff: %w", err)
	}
	change := Change{Diff: diff, Context: ex.as.Context}
	if strings.TrimSpace(diff) == "" {
		return nil, nil // nothing changed: nothing to review
	}
	if err := change.Validate(); err != nil {
		// Context files may push it past the limit; the diff alone then.
		change.Context = nil
		if err := change.Validate(); err != nil {
			return nil, fmt.Errorf("quorum: the branch's diff cannot be reviewed: %w", err)
		}
	}
	files, err := parseDiff(diff)
	if err != nil {
		return nil, err
	}
	reviewers := ex.as.reviewers(ex.a.Executor)
	if len(reviewers) == 0 {
		reviewers = []string{ex.a.Executor}
	}
	rv := &ReviewResult{Change: summarise(files, change.Context)}
	sub := r.withModels(reviewers)
	err = sub.inspect(rv, change, files)
	r.failures = sub.failures
	ex.a.Reviews = append(ex.a.Reviews, AgentReview{Round: name, Change: rv.Change, Inspections: rv.Inspections, Findings: rv.Findings})
	if err != nil {
		return nil, err
	}
	var blocking []MergedFinding
	for _, f := range rv.Findings {
		if f.Severity.AtLeast(ex.as.FailOn) {
			blocking = append(blocking, f)
		}
	}
	return blocking, nil
}

// fix runs fix round n: the executor is given the findings to fix.
func (ex *executor) fix(n int, findings []MergedFinding) error {
	ph := ex.r.startPhase(PhaseFix, []string{ex.a.Executor})
	defer ph.finish(nil)
	var list []string
	for _, f := range findings {
		list = append(list, fmt.Sprintf("%s [%s] %s:%d-%d %s — %s", f.ID, f.Severity, f.File, f.StartLine, f.EndLine, oneLine(f.Explanation), oneLine(f.Suggestion)))
	}
	nonce := nonceOf(strings.Join(list, "\n"))
	prompt := agentFixPrompt(ex.a.Task, quote("FINDINGS", nonce, strings.Join(list, "\n")))
	return ex.turn(PhaseFix, fmt.Sprintf("fix-%d", n), 0, "fix the review's findings", prompt, fmt.Sprintf("quorum agent: fix round %d", n))
}

// shellVote has the models other than the executor vote on a shell
// command; the majority decides, a tie (or no vote) denies. Votes run one
// command at a time.
func (r *run) shellVote(ctx context.Context, a *AgentResult, as *agentSettings, act Action) (ActionDecision, []ActionVote) {
	voters := as.reviewers(a.Executor)
	if len(voters) == 0 {
		return ActionDecision{By: ByQuorum, Reason: "no other model could vote on the command; denied"}, nil
	}
	as.votes.Lock()
	defer as.votes.Unlock()
	if as.votesOver {
		return ActionDecision{By: ByQuorum, Reason: "the executor's session has ended; no vote was held"}, nil
	}
	nonce := nonceOf(a.Task, act.Command)
	prompt := agentShellVotePrompt(a.Task, quote("COMMAND", nonce, act.Command), act)
	tasks := make([]task, len(voters))
	for i, m := range voters {
		tasks[i] = task{model: m, system: agentReviewSystem, prompt: prompt}
	}
	ph := r.startPhase(PhaseShellVote, voters)
	results := ph.doIn(ctx, tasks)
	ph.finish(nil)
	var votes []ActionVote
	yes, no := 0, 0
	for _, res := range results {
		v := ActionVote{Model: res.model}
		if res.err != nil {
			v.Error = res.err.Err.Error()
			votes = append(votes, v)
			continue
		}
		approve, reason, ok := parseShellVote(res.reply.Text)
		if !ok {
			v.Error = "no vote could be read from the reply"
			votes = append(votes, v)
			continue
		}
		v.Approve, v.Reason = approve, reason
		if approve {
			yes++
		} else {
			no++
		}
		votes = append(votes, v)
	}
	d := ActionDecision{By: ByQuorum, Allow: yes > no}
	switch {
	case yes > no:
		d.Reason = fmt.Sprintf("%d of %d models approved", yes, len(voters))
	case yes == no:
		d.Reason = fmt.Sprintf("a tie (%d for, %d against) denies", yes, no)
	default:
		d.Reason = fmt.Sprintf("%d of %d models denied", no, len(voters))
	}
	for _, v := range votes {
		if !v.Approve && v.Reason != "" && !d.Allow {
			d.Reason += ": " + v.Reason
			break
		}
	}
	return d, votes
}
