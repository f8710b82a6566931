package quorum

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/quorum-go/quorum/copilot"
)

// The fakes agent_test.go runs Agent on: a workspace in memory, and a
// backend whose models plan, review, vote and carry out steps as each test
// scripts them.

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
			if d.Allow && a.Kind == copilot.PermissionKindWrite {
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
