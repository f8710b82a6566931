package quorum_test

import (
	"context"
	"encoding/json"

	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// realGuard bounds a real-CLI agent run, which starts a CLI and makes a
// dozen model calls; it is a hang guard, never a timing assertion.
const realGuard = 3 * time.Minute

// worktreeRE finds the worktree's folder in the executor's first prompt.
var worktreeRE = regexp.MustCompile(`in the git worktree (\S+) \(branch`)

// sinceUser counts the assistant messages after the last user message: how
// far the executor's scripted turn has gone.
func sinceUser(req modelapi.Request) int {
	n := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
		if req.Messages[i].Role == "assistant" {
			n++
		}
	}
	return n
}

func argsJSON(v map[string]string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The whole agent flow through the real Copilot CLI, offline, with its own
// built-in tools acting for real in a git worktree: the executor creates a
// file, edits it, runs a command (decided by the other model's vote), and
// tries to read a file outside the worktree, write one outside it and
// fetch a URL. The file lands on the agent's branch; the user's repository
// (with an uncommitted change) is byte for byte as before; the outside
// file is never written, the secret outside never reaches the model API;
// each decision is recorded; the final review runs.
func TestRealCLIAgent(t *testing.T) {
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n", "go.mod": "module demo\n"})
	gittest.Write(t, repo, map[string]string{"README.md": "# demo, edited and not committed\n"})
	outside := t.TempDir()
	const secret = "TOP-SECRET-7f3a9"
	secretPath := filepath.Join(outside, "secret.txt")
	os.WriteFile(secretPath, []byte(secret+"\n"), 0o600)
	evilPath := filepath.Join(outside, "evil.txt")

	plan := `{"title":"Greet","steps":[{"goal":"create hello.txt with a greeting","files":["hello.txt"],"check":"cat hello.txt"}],"risks":["none"]}`
	executor := func(req modelapi.Request) modelapi.Reply {
		m := worktreeRE.FindStringSubmatch(req.UserText)
		if m == nil {
			return modelapi.Text("no worktree in the prompt")
		}
		wt := m[1]
		hello := filepath.Join(wt, "hello.txt")
		switch sinceUser(req) {
		case 0:
			return modelapi.ToolCalls(
				modelapi.Call{Name: "create", Arguments: argsJSON(map[string]string{"path": hello, "file_text": "hello\n"})},
			)
		case 1:
			return modelapi.ToolCalls(modelapi.Call{Name: "view", Arguments: argsJSON(map[string]string{"path": secretPath})})
		case 2:
			return modelapi.ToolCalls(modelapi.Call{Name: "edit", Arguments: argsJSON(map[string]string{"path": hello, "old_str": "hello", "new_str": "hello, world"})})
		case 3:
			return modelapi.ToolCalls(modelapi.Call{Name: "bash", Arguments: argsJSON(map[string]string{"command": "ls", "description": "list the files"})})
		case 4:
			return modelapi.ToolCalls(modelapi.Call{Name: "create", Arguments: argsJSON(map[string]string{"path": evilPath, "file_text": "evil\n"})})
		case 5:
			return modelapi.ToolCalls(modelapi.Call{Name: "web_fetch", Arguments: argsJSON(map[string]string{"url": "https://example.com/"})})
		}
		return modelapi.Text("Step done: hello.txt says hello, world.")
	}
	models := agentModels(plan, executor, nil, map[string]string{"shell-vote": `{"approve": true, "reason": "a harmless listing"}`})

	// Each shell mode decides the command, and says so in the record.
	for _, mode := range []struct {
		shell quorum.ShellMode
		allow bool
		by    string
	}{{quorum.ShellQuorum, true, quorum.ByQuorum}, {quorum.ShellAuto, true, quorum.ByAuto}, {quorum.ShellNever, false, quorum.ByNever}} {
		t.Run(string(mode.shell), func(t *testing.T) {
			before := gittest.Take(t, repo)
			sb := clitest.NewSandbox(t)
			api := sb.StartModelAPI(t, modelapi.Config{Models: models})
			ctx, cancel := context.WithTimeout(context.Background(), realGuard)
			defer cancel()
			c := startRealCLI(ctx, t, sb, bin, clitest.OfflineEnv(t, api.URL()), nil)

			r, err := workspace.Open(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			var wt *workspace.Worktree
			a, err := quorum.Agent(ctx, quorum.Copilot(c), "Add a greeting file", quorum.AgentConfig{
				Config:  quorum.Config{Models: []string{"planner", "critic"}},
				Shell:   mode.shell,
				Context: []quorum.ContextFile{{Path: "README.md", Text: "# demo\n"}},
				Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
					return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
				},
				Workspace: func(ctx context.Context) (quorum.Workspace, error) {
					w, err := r.NewWorktree(ctx, "Add a greeting file", workspace.Options{Root: t.TempDir()})
					wt = w
					return w, err
				},
			})
			if err != nil {
				t.Fatalf("Agent: %v", err)
			}
			if os.Getenv("QUORUM_AGENT_LOG") != "" {
				out, _ := json.MarshalIndent(a, "", "  ")
				t.Logf("result: %s", out)
			}
			if a.Stage != quorum.StageReviewed || a.Plan.Author != "planner" || a.Executor != "planner" {
				t.Fatalf("stage %q, author %q, executor %q", a.Stage, a.Plan.Author, a.Executor)
			}
			if got := gittest.Git(t, repo, "show", wt.Branch()+":hello.txt"); got != "hello, world" {
				t.Fatalf("hello.txt on the branch is %q, want the edited greeting", got)
			}
			before.Unchanged(t)
			if _, err := os.Stat(evilPath); !os.IsNotExist(err) {
				t.Fatalf("the file outside the worktree was written: %v", err)
			}
			for _, req := range api.Requests() {
				for _, m := range req.Messages {
					if strings.Contains(m.Content, secret) {
						t.Fatalf("the secret outside the worktree reached the model API, in a %s message", m.Role)
					}
				}
			}
			decided := map[string]quorum.ActionRecord{}
			for _, rec := range a.Actions {
				key := rec.Action.Kind
				switch {
				case rec.Action.Kind == copilot.PermissionKindWrite && strings.Contains(strings.Join(rec.Action.Paths, ""), "evil"):
					key = "write-outside"
				case rec.Action.Kind == copilot.PermissionKindRead && strings.Contains(strings.Join(rec.Action.Paths, ""), "secret"):
					key = "read-outside"
				}
				decided[key] = rec
			}
			for key, want := range map[string]struct {
				allow bool
				by    string
			}{
				"write":         {true, quorum.ByPolicy},
				"write-outside": {false, quorum.ByPolicy},
				"read-outside":  {false, quorum.ByPolicy},
				"url":           {false, quorum.ByPolicy},
				"shell":         {mode.allow, mode.by},
			} {
				rec, ok := decided[key]
				if !ok {
					t.Errorf("no %s decision recorded (actions: %+v)", key, a.Actions)
					continue
				}
				if rec.Allow != want.allow || rec.By != want.by {
					t.Errorf("%s: allow %v by %s (%s); want allow %v by %s", key, rec.Allow, rec.By, rec.Reason, want.allow, want.by)
				}
			}
			if v := decided["shell"].Votes; mode.shell == quorum.ShellQuorum && (len(v) != 1 || v[0].Model != "critic" || !v[0].Approve) {
				t.Errorf("the shell command's votes %+v; want critic's approval", v)
			}
			if len(a.Reviews) != 1 || a.Reviews[0].Round != "final" || len(a.Reviews[0].Inspections) != 1 {
				t.Errorf("reviews %+v; want the final review by critic", a.Reviews)
			}
			if len(a.Steps) != 1 || a.Steps[0].Commit == "" || len(a.Steps[0].Tools) < 6 {
				t.Fatalf("steps %+v; want one committed step with its six tool calls", a.Steps)
			}
			for _, u := range a.Steps[0].Tools {
				if u.Tool == "" || !u.Done {
					t.Errorf("tool call %+v: want its name kept and its end recorded", u)
				}
			}

		})
	}
}
