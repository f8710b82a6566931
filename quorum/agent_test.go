package quorum

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeWorkspace is a workspace in memory: files by path, commits counted.
// It stands for the git worktree so that Agent's orchestration can be
// tested without git (internal/workspace has its own tests).
type fakeWorkspace struct {
	mu        sync.Mutex
	files     map[string]string // committed and not
	committed map[string]string
	commits   []string
}

func newFakeWorkspace() *fakeWorkspace {
	return &fakeWorkspace{files: map[string]string{"README.md": "# demo\n"}, committed: map[string]string{"README.md": "# demo\n"}}
}

func (w *fakeWorkspace) Dir() string    { return "/ws" }
func (w *fakeWorkspace) Branch() string { return "quorum/agent-test" }
func (w *fakeWorkspace) Base() string   { return "base0" }

func (w *fakeWorkspace) rel(p string) (string, bool) {
	if !path.IsAbs(p) {
		p = path.Join("/ws", p)
	}
	p = path.Clean(p)
	if p == "/ws" {
		return ".", true
	}
	r, ok := strings.CutPrefix(p, "/ws/")
	return r, ok
}
func (w *fakeWorkspace) Contains(p string) bool { _, ok := w.rel(p); return ok }
func (w *fakeWorkspace) Writable(p string) bool {
	r, ok := w.rel(p)
	return ok && r != ".git" && !strings.HasPrefix(r, ".git/")
}

func (w *fakeWorkspace) write(p, text string) {
	r, _ := w.rel(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[r] = text
}

func (w *fakeWorkspace) Commit(ctx context.Context, message string) (string, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if fmt.Sprint(w.files) == fmt.Sprint(w.committed) {
		return "", false, nil
	}
	w.committed = map[string]string{}
	for k, v := range w.files {
		w.committed[k] = v
	}
	w.commits = append(w.commits, message)
	return fmt.Sprintf("c%d", len(w.commits)), true, nil
}

// Diff shows every committed file that differs from README-only base as
// a new file.
func (w *fakeWorkspace) Diff(ctx context.Context) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var names []string
	for k := range w.committed {
		if k != "README.md" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		lines := strings.Split(strings.TrimSuffix(w.committed[n], "\n"), "\n")
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", n, n, n, len(lines))
		for _, l := range lines {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String(), nil
}

// fakeBackend answers every phase of an agent run by its prompt marker.
// Its executor asks the gate about a fixed list of actions each step and
// performs the writes the gate allows, in the workspace.
type fakeBackend struct {
	ws *fakeWorkspace
	// objectRounds is how many plan-review rounds the reviewers object in.
	objectRounds int
	// findingRounds is how many reviews of the branch find a blocking bug.
	findingRounds int
	// shellApprove is each voter's vote on a command.
	shellApprove map[string]bool
	// actions are what the executor asks each step; nil means none.
	actions []Action
	// block, if set, is closed... the executor waits on it in step 2.
	block chan struct{}
	// started is told when the executor starts step 2.
	started chan struct{}

	mu       sync.Mutex
	reviews  int
	inspects int
	opened   []OpenOptions
	prompts  map[Phase][]string
}

func (b *fakeBackend) Open(ctx context.Context, o OpenOptions) (Conversation, error) {
	b.mu.Lock()
	b.opened = append(b.opened, o)
	b.mu.Unlock()
	return &fakeConv{b: b, o: o}, nil
}

type fakeConv struct {
	b    *fakeBackend
	o    OpenOptions
	step int
}

func (c *fakeConv) Close(context.Context) error { return nil }

func planJSON(title string, steps ...string) string {
	type st struct {
		Goal  string   `json:"goal"`
		Files []string `json:"files"`
		Check string   `json:"check"`
	}
	var ss []st
	for i, g := range steps {
		ss = append(ss, st{Goal: g, Files: []string{fmt.Sprintf("step%d.go", i+1)}, Check: "go test ./..."})
	}
	out, _ := json.Marshal(map[string]any{"title": title, "steps": ss, "risks": []string{"none"}})
	return string(out)
}

func (c *fakeConv) Send(ctx context.Context, prompt string, onDelta func(string)) (Reply, error) {
	b := c.b
	phase, _, _ := strings.Cut(strings.TrimPrefix(prompt, "[quorum:"), "]")
	b.mu.Lock()
	if b.prompts == nil {
		b.prompts = map[Phase][]string{}
	}
	b.prompts[Phase(phase)] = append(b.prompts[Phase(phase)], prompt)
	b.mu.Unlock()
	text := ""
	switch Phase(phase) {
	case PhasePropose:
		text = planJSON("plan by "+c.o.Model, "add the flag", "document it")
	case PhaseVote:
		score := 5
		if strings.Contains(prompt, "plan by m1") {
			score = 9
		}
		text = fmt.Sprintf(`{"score": %d, "reasoning": "fine"}`, score)
	case PhasePlanReview:
		b.mu.Lock()
		b.reviews++
		n := b.reviews
		b.mu.Unlock()
		// Two reviewers a round: rounds are reviews 1–2, 3–4, ….
		if (n+1)/2 <= b.objectRounds {
			text = `{"approve": false, "objections": ["add a test step"]}`
		} else {
			text = `{"approve": true, "objections": []}`
		}
	case PhaseRevise:
		text = planJSON("revised plan", "add the flag", "document it", "add a test")
	case PhaseShellVote:
		v := b.shellApprove[c.o.Model]
		text = fmt.Sprintf(`{"approve": %v, "reason": "%s votes %v"}`, v, c.o.Model, v)
	case PhaseInspect:
		b.mu.Lock()
		b.inspects++
		n := b.inspects
		b.mu.Unlock()
		// Each review round asks every reviewer; the first round finds a bug.
		if n <= b.findingRounds*2 {
			text = `{"findings": [{"file": "step1.go", "startLine": 1, "endLine": 1, "severity": "blocking", "category": "bug", "explanation": "the flag is never read", "suggestion": "read it"}]}`
		} else {
			text = `{"findings": []}`
		}
	case PhaseExecute, PhaseFix:
		if c.o.Tools == nil {
			return Reply{}, errors.New("the executor was opened without tools")
		}
		c.step++
		if c.step == 2 && b.started != nil {
			close(b.started)
			<-ctx.Done()
			return Reply{}, ctx.Err()
		}
		for i, a := range b.actions {
			id := fmt.Sprintf("s%d-%d", c.step, i)
			c.o.Tools.OnTool(ToolUse{ID: id, Tool: a.Kind, Arguments: a.Command + strings.Join(a.Paths, ",")})
			d := c.o.Tools.Decide(ctx, a)
			if d.Allow && a.Kind == ActionWrite {
				b.ws.write(a.Paths[0], "package main // step "+fmt.Sprint(c.step)+"\n")
			}
			c.o.Tools.OnTool(ToolUse{ID: id, Done: true, OK: d.Allow, Result: d.Reason})
		}
		file := fmt.Sprintf("step%d.go", c.step)
		if Phase(phase) == PhaseFix {
			file = "step1.go"
		}
		b.ws.write(file, "package main // "+phase+"\n")
		text = "done: wrote " + file
	default:
		return Reply{}, fmt.Errorf("unexpected phase %q", phase)
	}
	if onDelta != nil {
		onDelta(text)
	}
	return Reply{Text: text, Usage: Usage{Calls: 1, InputTokens: 10, OutputTokens: 5}}, nil
}

func agentConfig(b *fakeBackend) AgentConfig {
	return AgentConfig{
		Config:  Config{Models: []string{"m1", "m2", "m3"}},
		Context: []ContextFile{{Path: "README.md", Text: "# demo\n"}},
		Approve: func(ctx context.Context, p AgentPlan) (Approval, error) {
			return Approval{Verdict: ApprovalApproved}, nil
		},
		Workspace: func(context.Context) (Workspace, error) { return b.ws, nil },
	}
}

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
			{Kind: ActionRead, Paths: []string{"/ws/README.md"}},
			{Kind: ActionWrite, Paths: []string{"/ws/extra.go"}},
			{Kind: ActionWrite, Paths: []string{"/etc/passwd"}},
			{Kind: ActionRead, Paths: []string{"/home/user/.ssh/id_rsa"}},
			{Kind: ActionWrite, Paths: []string{"/ws/.git"}},
			{Kind: ActionShell, Command: "ls", Paths: []string{"/ws"}},
			{Kind: ActionShell, Command: "cat /etc/hosts", Paths: []string{"/etc/hosts"}},
			{Kind: ActionURL, URL: "https://example.com/"},
			{Kind: ActionMCP, Tool: "github-search"},
			{Kind: "memory"},
		},
	}
	var kinds sync.Map
	cfg := agentConfig(b)
	cfg.Progress = func(ev Event) { kinds.Store(ev.Kind, true) }
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
	for _, k := range []EventKind{ToolActivity, ActionDecided, PhaseStarted} {
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
	cmd := Action{Kind: ActionShell, Command: "go test ./...", Paths: []string{"/ws"}}
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

// Passing the tool-call limit stops the turn with ErrToolCallLimit; the
// work so far is committed and the result says where.
func TestAgentToolCallLimit(t *testing.T) {
	ws := newFakeWorkspace()
	b := &fakeBackend{ws: ws, actions: slices.Repeat([]Action{{Kind: ActionRead, Paths: []string{"a"}}}, 3)}
	cfg := agentConfig(b)
	cfg.MaxToolCalls = 4
	a, err := Agent(context.Background(), b, "task", cfg)
	if !errors.Is(err, ErrToolCallLimit) {
		t.Fatalf("err %v, want ErrToolCallLimit", err)
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
		actions: []Action{{Kind: ActionShell, Command: "ls", Paths: []string{"/ws"}}}}
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
	if d := g.decide(context.Background(), Action{Kind: ActionShell, Command: "cat /etc/passwd"}); d.Allow {
		t.Fatal("auto mode allowed a command that reads outside the worktree")
	}
	if d := g.decide(context.Background(), Action{Kind: ActionShell, Command: "cat README.md"}); !d.Allow || d.By != ByAuto {
		t.Fatalf("auto mode: %+v", d)
	}
}
