package report

import (
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// agentAttemptsRun is agentRun carried out by three attempts: B won, A
// stopped short, C lost and was removed (--keep winner).
func agentAttemptsRun() *quorum.AgentResult {
	a := agentRun()
	ws := func(l string) *quorum.WorkspaceInfo {
		return &quorum.WorkspaceInfo{Dir: "/state/quorum/worktrees/demo/agent-20261125-093000-add-a-verbose-flag-" + l, Branch: "quorum/agent-20261125-093000-add-a-verbose-flag-" + l, Base: "0123456789abcdef0123"}
	}
	finding := a.Reviews[0].Findings[0]
	a.Attempts = []quorum.AgentAttempt{
		{Label: "A", Executor: "m1", Stage: quorum.StageExecuted, Workspace: ws("a"), Error: "quorum: step 1 failed: the executor crashed",
			Change: &quorum.ChangeSummary{Files: []quorum.ChangedFile{}}},
		{Label: "B", Executor: "m2", Stage: quorum.StageReviewed, Workspace: ws("b"), Change: a.Change, Findings: []quorum.MergedFinding{}},
		{Label: "C", Executor: "m1", Stage: quorum.StageReviewed, Workspace: ws("c"), Removed: true,
			Change: &quorum.ChangeSummary{Files: []quorum.ChangedFile{{Path: "main.go", Status: "modified", Added: 9, Deleted: 2}}, Added: 9, Deleted: 2}, Findings: []quorum.MergedFinding{finding}},
	}
	a.Executor, a.Workspace = "m2", a.Attempts[1].Workspace
	a.Ranking = &quorum.AttemptRanking{Winner: "B",
		Standings: []quorum.AttemptStanding{
			{Standing: quorum.Standing{Rank: 1, Label: "B", Model: "m2", MeanScore: 8, Scores: 2, Borda: 2}},
			{Standing: quorum.Standing{Rank: 2, Label: "C", Model: "m1", MeanScore: 8.5, Scores: 2, Borda: 0}, HeldBack: "its review left 1 finding(s) at or above blocking"},
			{Standing: quorum.Standing{Rank: 3, Label: "A", Model: "m1"}, HeldBack: "it stopped short: step 1 failed: the executor crashed"},
		},
		Judgements: []quorum.AttemptJudgement{
			{Model: "m1", Ranking: []string{"B", "C"}, Assessments: []quorum.Assessment{{Label: "B", Score: 8, Strengths: []string{"small"}, Weaknesses: []string{"no test"}}, {Label: "C", Score: 9, Strengths: []string{"thorough"}}}},
			{Model: "m2", Ranking: []string{}, RawReply: quorum.RawReply{Problems: []string{"no JSON verdict found"}}},
		},
	}
	return a
}

// The report of a run of several attempts: the attempts side by side, the
// ranking with each model's reasons, the winner, and how to look at or
// drop each attempt kept.
func TestAgentAttemptsReportGolden(t *testing.T) {
	var text, md strings.Builder
	Text(&text, Agent(agentAttemptsRun()), Options{})
	Markdown(&md, Agent(agentAttemptsRun()), Options{})
	golden(t, "agent-attempts.txt", text.String())
	golden(t, "agent-attempts.md", md.String())
	for _, want := range []string{"3 (winner: Attempt B)", "The winner, Attempt B (m2):", "git merge quorum/agent-20261125-093000-add-a-verbose-flag-b",
		"git branch -D quorum/agent-20261125-093000-add-a-verbose-flag-a", "-flag-c (removed)", "m1: B > C", "m2: no ranking (no JSON verdict found)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(text.String(), "git branch -D quorum/agent-20261125-093000-add-a-verbose-flag-c") {
		t.Error("the report says how to drop an attempt already removed")
	}
	var one strings.Builder
	Text(&one, Agent(agentRun()), Options{})
	if strings.Contains(one.String(), "Attempt") {
		t.Errorf("a one-attempt run's report mentions attempts:\n%s", one.String())
	}
}
