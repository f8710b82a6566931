package quorum_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/quorumtest"
	"github.com/quorum-go/quorum/quorum/worktree"
)

// An agent on simulated models, in a git worktree of a throwaway
// repository: the models plan, review and revise the plan, it is
// approved, the simulated executor carries it out in the worktree, on a
// branch of its own and inside the Copilot CLI's sandbox, every action it
// asks for is decided by the gate, and the other models review the
// result. The repository's own working tree is never touched.
func ExampleAgent() {
	ctx := context.Background()
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close() // and its client

	dir, err := os.MkdirTemp("", "agent-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for _, args := range [][]string{{"init", "-q", "-b", "main", "repo"}, {"-C", "repo", "-c", "user.name=Example", "-c", "user.email=example@localhost", "commit", "-q", "--allow-empty", "-m", "initial"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			fmt.Println(err, string(out))
			return
		}
	}
	repo, err := worktree.Open(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		fmt.Println(err)
		return
	}
	task := "Document how we cut a release"
	a, err := quorum.Agent(ctx, quorum.Copilot(srv.Client()), task, quorum.AgentConfig{
		Config: quorum.Config{Models: quorumtest.Participants()},
		// The human gate: a real program shows the plan and asks.
		Approve: func(ctx context.Context, p quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: repo.Workspace(task, worktree.Options{Root: filepath.Join(dir, "worktrees")}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stage %s, plan by %s, %d review rounds\n", a.Stage, a.Plan.Author, len(a.PlanReviews))
	for _, st := range a.Steps {
		fmt.Printf("%s %d: %d tool calls, committed: %v\n", st.Round, st.Step, len(st.Tools), st.Commit != "")
	}
	for _, rec := range a.Actions[:5] {
		fmt.Printf("%s: allowed %v by %s\n", rec.Action.Kind, rec.Allow, rec.By)
	}
	denied := 0
	for _, d := range a.Sandbox.Decisions {
		if d.Kind == "access_denied" {
			denied++
		}
	}
	// The read outside the worktree never reaches the gate: the sandbox
	// refuses it first.
	fmt.Printf("sandboxed %v, network %s, %d access denied by the sandbox\n", a.Sandbox.Enabled, a.Sandbox.Network, denied)
	fmt.Printf("reviewed by %d models, %d findings left\n", len(a.Reviews[0].Inspections), len(a.Findings))
	// Output:
	// stage reviewed, plan by sim-gamma, 2 review rounds
	// execute 1: 5 tool calls, committed: true
	// execute 2: 2 tool calls, committed: true
	// execute 3: 2 tool calls, committed: true
	// read: allowed true by policy
	// write: allowed true by policy
	// shell: allowed true by quorum
	// url: allowed false by policy
	// write: allowed true by policy
	// sandboxed true, network blocked, 1 access denied by the sandbox
	// reviewed by 2 models, 0 findings left
}
