package quorum_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// BenchmarkRealCLIAgentSandbox is the sandbox's cost for a whole agent
// run through the real Copilot CLI, offline: quorum.Agent with two models
// (plans, votes, the plan's review, an executor that creates a file, runs
// three shell commands and edits the file, the final review), once
// confined as by default and once with Sandbox.Unconfined, alternating in
// each iteration on one CLI, the work scripted identically. It reports
// each run's time and their ratio, and the time of the host check a
// sandboxed run starts with (included in its time); nothing asserts a
// time.
func BenchmarkRealCLIAgentSandbox(b *testing.B) {
	bin, err := clitest.Binary()
	if err != nil {
		b.Fatalf("this benchmark needs the real Copilot CLI: %v", err)
	}
	sb := clitest.NewSandbox(b)
	api := sb.StartModelAPI(b, modelapi.Config{Models: benchAgentModels()})
	ctx := context.Background()
	c := startRealCLI(ctx, b, sb, bin, clitest.OfflineEnv(b, api.URL()), nil)
	// Outside /tmp, as a user's repository and quorum's worktrees are.
	base, err := os.MkdirTemp("/var/tmp", "quorum-bench-agent-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(base)
	repo := filepath.Join(base, "repo")
	os.Mkdir(repo, 0o755)
	gittest.Isolate(b)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "T"}, {"config", "user.email", "t@localhost"}} {
		gittest.Git(b, repo, args...)
	}
	gittest.Write(b, repo, map[string]string{"README.md": "# demo\n"})
	gittest.Git(b, repo, "add", "-A")
	gittest.Git(b, repo, "commit", "-qm", "initial")
	r, err := workspace.Open(ctx, repo)
	if err != nil {
		b.Fatal(err)
	}
	runs := 0
	run := func(unconfined bool) time.Duration {
		runs++
		var wt *workspace.Worktree
		start := time.Now()
		a, err := quorum.Agent(ctx, quorum.Copilot(c), "Add a greeting", quorum.AgentConfig{
			Config:  quorum.Config{Models: []string{"planner", "critic"}},
			Shell:   quorum.ShellAuto,
			Sandbox: quorum.SandboxPolicy{Unconfined: unconfined},
			Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
				return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
			},
			Workspace: func(ctx context.Context) (quorum.Workspace, error) {
				w, err := r.NewWorktree(ctx, "Add a greeting", workspace.Options{Root: filepath.Join(base, "worktrees"), Suffix: fmt.Sprint(runs)})
				wt = w
				return w, err
			},
		})
		el := time.Since(start)
		if err != nil {
			b.Fatalf("Agent (unconfined %v): %v", unconfined, err)
		}
		// The same work was done either way: one committed step with its
		// five tool calls, all of them carried out, and the final review.
		if len(a.Steps) != 1 || a.Steps[0].Commit == "" || len(a.Steps[0].Tools) != 5 || len(a.Reviews) != 1 ||
			(a.Sandbox != nil && a.Sandbox.Enabled) == unconfined {
			b.Fatalf("unconfined %v: steps %+v, reviews %d, sandbox %+v; want one committed step of five tool calls, reviewed", unconfined, a.Steps, len(a.Reviews), a.Sandbox)
		}
		for _, u := range a.Steps[0].Tools {
			if !u.Done || !u.OK {
				b.Fatalf("unconfined %v: tool call %+v failed", unconfined, u)
			}
		}
		if got := gittest.Git(b, repo, "show", wt.Branch()+":hello.txt"); got != "hello, world" {
			b.Fatalf("hello.txt on the branch is %q", got)
		}
		if err := r.RemoveWorktree(ctx, wt.Dir(), wt.Branch()); err != nil {
			b.Fatal(err)
		}
		return el
	}
	if !testing.Short() {
		// The first run of each kind warms the CLI (and sets the sandbox up).
		run(false)
		run(true)
	}
	// The host check a sandboxed run starts with (sandbox.getHostSupport),
	// timed on its own too: part of the sandboxed run's cost.
	check := func() time.Duration {
		start := time.Now()
		if err := quorum.CheckSandbox(ctx, quorum.Copilot(c)); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var confined, unconfined, checks time.Duration
	b.ResetTimer()
	for b.Loop() {
		confined += run(false)
		unconfined += run(true)
		checks += check()
	}
	n := float64(b.N)
	b.ReportMetric(float64(confined.Microseconds())/1000/n, "ms/sandboxed-run")
	b.ReportMetric(float64(unconfined.Microseconds())/1000/n, "ms/unconfined-run")
	b.ReportMetric(float64(confined)/float64(unconfined), "sandboxed/unconfined")
	b.ReportMetric(float64(checks.Microseconds())/1000/n, "ms/host-check")
}

// benchAgentModels script the benchmark's run: the planner plans and
// executes, the critic reviews.
func benchAgentModels() map[string]modelapi.Responder {
	plan := `{"title":"Greet","steps":[{"goal":"create hello.txt with a greeting","files":["hello.txt"],"check":"cat hello.txt"}],"risks":["none"]}`
	executor := func(req modelapi.Request) modelapi.Reply {
		m := worktreeRE.FindStringSubmatch(req.UserText)
		if m == nil {
			return modelapi.Text("no worktree in the prompt")
		}
		hello := filepath.Join(m[1], "hello.txt")
		calls := []modelapi.Call{
			{Name: "create", Arguments: argsJSON(map[string]string{"path": hello, "file_text": "hello\n"})},
			{Name: "bash", Arguments: argsJSON(map[string]string{"command": "ls -la", "description": "list the files"})},
			{Name: "bash", Arguments: argsJSON(map[string]string{"command": "cat hello.txt", "description": "show the greeting"})},
			{Name: "edit", Arguments: argsJSON(map[string]string{"path": hello, "old_str": "hello", "new_str": "hello, world"})},
			{Name: "bash", Arguments: argsJSON(map[string]string{"command": "wc -c hello.txt && git status --short", "description": "check the change"})},
		}
		if n := sinceUser(req); n < len(calls) {
			return modelapi.ToolCalls(calls[n])
		}
		return modelapi.Text("Step done: hello.txt says hello, world.")
	}
	return agentModels(plan, executor, nil, nil)
}
