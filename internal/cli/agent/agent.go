// Package agent is quorum agent: the models plan a change together, review
// the plan, one carries it out in a git worktree through an action gate,
// and the result is reviewed. Its command is built once per run and used
// by one goroutine; the gate reads the person's answers on a goroutine of
// its own, holding the progress view still (Invocation.Interject).
package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/cli/review"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// agentExits are agent's exit codes.
const agentExits = `Exit codes: 0 done, and no finding of the final review at or above
--fail-on; also 0 when the run stopped at the gate (status "planned" off a
terminal without --yes, or "rejected"); 1 the run failed, or findings at or
above --fail-on remain (listed on stderr); 2 usage error (not a git
repository, a detached HEAD, a bare repository, a merge or rebase under
way, an unknown flag); 3 degraded (some models dropped out); 130
interrupted (Ctrl-C), 143 terminated (SIGTERM): the turn is aborted, the
worktree and the branch keep the work so far, and the report says where.`

// AgentOptions are what quorum agent runs with: its invocation (who plans
// and who executes, the rounds and limits, consent and how shell commands
// are decided, the worktree root, the output).
type AgentOptions struct {
	*cmdutil.Invocation
	Flags
}

// NewCmdAgent is quorum agent; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's, which may call
// Run with an observer).
func NewCmdAgent(f *cmdutil.Factory, runF func(*AgentOptions) error) *cobra.Command {
	opts := &AgentOptions{}
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "agent <task>",
		Short: "Plan a change with several models, review the plan, carry it out in a git worktree, review the result",
		Long: `The models plan the task together and one of them carries the plan out, in a
git worktree of a new branch: your working tree, index and HEAD are never
touched, and uncommitted changes stay where they are.

 1. Context: the models read what a newcomer would (README, CONTRIBUTING,
    AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, the build files,
    the file tree, git log -5) at HEAD, and the --context files.
 2. Plan: every model proposes a plan of steps (goal, files, check) and the
    others vote; --solo MODEL plans alone.
 3. Plan review: the other models approve the plan or ask for changes; its
    author revises it, at most --max-revisions rounds.
 4. The gate: on a terminal you approve the plan, edit it in $EDITOR, or
    reject it; --yes approves. Off a terminal without --yes, quorum agent
    stops here, prints the plan and exits 0 with status "planned".
    --plan FILE carries out a plan saved before (quorum agent -o json …
    > FILE, or a plan file as the gate's edit writes it) as it is: steps
    2 and 3 are skipped, no model plans, and the gate is as usual. The
    task may be left out: the saved run's own is carried out.
 5. Execution: the executor (the plan's author, or --executor) works in a
    worktree of the branch quorum/agent-<time>-<slug>, outside your tree,
    with the Copilot CLI's own tools, one turn per step, each step
    committed on the branch.
 6. Every permission the executor asks for is decided and recorded: reads
    and writes inside the worktree are allowed; anything outside it, URLs
    (unless --allow-url), MCP, memory and other kinds are denied; shell
    commands go by --approve: ask (you decide: y, n, or a for always this
    command; the default on a terminal), quorum (the other models vote,
    the majority decides, a tie denies; the default elsewhere), auto or
    never. The model is told why a request was denied, and goes on.
 7. The other models review the branch's diff; findings at or above
    --fail-on get --fix-rounds rounds of fixing and a re-review.
 8. With --attempts N (or --executors m1,m2,…), N executors carry the plan
    out at the same time, each on a branch of its own (…-a, -b, …), each
    through the gate (a question says which attempt asks) and reviewed;
    then every model judges the attempts, knowing them only by label, and
    the winner's branch is the result. --keep winner removes the others.

The report shows each of these, the diff's size, usage, and how to look
at, merge or drop the branch. --sarif FILE writes the final review as
SARIF.
` + runquorum.OutputHelp("AgentResult", agentExits),
		Example: `  $ quorum agent "Add a --verbose flag to the CLI"
  $ quorum agent --yes --approve quorum "Fix the flaky test in router"
  $ quorum agent --solo gpt-5 --executor claude-sonnet-4.5 "Document the config file"
  $ quorum agent --sim --yes "Document how we cut a release"
  $ quorum agent -o json "Add a --verbose flag" > plan.json   # off a terminal: stops at the plan
  $ quorum agent --yes --plan plan.json                        # carries that plan out, no planning`,
		Args: agentArgs(&opts.Flags),
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Models()
		b.AgentContext()
		opts.Flags.declare(b.FS)
		b.PhaseTimeout()
		b.Timeout()
		b.Sessions()
		b.Premium(true)
		b.Output()
		b.Show()
		b.Findings()
		b.Progress()
		b.Connects()
	}, Result: quorum.AgentResult{}, Sections: report.AgentSections},
		func(inv *cmdutil.Invocation) error {
			opts.Invocation = inv
			if runF != nil {
				return runF(opts)
			}
			return Run(opts, nil)
		})
}

// Run runs the agent. observe, when not nil, sees every quorum event
// after the progress view; the command passes nil.
func Run(opts *AgentOptions, observe func(quorum.Progress)) error {
	verb := "planning"
	if opts.PlanFile != "" {
		verb = "carrying out a saved plan for"
	}
	kind := runquorum.Kind{Noun: "agent run", Verb: verb,
		Phases: []quorum.Phase{quorum.PhasePlanReview, quorum.PhaseRevise, quorum.PhaseExecute, quorum.PhaseShellVote, quorum.PhaseFix},
		Input:  func(*cmdutil.Invocation) (runquorum.Input, error) { return agentInput(opts) }}
	return runquorum.Run(opts.Invocation, kind, observe)
}

// contextBudget bounds what quorum reads of the repository for the plan:
// it goes into every proposal and vote prompt.
const contextBudget = 32 << 10

// agentInput checks, before any model is asked, that the repository can
// take an agent (a clear usage error if not), reads its context and the
// --context files, and settles the gate and the shell mode.
func agentInput(opts *AgentOptions) (runquorum.Input, error) {
	inv, o := opts.Invocation, &opts.Flags
	task, given, from, err := taskAndPlan(inv, o)
	if err != nil {
		return runquorum.Input{}, err
	}
	ctx := inv.Cmd.Context()
	if o.MaxRevisions < 0 || o.FixRounds < 0 || o.MaxToolCalls < 1 {
		return runquorum.Input{}, cmdutil.Usagef("--max-revisions and --fix-rounds take 0 or more, --max-tool-calls 1 or more")
	}
	interactive := interactive(inv)
	shell, err := ShellMode(o.Approve, interactive)
	if err != nil {
		return runquorum.Input{}, err
	}
	cfg, repo, err := Config(ctx, inv, task, shell, o.WorktreeRoot, o.Sandbox.Policy())
	if err != nil {
		return runquorum.Input{}, err
	}
	if shell == quorum.ShellAuto {
		fmt.Fprintln(inv.ErrOut, "quorum: --approve auto: every shell command the executor asks for in the worktree will run without asking")
	}
	if o.Sandbox.NoSandbox {
		fmt.Fprintln(inv.ErrOut, "quorum: warning: "+NoSandboxWarning)
	}
	g := &gatekeeper{inv: inv}
	cfg.Plan, cfg.PlanFrom = given, from
	cfg.Solo, cfg.Executor = o.Solo, o.Executor
	if err := attemptsFlags(o, &cfg); err != nil {
		return runquorum.Input{}, err
	}
	cfg.MaxRevisions, cfg.MaxToolCalls = o.MaxRevisions, o.MaxToolCalls
	cfg.AllowURL = o.AllowURL
	if o.MaxRevisions == 0 {
		cfg.MaxRevisions = -1
	}
	if cfg.FailOn != "" { // else no fix rounds: nothing needs a fix
		cfg.FixRounds = o.FixRounds
		if o.FixRounds == 0 {
			cfg.FixRounds = -1
		}
	}
	switch {
	case o.Yes:
		cfg.Approve = func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved, Reason: "--yes"}, nil
		}
	case interactive:
		cfg.Approve = g.approve
	}
	if shell == quorum.ShellAsk {
		cfg.AskShell = g.askShell
	}
	failOn := inv.Settings.FailOn
	return runquorum.Input{
		About: "a change in " + repo.Top + " (" + repo.Branch + ")",
		Run: runquorum.Strategy(func(ctx context.Context, b quorum.Backend, qc quorum.Config) (*quorum.AgentResult, error) {
			cfg.Config = qc
			a, err := quorum.Agent(ctx, b, task, cfg)
			if a != nil && err == nil && o.Keep == KeepWinner {
				keepWinner(ctx, inv, repo, a)
			}
			return a, err
		}, report.Agent, func(a *quorum.AgentResult) *quorum.Outcome { return &a.Outcome }),
		Estimate: func(qc quorum.Config) (quorum.Estimate, error) {
			c := cfg
			c.Config = qc
			return quorum.EstimateAgent(c)
		},
		Status: func(result any) string {
			switch result.(*quorum.AgentResult).Stage {
			case quorum.StagePlanned:
				return cmdutil.StatusPlanned
			case quorum.StageRejected:
				return cmdutil.StatusRejected
			}
			return ""
		},
		After: func(result any, complete bool) error {
			a := result.(*quorum.AgentResult)
			var last *quorum.ReviewResult
			if n := len(a.Reviews); n > 0 {
				rv := a.Reviews[n-1]
				last = &quorum.ReviewResult{Change: rv.Change, Inspections: rv.Inspections, Findings: rv.Findings, Models: a.Models}
			}
			if err := runquorum.WriteSARIF(inv, last, complete && last != nil); err != nil {
				return err
			}
			if !complete {
				return nil
			}
			return runquorum.Gate(a.Findings, failOn)
		},
	}, nil
}

// NoSandboxWarning is what --no-sandbox is warned about, on the terminal
// (quorum agent's stderr, quorum chat's screen); the report and the JSON
// result record it too (AgentResult.Sandbox.Unconfined).
const NoSandboxWarning = "--no-sandbox: the executor's commands run unconfined, with your full rights: every file you can write, the network, your environment and its tokens."

// ShellMode settles how shell commands are decided from --approve: ask
// where a person can answer, quorum elsewhere, by default.
func ShellMode(approve string, interactive bool) (quorum.ShellMode, error) {
	shell := quorum.ShellMode(approve)
	switch shell {
	case "":
		shell = quorum.ShellQuorum
		if interactive {
			shell = quorum.ShellAsk
		}
	case quorum.ShellAsk:
		if !interactive {
			return "", cmdutil.Usagef("--approve ask needs a terminal to ask on; off a terminal use --approve quorum, auto or never")
		}
	case quorum.ShellQuorum, quorum.ShellAuto, quorum.ShellNever:
	default:
		return "", cmdutil.Usagef("--approve takes ask, quorum, auto or never, not %q", approve)
	}
	return shell, nil
}

// Config is what every agent run of the command starts from, quorum
// agent's and quorum chat's /agent: the repository checked (a usage error
// says what to do when it cannot take an agent), its context read, the
// worktree of task to be made under root (default: the state
// directory's), the executor confined by sandbox, shell commands decided
// by shell, findings gated at
// --fail-on (none: no fix rounds).
func Config(ctx context.Context, inv *cmdutil.Invocation, task string, shell quorum.ShellMode, root string, sandbox quorum.SandboxPolicy) (quorum.AgentConfig, *workspace.Repo, error) {
	repo, err := workspace.Open(ctx, inv.Dir)
	if err != nil {
		if errors.Is(err, workspace.ErrGitMissing) || ctx.Err() != nil {
			return quorum.AgentConfig{}, nil, err
		}
		return quorum.AgentConfig{}, nil, cmdutil.Usagef("%s", strings.TrimPrefix(err.Error(), "workspace: "))
	}
	files, sources, err := agentContext(ctx, inv, repo)
	if err != nil {
		return quorum.AgentConfig{}, nil, err
	}
	if root == "" {
		state, err := inv.StateDir()
		if err != nil {
			return quorum.AgentConfig{}, nil, fmt.Errorf("%w, or give --worktree-root", err)
		}
		root = filepath.Join(state, "worktrees")
	}
	wt := &worktrees{repo: repo, task: task, root: root}
	cfg := quorum.AgentConfig{
		Sandbox: sandbox,
		Context: files, Sources: sources,
		Shell: shell, FailOn: quorum.Severity(inv.Settings.FailOn),
		Workspace: wt.make,
	}
	if inv.Settings.FailOn == "none" {
		cfg.FailOn, cfg.FixRounds = "", -1
	}
	return cfg, repo, nil
}

// agentContext reads what the models get before planning: the
// repository's newcomer files at HEAD, within contextBudget, then the
// --context files, whole.
func agentContext(ctx context.Context, inv *cmdutil.Invocation, repo *workspace.Repo) ([]quorum.ContextFile, []quorum.ContextSource, error) {
	got, err := repo.Gather(ctx, contextBudget)
	if err != nil {
		return nil, nil, err
	}
	var files []quorum.ContextFile
	var sources []quorum.ContextSource
	for _, s := range got {
		files = append(files, quorum.ContextFile{Path: s.Path, Text: s.Text})
		sources = append(sources, quorum.ContextSource{Path: s.Path, Bytes: len(s.Text), Truncated: s.Truncated})
	}
	total := 0
	for _, p := range inv.Opts.Context {
		text, err := review.ReadFile(p, "the context file")
		if err != nil {
			return nil, nil, err
		}
		if total += len(text); total > quorum.MaxChangeBytes {
			return nil, nil, cmdutil.Usagef("the --context files are more than %d bytes (1 MiB) together; leave some out", quorum.MaxChangeBytes)
		}
		files = append(files, quorum.ContextFile{Path: p, Text: text})
		sources = append(sources, quorum.ContextSource{Path: p, Bytes: len(text)})
	}
	return files, sources, nil
}

// interactive reports whether a person can be asked: stdin and stderr are
// both terminals.
func interactive(inv *cmdutil.Invocation) bool {
	tty, _ := iostreams.TerminalWidth(inv.ErrOut)
	return tty && iostreams.IsTerminal(inv.In) && inv.Getenv("TERM") != "dumb"
}
