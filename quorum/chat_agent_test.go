package quorum_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// agentRound is an agent round's configuration on repo, approved or
// rejected at the gate; worktree reports the worktree it made.
func agentRound(t *testing.T, repo string, verdict string, worktree **workspace.Worktree) quorum.AgentConfig {
	t.Helper()
	root := t.TempDir()
	return quorum.AgentConfig{
		Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: verdict}, nil
		},
		Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			r, err := workspace.Open(ctx, repo)
			if err != nil {
				return nil, err
			}
			w, err := r.NewWorktree(ctx, "carry it out", workspace.Options{Root: root})
			*worktree = w
			return w, err
		},
	}
}

func TestChatAgentRoundCarriesOutWhatTheChatConcludedAndTheNextRoundKnowsIt(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	gittest.Write(t, repo, map[string]string{"README.md": "# demo, uncommitted\n"})
	before := gittest.Take(t, repo)
	var log turnLog
	e := newEnv(t, log.wrap(participants())...)
	ctx := ctxGuard(t)
	cfg := chatConfig()
	cfg.Dir = t.TempDir()
	c, err := quorum.NewChat(e.b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := c.Discuss(ctx, "How should we document the release process?")
	if err != nil {
		t.Fatal(err)
	}
	var wt *workspace.Worktree
	r2, err := c.Agent(ctx, "Carry out what we agreed", agentRound(t, repo, quorum.ApprovalApproved, &wt))
	if err != nil {
		t.Fatalf("agent round: %v", err)
	}
	if r2.Kind != quorum.RoundAgent || r2.Status != quorum.RoundOK || r2.Agent == nil || r2.Agent.Stage != quorum.StageReviewed {
		t.Fatalf("agent round: kind %q, status %q, result %+v", r2.Kind, r2.Status, r2.Agent)
	}
	if r2.Agent.Task != "Carry out what we agreed" || !strings.Contains(r2.Sent, r1.Conclusion) {
		t.Errorf("the agent's task is %q and the models were sent:\n%s\nwant the user's task, sent with round 1's synthesis", r2.Agent.Task, r2.Sent)
	}
	// The proposals went to the sessions the discussion's answers did; the
	// executor worked in a session of its own.
	answers, proposals := log.of(quorum.PhaseAnswer), log.of(quorum.PhasePropose)
	for _, m := range simquorum.Participants {
		if len(answers[m]) != 1 || len(proposals[m]) != 1 {
			t.Fatalf("%s: %d answers, %d proposals; want one of each", m, len(answers[m]), len(proposals[m]))
		}
		if a, p := answers[m][0], proposals[m][0]; a.SessionID != p.SessionID || p.Number != 2 || r2.Sessions[m] != a.SessionID {
			t.Errorf("%s proposed in session %s (turn %d), answered in %s; want its kept session, second turn", m, p.SessionID, p.Number, a.SessionID)
		}
	}
	kept := map[string]bool{}
	for _, s := range r2.Sessions {
		kept[s] = true
	}
	for m, ts := range log.of(quorum.PhaseExecute) {
		for _, tt := range ts {
			if kept[tt.SessionID] {
				t.Errorf("%s carried out a step in kept session %s; the executor needs a session with tools", m, tt.SessionID)
			}
		}
	}
	if wt == nil || !strings.Contains(r2.Conclusion, wt.Branch()) || !strings.Contains(r2.Conclusion, r2.Agent.Plan.Steps[0].Goal) {
		t.Errorf("the round's conclusion %q does not name the branch and the plan", r2.Conclusion)
	}
	if notes := gittest.Git(t, repo, "show", wt.Branch()+":QUORUM_SIM_NOTES.md"); notes == "" {
		t.Error("nothing was committed on the agent's branch")
	}
	before.Unchanged(t)

	r3, err := c.Discuss(ctx, "What is left to do?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r3.Sent, wt.Branch()) || !strings.Contains(r3.Sent, "a change carried out by an agent") {
		t.Errorf("the round after the agent's was not told what it did:\n%s", r3.Sent)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	e.requireClean(t)
	saved, err := quorum.LoadChat(cfg.Dir, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Rounds) != 3 || saved.Rounds[1].Agent == nil || saved.Rounds[1].Agent.Workspace == nil || saved.Rounds[1].Agent.Workspace.Branch != wt.Branch() {
		t.Fatalf("the saved chat's agent round: %+v", saved.Rounds)
	}
}

func TestChatAgentRoundRejectedAtTheGateChangesNothing(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	before := gittest.Take(t, repo)
	e := newEnv(t, participants()...)
	ctx := ctxGuard(t)
	c, err := quorum.NewChat(e.b, chatConfig())
	if err != nil {
		t.Fatal(err)
	}
	var wt *workspace.Worktree
	r, err := c.Agent(ctx, "Rename the project", agentRound(t, repo, quorum.ApprovalRejected, &wt))
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent.Stage != quorum.StageRejected || wt != nil || !strings.Contains(r.Conclusion, "rejected") {
		t.Fatalf("stage %q, worktree %v, conclusion %q; want rejected, no worktree", r.Agent.Stage, wt, r.Conclusion)
	}
	if len(gittest.Git(t, repo, "branch", "--list", "quorum/*")) != 0 {
		t.Error("a rejected plan left a branch")
	}
	before.Unchanged(t)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	e.requireClean(t)
}
