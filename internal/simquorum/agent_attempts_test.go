package simquorum_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// Three attempts on the simulator, in a real repository, over one
// connection: each works in a worktree of its own, its branch named for
// its attempt; the simulated executors write their attempt's own approach,
// so the branches differ; every model judges the attempts, and the winner
// is one of them. The user's repository is untouched.
func TestAgentAttemptsOnTheSimulator(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	gittest.Write(t, repo, map[string]string{"README.md": "# demo, uncommitted\n"})
	before := gittest.Take(t, repo)
	root := t.TempDir()
	srv := sim.NewServer(sim.Options{Models: simquorum.Models()})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := workspace.Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Now()
	a, err := quorum.Agent(ctx, quorum.Copilot(c), "Document the release process", quorum.AgentConfig{
		Config:   quorum.Config{Models: simquorum.Participants},
		Attempts: 3,
		Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			label, ok := quorum.AttemptLabel(ctx)
			if !ok {
				t.Error("a workspace was asked for outside an attempt")
			}
			mu.Lock()
			defer mu.Unlock()
			return r.NewWorktree(ctx, "Document the release process", workspace.Options{Root: root, Suffix: strings.ToLower(label), Now: func() time.Time { return now }})
		},
	})
	if err != nil {
		t.Fatalf("Agent: %v", err)
	}
	if len(a.Attempts) != 3 || a.Ranking == nil || len(a.Ranking.Judgements) != len(simquorum.Participants) {
		t.Fatalf("attempts %+v, ranking %+v; want 3 attempts judged by every model", a.Attempts, a.Ranking)
	}
	notes := map[string]bool{}
	for _, at := range a.Attempts {
		if at.Error != "" || at.Workspace == nil || !strings.HasSuffix(at.Workspace.Branch, "-"+strings.ToLower(at.Label)) {
			t.Fatalf("attempt %+v; want it done on its own branch", at)
		}
		text := gittest.Git(t, repo, "show", at.Workspace.Branch+":QUORUM_SIM_NOTES.md")
		if !strings.Contains(text, "Attempt "+at.Label+"'s approach") {
			t.Fatalf("attempt %s's notes: %q", at.Label, text)
		}
		notes[text] = true
	}
	if len(notes) != 3 {
		t.Fatalf("the attempts' notes are not all different: %v", notes)
	}
	for _, j := range a.Ranking.Judgements {
		if len(j.Ranking) != 3 || len(j.Problems) != 0 {
			t.Fatalf("%s's judgement %+v; want all three ranked, nothing amiss", j.Model, j)
		}
	}
	w := a.Ranking.Winner
	if w == "" || a.Workspace == nil || a.Workspace.Branch != a.Attempts[w[0]-'A'].Workspace.Branch || a.Ranking.Standings[0].Label != w {
		t.Fatalf("winner %q, result's branch %+v", w, a.Workspace)
	}
	before.Unchanged(t)
}
