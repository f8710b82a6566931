package quorum_test

import (
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// attemptNoteRE finds the attempt in the executor's first prompt.
var attemptNoteRE = regexp.MustCompile(`This is attempt ([A-Z]) of \d+`)

// Two attempts through the real Copilot CLI, offline, each executor a
// session of its own over one connection, in the sandbox: each writes a
// file named for its attempt on its own branch; the scripted judges rank
// B first, and B's branch is the result; the user's repository is byte for
// byte as before. With attempt A's executor made to fail (its model API
// refuses), the run is degraded and B, the one attempt left to judge,
// wins without a judging.
func TestRealCLIAgentAttempts(t *testing.T) {
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	plan := `{"title":"Greet","steps":[{"goal":"create the attempt's greeting file","files":["attempt.txt"],"check":"ls"}],"risks":["none"]}`
	for _, c := range []struct {
		name   string
		fail   string // the attempt whose executor fails
		winner string
	}{{"both", "", "B"}, {"one fails", "A", "B"}} {
		t.Run(c.name, func(t *testing.T) {
			repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
			gittest.Write(t, repo, map[string]string{"README.md": "# demo, edited and not committed\n"})
			before := gittest.Take(t, repo)
			executor := func(req modelapi.Request) modelapi.Reply {
				first := firstUser(req)
				m, wt := attemptNoteRE.FindStringSubmatch(first), worktreeRE.FindStringSubmatch(first)
				if m == nil || wt == nil {
					return modelapi.Text("no attempt or worktree in the prompt")
				}
				if m[1] == c.fail {
					return modelapi.Error(http.StatusBadRequest, `{"error": {"message": "refused for the test"}}`)
				}
				if sinceUser(req) == 0 {
					file := filepath.Join(wt[1], "attempt-"+strings.ToLower(m[1])+".txt")
					return modelapi.ToolCalls(modelapi.Call{Name: "create", Arguments: argsJSON(map[string]string{"path": file, "file_text": "hello from attempt " + m[1] + "\n"})})
				}
				return modelapi.Text("Step done.")
			}
			models := agentModels(plan, executor,
				map[string]string{"judge": `{"reviews": [{"response": "A", "score": 6}, {"response": "B", "score": 8}], "ranking": ["B", "A"]}`},
				map[string]string{"judge": `{"reviews": [{"response": "A", "score": 7}, {"response": "B", "score": 9}], "ranking": ["B", "A"]}`})
			sb := clitest.NewSandbox(t)
			api := sb.StartModelAPI(t, modelapi.Config{Models: models})
			ctx, cancel := context.WithTimeout(context.Background(), realGuard)
			defer cancel()
			cli := startRealCLI(ctx, t, sb, bin, clitest.OfflineEnv(t, api.URL()), nil)
			r, err := workspace.Open(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			var mu sync.Mutex
			a, err := quorum.Agent(ctx, quorum.Copilot(cli), "Add a greeting file", quorum.AgentConfig{
				Config:   quorum.Config{Models: []string{"planner", "critic"}},
				Attempts: 2,
				Shell:    quorum.ShellAuto,
				Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
					return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
				},
				Workspace: func(ctx context.Context) (quorum.Workspace, error) {
					label, _ := quorum.AttemptLabel(ctx)
					mu.Lock()
					defer mu.Unlock()
					return r.NewWorktree(ctx, "Add a greeting file", workspace.Options{Root: root, Suffix: strings.ToLower(label)})
				},
			})
			if err != nil {
				t.Fatalf("Agent: %v", err)
			}
			if len(a.Attempts) != 2 || a.Ranking == nil || a.Ranking.Winner != c.winner {
				t.Fatalf("attempts %+v, ranking %+v; want %s to win", a.Attempts, a.Ranking, c.winner)
			}
			for _, at := range a.Attempts {
				file := "attempt-" + strings.ToLower(at.Label) + ".txt"
				if at.Label == c.fail {
					if at.Error == "" {
						t.Fatalf("attempt %s did not fail: %+v", at.Label, at)
					}
					continue
				}
				if got := gittest.Git(t, repo, "show", at.Workspace.Branch+":"+file); got != "hello from attempt "+at.Label {
					t.Fatalf("%s on %s is %q", file, at.Workspace.Branch, got)
				}
				other := "attempt-a.txt"
				if at.Label == "A" {
					other = "attempt-b.txt"
				}
				if _, err := gittest.Run(repo, "cat-file", "-e", at.Workspace.Branch+":"+other); err == nil {
					t.Fatalf("%s holds the other attempt's file %s", at.Workspace.Branch, other)
				}
			}
			if a.Degraded != (c.fail != "") {
				t.Fatalf("degraded %v, failures %+v", a.Degraded, a.Failures)
			}
			if a.Workspace.Branch != a.Attempts[1].Workspace.Branch {
				t.Fatalf("the result's branch %s is not the winner's", a.Workspace.Branch)
			}
			before.Unchanged(t)
		})
	}
}
