package worktree_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/worktree"
)

// repo.Workspace serves several attempts at once: each gets a worktree of
// its own, its branch named for the attempt (…-a, …-b, …-c) with one time;
// the user's repository is left alone.
func TestWorkspaceServesAttempts(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	before := gittest.Take(t, dir)
	srv := sim.NewServer(sim.Options{Models: simquorum.Models()})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	repo, err := worktree.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := quorum.Agent(ctx, quorum.Copilot(c), "Write the changelog", quorum.AgentConfig{
		Config:   quorum.Config{Models: simquorum.Participants},
		Attempts: 3,
		Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: repo.Workspace("Write the changelog", worktree.Options{Root: t.TempDir()}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var stem string
	for _, at := range a.Attempts {
		b := at.Workspace.Branch
		s, ok := strings.CutSuffix(b, "-"+strings.ToLower(at.Label))
		if !ok || (stem != "" && s != stem) {
			t.Fatalf("attempt %s's branch %s; want %s-%s", at.Label, b, stem, strings.ToLower(at.Label))
		}
		stem = s
	}
	before.Unchanged(t)
}
