package chat

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/quorum-go/quorum/quorum"
)

// planningPhases are the phases /agent --plan leaves out.
var planningPhases = []quorum.Phase{quorum.PhasePropose, quorum.PhaseVote, quorum.PhasePlanReview, quorum.PhaseRevise}

// checkCarriedOut fails unless round carried out from's plan as given:
// no planning turn, its task, on a branch of its own.
func checkCarriedOut(t *testing.T, r *agentRepo, from, round quorum.ChatRound) {
	t.Helper()
	a := round.Agent
	if a == nil || from.Agent == nil {
		t.Fatalf("the rounds: %+v, %+v", from, round)
	}
	for _, c := range a.Calls {
		if slices.Contains(planningPhases, c.Phase) {
			t.Errorf("a %s call by %s: the plan was made again", c.Phase, c.Model)
		}
	}
	if !a.PlanGiven || a.PlanFrom != "round 1 of this chat" || len(a.Proposals) != 0 {
		t.Fatalf("planGiven %v, planFrom %q, %d proposals", a.PlanGiven, a.PlanFrom, len(a.Proposals))
	}
	if round.Prompt != from.Prompt || a.Plan.Title != from.Agent.Plan.Title || len(a.Steps) != len(from.Agent.Plan.Steps) {
		t.Fatalf("carried out %q, plan %q in %d steps; want round 1's %q, %q in %d", round.Prompt, a.Plan.Title, len(a.Steps), from.Prompt, from.Agent.Plan.Title, len(from.Agent.Plan.Steps))
	}
	if a.Stage != quorum.StageReviewed || a.Approval != quorum.ApprovalApproved || a.Workspace == nil {
		t.Fatalf("stage %q, approval %q, workspace %+v", a.Stage, a.Approval, a.Workspace)
	}
	if b := r.branches(t); len(b) != 1 || b[0] != a.Workspace.Branch {
		t.Fatalf("branches %v, want the one of the carried-out plan", b)
	}
	r.before.Unchanged(t)
}

// A plan rejected at the gate is carried out later with /agent --plan:
// the gate asks again, with the same plan, and no model plans it anew.
func TestAgentPlanCarriesOutTheRejectedPlan(t *testing.T) {
	r := newAgentRepo(t)
	o := r.withAgent(newOptions(t), quorum.ShellAuto)
	tm := startUI(t, o, 100, 30)
	toTheGate(t, tm, "Document the release process")
	tm.Send(keyMsg("n"))
	teatest.WaitFor(t, tm.Output(), outputHas("1 round(s)"), teatest.WithDuration(guard))
	enter(tm, "/agent --plan")
	teatest.WaitFor(t, tm.Output(), outputHas("y carry out · e edit"), teatest.WithDuration(guard))
	tm.Send(keyMsg("y"))
	teatest.WaitFor(t, tm.Output(), outputHas("2 round(s)"), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	tm.FinalModel(t, teatest.WithFinalTimeout(guard))
	rs := o.Chat.Rounds()
	if len(rs) != 2 || rs[0].Agent == nil || rs[0].Agent.Stage != quorum.StageRejected {
		t.Fatalf("rounds %+v", rs)
	}
	checkCarriedOut(t, r, rs[0], rs[1])
}

// The line mode offers the same; with no plan to carry out, or one
// carried out already, it says why and what to type instead.
func TestAgentPlanInTheLineMode(t *testing.T) {
	r := newAgentRepo(t)
	o := r.withAgent(newOptions(t), quorum.ShellAuto)
	lm := startLineMode(t, o)
	out, typeLine := lm.out, lm.typeLine
	typeLine("/agent --plan")
	_, at := out.waitFor(t, 0, regexp.MustCompile(`no /agent round has made a plan yet; /agent TASK plans one`))
	typeLine("/agent --plan notes.json")
	_, at = out.waitFor(t, at, regexp.MustCompile(`/agent --plan takes nothing after it`))
	typeLine("/agent Document the release process")
	_, at = out.waitFor(t, at, regexp.MustCompile(`Carry out this plan\? y yes · e edit it · n no: `))
	typeLine("n")
	_, at = out.waitFor(t, at, regexp.MustCompile(`Round 1 · agent: Document the release process`))
	typeLine("/agent --plan")
	_, at = out.waitFor(t, at, regexp.MustCompile(`Carry out this plan\? y yes · e edit it · n no: `))
	typeLine("y")
	_, at = out.waitFor(t, at, regexp.MustCompile(`Round 2 · agent: Document the release process`))
	typeLine("/agent --plan")
	_, _ = out.waitFor(t, at, regexp.MustCompile(`the plan of the last /agent round \(round 2\) was carried out already, on branch quorum/\S+; /agent TASK plans anew`))
	lm.end()
	rs := o.Chat.Rounds()
	if len(rs) != 2 {
		t.Fatalf("%d rounds, want 2:\n%s", len(rs), out.String())
	}
	checkCarriedOut(t, r, rs[0], rs[1])
	if s := out.String(); strings.Count(s, "· propose:") != 1 {
		t.Errorf("the propose phase ran %d times; want once, for round 1:\n%s", strings.Count(s, "· propose:"), s)
	}
}

// lastPlan finds the last /agent round's plan, and says why there is
// none to carry out.
func TestLastPlan(t *testing.T) {
	plan := &quorum.AgentPlan{Title: "p", Steps: []quorum.AgentStep{{Goal: "g"}}}
	agent := func(n int, a *quorum.AgentResult) quorum.ChatRound {
		return quorum.ChatRound{N: n, Kind: quorum.RoundAgent, Prompt: "task " + string(rune('0'+n)), Agent: a}
	}
	discuss := quorum.ChatRound{N: 3, Kind: quorum.RoundDiscuss, Prompt: "what now?"}
	for _, tc := range []struct {
		name   string
		rounds []quorum.ChatRound
		task   string
		err    string
	}{
		{"none", []quorum.ChatRound{discuss}, "", "no /agent round has made a plan yet"},
		{"rejected, then a discussion", []quorum.ChatRound{agent(1, &quorum.AgentResult{Stage: quorum.StageRejected, Plan: plan}), discuss}, "task 1", ""},
		{"cancelled at the gate", []quorum.ChatRound{agent(2, &quorum.AgentResult{Plan: plan})}, "task 2", ""},
		{"no plan", []quorum.ChatRound{agent(1, &quorum.AgentResult{Stage: quorum.StageRejected, Plan: plan}), agent(2, &quorum.AgentResult{})}, "", "round 2) made no plan"},
		{"failed to start", []quorum.ChatRound{agent(1, nil)}, "", "round 1) made no plan"},
		{"carried out", []quorum.ChatRound{agent(1, &quorum.AgentResult{Stage: quorum.StageReviewed, Plan: plan, Workspace: &quorum.WorkspaceInfo{Branch: "quorum/agent-x"}})}, "", "carried out already, on branch quorum/agent-x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, got, from, err := lastPlan(tc.rounds)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || task != tc.task || got != plan || !strings.HasPrefix(from, "round ") {
				t.Fatalf("task %q, plan %v, from %q, err %v; want %q", task, got, from, err, tc.task)
			}
		})
	}
}
