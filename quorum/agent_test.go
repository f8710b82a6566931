package quorum

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
)

// A whole run: the ensemble picks m1's plan, the reviewers object once
// and the author revises, the plan is approved and carried out step by
// step, every action decided as the gate's rules say and recorded, the
// review finds a blocking bug, the fix round mends it, the re-review
// passes.
func TestAgentWholeRun(t *testing.T) {
	ws := newFakeWorkspace()
	b := &fakeBackend{ws: ws, objectRounds: 1, findingRounds: 1,
		shellApprove: map[string]bool{"m2": true, "m3": true},
		actions: []Action{
			{Kind: copilot.PermissionKindRead, Paths: []string{"/ws/README.md"}},
			{Kind: copilot.PermissionKindWrite, Paths: []string{"/ws/extra.go"}},
			{Kind: copilot.PermissionKindWrite, Paths: []string{"/etc/passwd"}},
			{Kind: copilot.PermissionKindRead, Paths: []string{"/home/user/.ssh/id_rsa"}},
			{Kind: copilot.PermissionKindWrite, Paths: []string{"/ws/.git"}},
			{Kind: copilot.PermissionKindShell, Command: "ls", Paths: []string{"/ws"}},
			{Kind: copilot.PermissionKindShell, Command: "cat /etc/hosts", Paths: []string{"/etc/hosts"}},
			{Kind: copilot.PermissionKindURL, URL: "https://example.com/"},
			{Kind: copilot.PermissionKindMCP, Tool: "github-search"},
			{Kind: "memory"},
		},
	}
	var kinds sync.Map
	cfg := agentConfig(b)
	cfg.Progress = func(ev Progress) { kinds.Store(ev.Kind, true) }
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Stage != StageReviewed || a.Approval != ApprovalApproved {
		t.Fatalf("stage %q, approval %q", a.Stage, a.Approval)
	}
	if a.Winner == "" || a.Plan.Author != "m1" || a.Executor != "m1" {
		t.Fatalf("winner %q, author %q, executor %q; want m1's plan, carried out by m1", a.Winner, a.Plan.Author, a.Executor)
	}
	if len(a.PlanReviews) != 2 || !a.PlanReviews[0].Revised || a.PlanReviews[1].Revised || len(a.Objections) != 0 {
		t.Fatalf("plan reviews %+v, objections %v; want one objecting round, a revision, an approving round", a.PlanReviews, a.Objections)
	}
	if len(a.Plan.Steps) != 3 || a.Plan.Steps[2].Goal != "add a test" || a.Plan.Steps[0].Check != "go test ./..." {
		t.Fatalf("the plan carried out is %+v; want the revision", a.Plan)
	}
	if len(a.Steps) != 4 || a.Steps[3].Round != "fix-1" {
		t.Fatalf("steps %+v; want three plan steps and one fix turn", a.Steps)
	}
	for _, st := range a.Steps {
		if st.Commit == "" || len(st.Tools) != len(b.actions) || !st.Tools[0].Done || st.Tools[0].Tool == "" {
			t.Fatalf("step %+v: want a commit and every tool call recorded, finished", st)
		}
	}
	if len(ws.commits) != 4 {
		t.Fatalf("commits %v; want one a turn", ws.commits)
	}
	if ws.files["/etc/passwd"] != "" || ws.files["../etc/passwd"] != "" {
		t.Fatal("a write outside the workspace was performed")
	}
	if len(a.Reviews) != 2 || a.Reviews[0].Round != "final" || len(a.Reviews[0].Findings) != 1 || len(a.Reviews[1].Findings) != 0 || len(a.Findings) != 0 {
		t.Fatalf("reviews %+v, findings left %v", a.Reviews, a.Findings)
	}
	for _, r := range a.Reviews {
		for _, in := range r.Inspections {
			if in.Model == "m1" {
				t.Fatal("the executor reviewed its own change")
			}
		}
	}
	// Every action, every turn, decided by the rules.
	want := []struct {
		allow bool
		by    string
	}{{true, ByPolicy}, {true, ByPolicy}, {false, ByPolicy}, {false, ByPolicy}, {false, ByPolicy}, {true, ByQuorum}, {false, ByPolicy}, {false, ByPolicy}, {false, ByPolicy}, {false, ByPolicy}}
	if len(a.Actions) != 4*len(want) {
		t.Fatalf("%d actions recorded, want %d", len(a.Actions), 4*len(want))
	}
	for i, rec := range a.Actions {
		w := want[i%len(want)]
		if rec.Allow != w.allow || rec.By != w.by || rec.Reason == "" {
			t.Errorf("action %d (%s %v %s): allow %v by %s (%s); want allow %v by %s", i, rec.Action.Kind, rec.Action.Paths, rec.Action.Command, rec.Allow, rec.By, rec.Reason, w.allow, w.by)
		}
		if rec.By == ByQuorum && len(rec.Votes) != 2 {
			t.Errorf("a quorum decision with votes %+v; want m2's and m3's", rec.Votes)
		}
	}
	if a.Actions[0].Round != "execute" || a.Actions[0].Step != 1 || a.Actions[len(a.Actions)-1].Round != "fix-1" {
		t.Errorf("actions are not tagged with their turn: first %+v, last %+v", a.Actions[0], a.Actions[len(a.Actions)-1])
	}
	if a.Change == nil || a.Change.Files == nil {
		t.Fatalf("change %+v", a.Change)
	}
	for _, k := range []ProgressKind{ToolActivity, ActionDecided, PhaseStarted} {
		if _, ok := kinds.Load(k); !ok {
			t.Errorf("no %s event", k)
		}
	}
	if a.Workspace == nil || a.Workspace.Head == "" || a.Workspace.Branch != "quorum/agent-test" {
		t.Fatalf("workspace %+v", a.Workspace)
	}
	// The context reached the planners, quoted.
	if p := b.prompts[PhasePropose][0]; !strings.Contains(p, "Context 1: README.md") || !strings.Contains(p, "<<<BEGIN CONTEXT 1") {
		t.Fatalf("the propose prompt lacks the context:\n%s", p)
	}
}

// Without Approve, the run stops after planning: no workspace is made, no
// executor opened.
func TestAgentStopsAtTheGateWithoutConsent(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	cfg := agentConfig(b)
	cfg.Approve = nil
	cfg.Workspace = func(context.Context) (Workspace, error) { t.Fatal("a workspace was made"); return nil, nil }
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Stage != StagePlanned || a.Plan == nil || a.Workspace != nil || len(a.Steps) != 0 {
		t.Fatalf("stage %q, plan %v, workspace %v, steps %d", a.Stage, a.Plan, a.Workspace, len(a.Steps))
	}
	for _, o := range b.opened {
		if o.Tools != nil {
			t.Fatal("an executor was opened")
		}
	}
}

// A rejected plan is not carried out.
func TestAgentRejected(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	cfg := agentConfig(b)
	cfg.Approve = func(context.Context, AgentPlan) (Approval, error) {
		return Approval{Verdict: ApprovalRejected}, nil
	}
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil || a.Stage != StageRejected || a.Workspace != nil {
		t.Fatalf("stage %q, workspace %v, err %v", a.Stage, a.Workspace, err)
	}
}

// An edited plan is the one carried out, under its author's name.
func TestAgentEditedPlan(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	cfg := agentConfig(b)
	cfg.Solo = "m2"
	cfg.Approve = func(_ context.Context, p AgentPlan) (Approval, error) {
		p.Steps = p.Steps[:1]
		p.Steps[0].Goal = "only this"
		return Approval{Verdict: ApprovalEdited, Plan: &p}, nil
	}
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Proposals) != 1 || len(a.Votes) != 0 || a.Plan.Author != "m2" || a.Executor != "m2" {
		t.Fatalf("solo: proposals %d, votes %d, author %q, executor %q", len(a.Proposals), len(a.Votes), a.Plan.Author, a.Executor)
	}
	if len(a.Steps) != 1 || a.Steps[0].Goal != "only this" || a.Approval != ApprovalEdited {
		t.Fatalf("steps %+v, approval %q", a.Steps, a.Approval)
	}
}

// Each shell mode decides as documented; ask remembers "always".
func TestAgentShellModes(t *testing.T) {
	cmd := Action{Kind: copilot.PermissionKindShell, Command: "go test ./...", Paths: []string{"/ws"}}
	for _, tc := range []struct {
		mode    ShellMode
		votes   map[string]bool
		allow   bool
		by      string
		asked   int
		answers []ActionDecision
	}{
		{mode: ShellNever, allow: false, by: ByNever},
		{mode: ShellAuto, allow: true, by: ByAuto},
		{mode: ShellQuorum, votes: map[string]bool{"m2": true, "m3": false}, allow: false, by: ByQuorum},
		{mode: ShellQuorum, votes: map[string]bool{"m2": false, "m3": false}, allow: false, by: ByQuorum},
		{mode: ShellAsk, allow: true, by: ByUser, asked: 1, answers: []ActionDecision{{Allow: true, Always: true, Reason: "yes, always"}}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			b := &fakeBackend{ws: newFakeWorkspace(), shellApprove: tc.votes, actions: []Action{cmd}}
			cfg := agentConfig(b)
			cfg.Shell = tc.mode
			asked := 0
			cfg.AskShell = func(_ context.Context, a Action) (ActionDecision, error) {
				asked++
				return tc.answers[asked-1], nil
			}
			a, err := Agent(context.Background(), b, "task", cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Actions) < 2 {
				t.Fatalf("%d actions", len(a.Actions))
			}
			for _, rec := range a.Actions {
				if rec.Allow != tc.allow || rec.By != tc.by {
					t.Fatalf("%+v: want allow %v by %s", rec, tc.allow, tc.by)
				}
			}
			if asked != tc.asked {
				t.Fatalf("asked %d times, want %d (always is remembered)", asked, tc.asked)
			}
		})
	}
}

// Passing the tool-call limit stops the turn with an error wrapping copilot.ErrToolLimit; the
// work so far is committed and the result says where.
func TestAgentToolCallLimit(t *testing.T) {
	ws := newFakeWorkspace()
	b := &fakeBackend{ws: ws, actions: slices.Repeat([]Action{{Kind: copilot.PermissionKindRead, Paths: []string{"a"}}}, 3)}
	cfg := agentConfig(b)
	cfg.MaxToolCalls = 4
	a, err := Agent(context.Background(), b, "task", cfg)
	if !errors.Is(err, copilot.ErrToolLimit) {
		t.Fatalf("err %v, want copilot.ErrToolLimit", err)
	}
	if a.Workspace == nil || len(ws.commits) == 0 || a.Stage != StageExecuted {
		t.Fatalf("workspace %+v, commits %v, stage %q", a.Workspace, ws.commits, a.Stage)
	}
}

// Cancelling during execution stops the turn; the steps done are kept,
// committed, and the run's error says it was stopped.
func TestAgentCancelledDuringExecution(t *testing.T) {
	ws := newFakeWorkspace()
	b := &fakeBackend{ws: ws, started: make(chan struct{})}
	cfg := agentConfig(b)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-b.started; cancel() }()
	a, err := Agent(ctx, b, "task", cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want it to wrap context.Canceled", err)
	}
	if len(a.Steps) != 2 || a.Steps[0].Commit == "" || a.Steps[1].Error == "" || a.Workspace.Head == "" {
		t.Fatalf("steps %+v, workspace %+v", a.Steps, a.Workspace)
	}
	if ws.committed["step1.go"] == "" {
		t.Fatal("step 1's work was not committed")
	}
}

// Bad configuration is refused before any model is asked.
func TestAgentConfigRefused(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	for name, mut := range map[string]func(*AgentConfig){
		"shell mode":      func(c *AgentConfig) { c.Shell = "sometimes" },
		"ask without fn":  func(c *AgentConfig) { c.Shell = ShellAsk; c.AskShell = nil },
		"no workspace":    func(c *AgentConfig) { c.Workspace = nil },
		"negative limit":  func(c *AgentConfig) { c.MaxToolCalls = -1 },
		"unknown fail-on": func(c *AgentConfig) { c.FailOn = "huge" },
	} {
		cfg := agentConfig(b)
		mut(&cfg)
		if _, err := Agent(context.Background(), b, "task", cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err %v, want ErrInvalidConfig", name, err)
		}
	}
	if len(b.opened) != 0 {
		t.Fatalf("%d sessions opened for refused configurations", len(b.opened))
	}
}

// With one session slot, the executor's votes and the review still run:
// the executor holds no slot while it waits for them.
func TestAgentOneSessionSlot(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace(), shellApprove: map[string]bool{"m2": true, "m3": true},
		actions: []Action{{Kind: copilot.PermissionKindShell, Command: "ls", Paths: []string{"/ws"}}}}
	cfg := agentConfig(b)
	cfg.MaxConcurrency = 1
	cfg.PhaseTimeout = time.Minute // a hang guard: a wait for a slot would run into it
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Actions[0].Allow || a.Stage != StageReviewed {
		t.Fatalf("first action %+v, stage %q", a.Actions[0], a.Stage)
	}
}

// A shell command that names a path outside the worktree is denied by
// the gate whatever the shell mode, though the provider listed no paths.
func TestCommandPaths(t *testing.T) {
	for cmd, want := range map[string]string{
		"ls":                         "",
		"go test ./...":              "",
		"cat /etc/passwd":            "/etc/passwd",
		"rm -rf ~/src":               "/~/src",
		"cd .. && ls":                "..",
		"cat ../secret":              "../secret",
		`python -c "open('/etc/x')"`: "/etc/x",
		"echo hi >/tmp/out":          "/tmp/out",
		"FOO=/opt/bar make":          "/opt/bar",
		"git diff HEAD~1":            "",
		"grep -r foo internal/..":    "internal/..",
	} {
		got := strings.Join(commandPaths(cmd), " ")
		if got != want {
			t.Errorf("commandPaths(%q) = %q, want %q", cmd, got, want)
		}
	}
	ws := newFakeWorkspace()
	g := &gate{ws: ws, mode: ShellAuto}
	if d := g.decide(context.Background(), Action{Kind: copilot.PermissionKindShell, Command: "cat /etc/passwd"}); d.Allow {
		t.Fatal("auto mode allowed a command that reads outside the worktree")
	}
	if d := g.decide(context.Background(), Action{Kind: copilot.PermissionKindShell, Command: "cat README.md"}); !d.Allow || d.By != ByAuto {
		t.Fatalf("auto mode: %+v", d)
	}
}
