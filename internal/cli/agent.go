package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/input"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/cli/planfile"
	"github.com/quorum-go/quorum/internal/cli/review"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
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

func (e *env) agentCmd(runF runWrapper) *cobra.Command {
	return cmdutil.NewCommand(e.Factory, &cobra.Command{
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

The report shows each of these, the diff's size, usage, and how to look
at, merge or drop the branch. --sarif FILE writes the final review as
SARIF.
` + runquorum.OutputHelp("AgentResult", agentExits),
		Example: `  $ quorum agent "Add a --verbose flag to the CLI"
  $ quorum agent --yes --approve quorum "Fix the flaky test in router"
  $ quorum agent --solo gpt-5 --executor claude-sonnet-4.5 "Document the config file"
  $ quorum agent --sim --yes "Document how we cut a release"`,
		Args: cmdutil.ExactArgs("a task (quote it; - reads it from stdin)"),
	}, cmdutil.Spec{Quorum: true, Agent: true, Connects: true, Output: true, Progress: true, Timeout: true, Result: quorum.AgentResult{}, Sections: report.AgentSections},
		runF.around(func(inv *cmdutil.Invocation, observe func(quorum.Event)) error {
			return runquorum.Run(inv, agentKind, observe)
		}))
}

// contextBudget bounds what quorum reads of the repository for the plan:
// it goes into every proposal and vote prompt.
const contextBudget = 32 << 10

// agentInput checks, before any model is asked, that the repository can
// take an agent (a clear usage error if not), reads its context and the
// --context files, and settles the gate and the shell mode.
func agentInput(inv *cmdutil.Invocation) (runquorum.Input, error) {
	o := inv.Opts
	task, err := input.Topic(inv, "task")
	if err != nil {
		return runquorum.Input{}, err
	}
	ctx := inv.Cmd.Context()
	if o.MaxRevisions < 0 || o.FixRounds < 0 || o.MaxToolCalls < 1 {
		return runquorum.Input{}, cmdutil.Usagef("--max-revisions and --fix-rounds take 0 or more, --max-tool-calls 1 or more")
	}
	interactive := interactive(inv)
	shell, err := shellMode(o.Approve, interactive)
	if err != nil {
		return runquorum.Input{}, err
	}
	cfg, repo, err := agentConfig(ctx, inv, task, shell, o.WorktreeRoot)
	if err != nil {
		return runquorum.Input{}, err
	}
	if shell == quorum.ShellAuto {
		fmt.Fprintln(inv.ErrOut, "quorum: --approve auto: every shell command the executor asks for in the worktree will run without asking")
	}
	g := &gatekeeper{inv: inv}
	cfg.Solo, cfg.Executor = o.Solo, o.Executor
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
			return quorum.Agent(ctx, b, task, cfg)
		}, report.Agent, func(a *quorum.AgentResult) *quorum.Outcome { return &a.Outcome }),
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

// shellMode settles how shell commands are decided from --approve: ask
// where a person can answer, quorum elsewhere, by default.
func shellMode(approve string, interactive bool) (quorum.ShellMode, error) {
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

// agentConfig is what every agent run of the command starts from, quorum
// agent's and quorum chat's /agent: the repository checked (a usage error
// says what to do when it cannot take an agent), its context read, the
// worktree of task to be made under root (default: the state
// directory's), shell commands decided by shell, findings gated at
// --fail-on (none: no fix rounds).
func agentConfig(ctx context.Context, inv *cmdutil.Invocation, task string, shell quorum.ShellMode, root string) (quorum.AgentConfig, *workspace.Repo, error) {
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
	cfg := quorum.AgentConfig{
		Context: files, Sources: sources,
		Shell: shell, FailOn: quorum.Severity(inv.Settings.FailOn),
		Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			return repo.NewWorktree(ctx, task, workspace.Options{Root: root})
		},
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

// gatekeeper asks the person at the terminal: the plan at the gate, and
// each shell command under --approve ask. Answers are read a line at a
// time from stdin by one goroutine, so that a question honours its
// context (Ctrl-C) while the read waits.
type gatekeeper struct {
	inv   *cmdutil.Invocation
	once  sync.Once
	lines chan string
}

// readLine returns the next line of stdin, or an error once ctx ends or
// stdin does.
func (g *gatekeeper) readLine(ctx context.Context) (string, error) {
	g.once.Do(func() {
		g.lines = make(chan string)
		go func() {
			defer close(g.lines)
			sc := bufio.NewScanner(g.inv.In)
			for sc.Scan() {
				g.lines <- sc.Text()
			}
		}()
	})
	select {
	case <-ctx.Done():
		return "", context.Cause(ctx)
	case line, ok := <-g.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(line), nil
	}
}

// ask shows question (after text, if any) and returns the answer, asking
// again until it is one of choices (first letters count); the progress
// view holds still meanwhile.
func (g *gatekeeper) ask(ctx context.Context, text, question string, choices []string) (string, error) {
	var answer string
	var err error
	g.inv.Interject(func() {
		w := g.inv.ErrOut
		if text != "" {
			fmt.Fprint(w, text)
		}
		for {
			fmt.Fprint(w, question)
			var line string
			if line, err = g.readLine(ctx); err != nil {
				fmt.Fprintln(w)
				return
			}
			line = strings.ToLower(line)
			for _, c := range choices {
				if line != "" && strings.HasPrefix(c, line) {
					answer = c
					return
				}
			}
			fmt.Fprintf(w, "Please answer %s.\n", strings.Join(choices, ", "))
		}
	})
	return answer, err
}

// approve is the gate on a terminal: the plan, then approve, edit or
// reject.
func (g *gatekeeper) approve(ctx context.Context, plan quorum.AgentPlan) (quorum.Approval, error) {
	for {
		var b strings.Builder
		inv := g.inv
		rep, o := report.AgentPlan(plan, nil), report.Options{Simulated: inv.Simulated()}
		var md strings.Builder
		report.Markdown(&md, rep, o)
		_, width := iostreams.TerminalWidth(inv.ErrOut)
		if out, err := report.Terminal(md.String(), width, !inv.NoColor()); err == nil {
			b.WriteString(out)
		} else {
			report.Text(&b, rep, o)
		}
		answer, err := g.ask(ctx, "\n"+b.String()+"\n", "Carry out this plan? [y]es, [e]dit, [n]o: ", []string{"yes", "edit", "no"})
		if err != nil {
			return quorum.Approval{}, fmt.Errorf("no answer at the gate: %w", err)
		}
		switch answer {
		case "yes":
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		case "no":
			return quorum.Approval{Verdict: quorum.ApprovalRejected, Reason: "rejected at the terminal"}, nil
		}
		edited, err := g.edit(ctx, plan)
		if err != nil {
			fmt.Fprintln(inv.ErrOut, "quorum: "+sanitize.Line(err.Error()))
			continue
		}
		plan = edited
		answer, err = g.ask(ctx, "", "Carry out the edited plan? [y]es, [n]o: ", []string{"yes", "no"})
		if err != nil {
			return quorum.Approval{}, fmt.Errorf("no answer at the gate: %w", err)
		}
		if answer == "yes" {
			return quorum.Approval{Verdict: quorum.ApprovalEdited, Plan: &plan}, nil
		}
	}
}

// edit opens the plan, as JSON, in $VISUAL or $EDITOR (vi if neither) and
// reads it back; a plan that does not read, or has no step, is an error
// and the plan stays as it was.
func (g *gatekeeper) edit(ctx context.Context, plan quorum.AgentPlan) (quorum.AgentPlan, error) {
	path, err := planfile.Write(plan)
	if err != nil {
		return plan, err
	}
	defer os.Remove(path)
	editor := g.inv.Getenv("VISUAL")
	if editor == "" {
		editor = g.inv.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	var runErr error
	g.inv.Interject(func() {
		cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "editor", path)
		if in, ok := g.inv.In.(*os.File); ok {
			cmd.Stdin = in
		}
		if out, ok := g.inv.ErrOut.(*os.File); ok {
			cmd.Stdout, cmd.Stderr = out, out
		}
		runErr = cmd.Run()
	})
	if runErr != nil {
		return plan, fmt.Errorf("the editor (%s) failed: %v; the plan is unchanged", editor, runErr)
	}
	edited, err := planfile.Read(path)
	if err != nil {
		return plan, err
	}
	return edited, nil
}

// askShell asks whether the executor may run a shell command: yes, no,
// or always (this command, for the rest of the run).
func (g *gatekeeper) askShell(ctx context.Context, a quorum.Action) (quorum.ActionDecision, error) {
	text := "\nThe executor asks to run:\n  " + sanitize.Exact(sanitize.Line(a.Command)) + "\n"
	if a.Intention != "" {
		text += "to " + sanitize.Exact(sanitize.Line(a.Intention)) + "\n"
	}
	answer, err := g.ask(ctx, text, "Allow? [y]es, [n]o, [a]lways this command: ", []string{"yes", "no", "always"})
	if err != nil {
		return quorum.ActionDecision{}, err
	}
	switch answer {
	case "yes":
		return quorum.ActionDecision{Allow: true, Reason: "allowed at the terminal"}, nil
	case "always":
		return quorum.ActionDecision{Allow: true, Always: true, Reason: "allowed at the terminal, for the rest of the run"}, nil
	}
	return quorum.ActionDecision{Reason: "denied at the terminal"}, nil
}
