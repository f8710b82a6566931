package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Workspace is where an agent carries out its plan, apart from the user's
// files: for the quorum command, a git worktree of a new branch (ExampleAgent
// writes one of its own). quorum never touches files itself; it asks the
// workspace. Its methods are called from the run's goroutine (with
// several AgentConfig.Attempts, from its attempt's: each attempt has a
// workspace of its own), except Contains and Writable, which the action
// gate may call from the provider's goroutines, concurrently.
type Workspace interface {
	// Dir is the folder the executor works in.
	Dir() string
	// Branch names the branch the work is recorded on; Base the commit it
	// started from.
	Branch() string
	Base() string
	// Contains reports whether path (absolute or relative to Dir) is
	// inside the workspace; Writable whether it may be written.
	Contains(path string) bool
	Writable(path string) bool
	// Commit records every change in the workspace; changed is false, and
	// no commit is made, when there is none.
	Commit(ctx context.Context, message string) (commit string, changed bool, err error)
	// Diff is the unified diff of everything committed since Base.
	Diff(ctx context.Context) (string, error)
}

// Defaults of AgentConfig.
const (
	DefaultMaxRevisions = 2
	DefaultMaxToolCalls = 200
	DefaultFixRounds    = 1
)

// AgentConfig configures Agent. Config's Models are the participants, who
// plan, review the plan, vote on shell commands (ShellQuorum) and review the
// result; Config's timeouts bound each phase and the run, as in the other
// strategies, the execution included.
type AgentConfig struct {
	Config

	// Context are the files the models read before planning (the
	// repository's README, build files, tree, history, and files the user
	// named). Sources describe them for the result; nil means one source
	// per context file.
	Context []ContextFile
	Sources []ContextSource

	// Plan, when set, is a plan given in advance (the Plan of a run that
	// stopped at StagePlanned, say, or one a person wrote): Agent carries
	// it out as it is, with no planning phases (no proposals, vote, plan
	// review or revision: no model turn before the gate), asking Approve
	// as usual; it needs at least one step, each with a goal. Solo must
	// then be empty and MaxRevisions does not apply. Its Author, when a
	// participant, is the default executor; otherwise the first of
	// Config's Models is. PlanFrom says where the plan came from (a file's
	// path), for the result (AgentResult.PlanFrom).
	Plan     *AgentPlan
	PlanFrom string

	// Solo, a model id, plans alone: no proposals from the others, no vote.
	Solo string
	// Executor carries the plan out; default: the plan's author (see Plan
	// for a given plan's).
	Executor string
	// Attempts is how many attempts carry the approved plan out at the
	// same time, each in its own workspace (Workspace is called once per
	// attempt; AttemptLabel tells it which) with its own executor session,
	// all under the same Sandbox and gate; the models then judge the
	// attempts, knowing them only by label, and the best is the result
	// (see AgentResult.Attempts and Ranking). 0 or 1 means one attempt,
	// the run as without this field. Executors names each attempt's
	// executor (one attempt each; Attempts may then be 0); without it
	// every attempt uses Executor, or the plan's author.
	Attempts  int
	Executors []string
	// MaxRevisions bounds the rounds of plan review; each round the other
	// models review the plan and, if any asks for changes, its author
	// revises it. 0 means DefaultMaxRevisions; negative means no review.
	MaxRevisions int

	// Approve is the human gate: it is shown the reviewed plan (or the
	// given one, Plan) and approves it, returns an edited plan, or rejects
	// it. Nil stops the run after planning (at once with a given Plan), at
	// StagePlanned: nothing is executed without consent.
	Approve func(ctx context.Context, plan AgentPlan) (Approval, error)
	// Workspace makes the place the plan is carried out in, once it is
	// approved. Required when Approve is set. With several Attempts it is
	// called once per attempt, from the attempt's goroutine, with a
	// context AttemptLabel reads the attempt's label from.
	Workspace func(ctx context.Context) (Workspace, error)

	// Shell says how shell commands are decided (default ShellQuorum);
	// AskShell asks a person, for ShellAsk. AllowURL lets the executor
	// fetch URLs. Reads and writes inside the workspace are allowed; every
	// other action is denied.
	// With several Attempts, AskShell may be called by several attempts
	// at once; Action.Attempt says which asks.
	Shell    ShellMode
	AskShell func(ctx context.Context, a Action) (ActionDecision, error)
	AllowURL bool
	// MaxToolCalls bounds the executor's tool calls over the whole run;
	// the turn that passes it is stopped (an error wrapping copilot.ErrToolLimit, whatever the Backend: one sentinel for the limit). 0 means
	// DefaultMaxToolCalls.
	MaxToolCalls int

	// FailOn is the severity from which a finding of the final review
	// needs a fix (default SeverityBlocking); FixRounds bounds the fix
	// rounds (0 means DefaultFixRounds, negative none).
	FailOn    Severity
	FixRounds int

	// Sandbox confines the executor's commands; the zero value is the
	// strictest confinement (see SandboxPolicy). Unless it is Unconfined,
	// Agent asks the Backend whether it can confine (CheckSandbox) before
	// any model is asked, and fails with ErrSandboxUnavailable when it
	// cannot.
	Sandbox SandboxPolicy
}

// Approval is the human gate's answer.
type Approval struct {
	// Verdict is ApprovalApproved, ApprovalEdited (Plan holds the edited
	// plan) or ApprovalRejected.
	Verdict string
	Plan    *AgentPlan
	// Reason is the user's word, kept in the result.
	Reason string
}

// Verdicts of the human gate.
const (
	ApprovalApproved = "approved"
	ApprovalEdited   = "edited"
	ApprovalRejected = "rejected"
)

// Errors of an agent run, beside those of every run.
var (
	// ErrPlanRejected: the human gate rejected the plan.
	ErrPlanRejected = errors.New("quorum: the plan was rejected")
)

// Phases of Agent, after the planning phases (propose, vote).
const (
	PhasePlanReview Phase = "plan-review"
	PhaseRevise     Phase = "revise"
	PhaseExecute    Phase = "execute"
	PhaseShellVote  Phase = "shell-vote"
	PhaseFix        Phase = "fix"
)

// agentSettings are an AgentConfig's own fields, settled.
type agentSettings struct {
	AgentConfig
	reviewers func(exclude string) []string
	// votes runs shell votes one at a time and apart from the executor's
	// own bookkeeping: the provider asks on its own goroutines, maybe about
	// parallel tool calls at once, and a vote records into the run's
	// result. votesOver, set once the executor's session is closed, turns
	// away a vote still asked for then, so nothing records into the result
	// while later phases do.
	votes     sync.Mutex
	votesOver bool
	// attempt labels the attempt these settings carry out ("A", "B", …),
	// of the attempts in all; "" for a run of one attempt.
	attempt string
	of      int
	// diff is an attempt's branch diff when its execution ended, for the
	// judging.
	diff string
}

// Agent plans task with cfg.Models, has the plan reviewed, asks
// cfg.Approve, carries the plan out in cfg.Workspace with one session that
// uses the provider's tools, and reviews the result:
//
//  1. Plan: ensemble planning as Plan does it (every model proposes, the
//     others vote), each plan a list of steps with their goal, files and
//     check; with Solo, one model plans alone.
//  2. Plan review: the other models approve the winning plan or ask for
//     changes with reasons; its author revises; at most MaxRevisions
//     rounds. Objections still standing are kept.
//  3. The gate: Approve approves, edits or rejects. Without it the run
//     stops here, at StagePlanned.
//  4. Execute: the executor (default the plan's author) carries the plan
//     out in the workspace, one turn per step, each step committed, its
//     commands confined by the provider's sandbox (Sandbox). Every
//     action it asks permission for goes through the gate: reads and
//     writes inside the workspace are allowed, anything outside it denied,
//     shell commands decided by Shell, URLs by AllowURL, a request to run
//     outside the sandbox always denied, every other kind denied; a
//     denial is told to the model, which goes on. Every decision
//     is recorded in Actions.
//  5. Review: the other models review the branch's diff (Review's
//     inspect phase); findings at or above FailOn get a fix round by the
//     executor (FixRounds), then a re-review.
//
// With cfg.Plan, a plan given in advance, steps 1 and 2 do not run: the
// run starts at the gate with that plan, and no model is asked before it.
//
// A failing or cancelled run returns what was done so far, with its error:
// the workspace keeps every step committed, and Workspace says where.
// Agent never touches a file: all it changes, it changes through the
// executor's tools, in the workspace, as the gate allows.
func Agent(ctx context.Context, b Backend, task string, cfg AgentConfig) (*AgentResult, error) {
	s, as, err := cfg.settle(b, task)
	if err != nil {
		return nil, err
	}
	if as.Approve != nil && !as.Sandbox.Unconfined {
		// Fail closed, before any model is asked: a plan that could not be
		// carried out confined is not worth the requests.
		if err := CheckSandbox(ctx, b); err != nil {
			return nil, err
		}
	}
	s.fit(agentShape(as), agentShrinks(as)...)
	a := &AgentResult{Task: task, Models: s.Models, Context: as.Sources}
	r := newRun(ctx, b, s, &a.Outcome)
	err = r.agent(a, as)
	r.finish(err, false)
	a.fillLists()
	return a, err
}

func (c AgentConfig) settle(b Backend, task string) (*settings, *agentSettings, error) {
	cfg := c.Config
	if c.Solo != "" && !slices.Contains(cfg.Models, c.Solo) {
		cfg.Models = append([]string{c.Solo}, cfg.Models...)
	}
	if cfg.MinModels == 0 {
		// Each of an agent's phases can go on with one model left: a plan,
		// a review, an executor.
		cfg.MinModels = 1
	}
	s, err := cfg.settleFor(b, task, "task")
	if err != nil {
		return nil, nil, err
	}
	if err := c.settleAttempts(); err != nil {
		return nil, nil, err
	}
	if c.Executor != "" && strings.TrimSpace(c.Executor) == "" {
		return nil, nil, invalid("AgentConfig.Executor is blank; name a model or leave it empty for the plan's author")
	}
	if c.Plan != nil {
		if err := c.settleGivenPlan(s.Models); err != nil {
			return nil, nil, err
		}
	}
	switch c.Shell {
	case "":
		c.Shell = ShellQuorum
	case ShellAsk, ShellQuorum, ShellAuto, ShellNever:
	default:
		return nil, nil, invalid("AgentConfig.Shell is %q; use ask, quorum, auto or never", c.Shell)
	}
	if c.Shell == ShellAsk && c.AskShell == nil {
		return nil, nil, invalid("AgentConfig.Shell is ask but AskShell is nil; give a function that asks the user, or choose quorum, auto or never")
	}
	if c.Approve != nil && c.Workspace == nil {
		return nil, nil, invalid("AgentConfig.Workspace is nil; an approved plan needs a workspace to be carried out in")
	}
	if c.MaxToolCalls < 0 {
		return nil, nil, invalid("AgentConfig.MaxToolCalls is negative (%d); use 0 for the default of %d", c.MaxToolCalls, DefaultMaxToolCalls)
	}
	if c.MaxToolCalls == 0 {
		c.MaxToolCalls = DefaultMaxToolCalls
	}
	if c.MaxRevisions == 0 {
		c.MaxRevisions = DefaultMaxRevisions
	}
	if c.FixRounds == 0 {
		c.FixRounds = DefaultFixRounds
	}
	if c.FailOn == "" {
		c.FailOn = SeverityBlocking
	} else if c.FailOn.Rank() == 0 {
		return nil, nil, invalid("AgentConfig.FailOn is %q; use blocking, major or minor", c.FailOn)
	}
	for i, h := range c.Sandbox.AllowedHosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, " /") {
			return nil, nil, invalid("AgentConfig.Sandbox.AllowedHosts[%d] is %q; name a host (example.com, *.example.com or an IP address)", i, h)
		}
	}
	for i, n := range c.Sandbox.MaskEnv {
		if strings.TrimSpace(n) == "" || strings.ContainsAny(n, "= ") {
			return nil, nil, invalid("AgentConfig.Sandbox.MaskEnv[%d] is %q; name an environment variable", i, n)
		}
	}
	if c.Sources == nil {
		for _, f := range c.Context {
			c.Sources = append(c.Sources, ContextSource{Path: f.Path, Bytes: len(f.Text)})
		}
	}
	models := s.Models
	as := &agentSettings{AgentConfig: c, reviewers: func(exclude string) []string {
		var out []string
		for _, m := range models {
			if m != exclude {
				out = append(out, m)
			}
		}
		return out
	}}
	return s, as, nil
}

// agent runs the phases in order; each returns early on the run's end.
func (r *run) agent(a *AgentResult, as *agentSettings) error {
	if as.Plan != nil {
		a.Plan, a.PlanGiven, a.PlanFrom = as.Plan, true, as.PlanFrom
	} else {
		plan, err := r.agentPlan(a, as)
		if err != nil {
			return err
		}
		a.Plan = plan
		if err := r.reviewPlan(a, as); err != nil {
			return err
		}
	}
	if as.Approve == nil {
		a.Stage = StagePlanned
		return nil
	}
	ap, err := as.Approve(r.ctx, *a.Plan)
	if err != nil {
		if err := r.stopped(PhaseExecute); err != nil {
			return err
		}
		return fmt.Errorf("quorum: asking for approval of the plan: %w", err)
	}
	switch ap.Verdict {
	case ApprovalApproved:
	case ApprovalEdited:
		if ap.Plan == nil || len(ap.Plan.Steps) == 0 {
			return invalid("the edited plan has no steps; approve, reject, or edit it again")
		}
		edited := *ap.Plan
		edited.Author = a.Plan.Author
		a.Plan = &edited
	case ApprovalRejected:
		a.Approval = ApprovalRejected
		a.Stage = StageRejected
		return nil
	default:
		return fmt.Errorf("quorum: the approval verdict %q is not approved, edited or rejected", ap.Verdict)
	}
	a.Approval = ap.Verdict
	if as.Attempts > 1 {
		return r.attempts(a, as)
	}
	return r.execute(a, as)
}
