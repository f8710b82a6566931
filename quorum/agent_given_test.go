package quorum

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// givenPlan is a plan made earlier, by m2.
func givenPlan() *AgentPlan {
	return &AgentPlan{Title: "saved plan", Author: "m2", Risks: []string{"none"}, Steps: []AgentStep{
		{Goal: "add the flag", Files: []string{"step1.go"}, Check: "go test ./..."},
		{Goal: "document it", Files: []string{"step2.go"}, Check: "go vet ./..."},
	}}
}

// planningPhases are the phases a given plan leaves out.
var planningPhases = []Phase{PhasePropose, PhaseVote, PhasePlanReview, PhaseRevise}

// A given plan is carried out as it is: no model is asked to propose,
// vote on, review or revise a plan; the executor is the plan's author;
// the result says the plan was given, and where from.
func TestAgentGivenPlanRunsNoPlanningTurn(t *testing.T) {
	ws := newFakeWorkspace()
	b := &fakeBackend{ws: ws}
	cfg := agentConfig(b)
	plan := givenPlan()
	cfg.Plan, cfg.PlanFrom = plan, "plan.json"
	var gated []AgentPlan
	cfg.Approve = func(_ context.Context, p AgentPlan) (Approval, error) {
		gated = append(gated, p)
		return Approval{Verdict: ApprovalApproved}, nil
	}
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range planningPhases {
		if n := len(b.prompts[p]); n != 0 {
			t.Errorf("%d %s turns; a given plan has no planning turn", n, p)
		}
	}
	if n := len(b.prompts[PhaseExecute]); n != 2 {
		t.Errorf("%d execute turns, want one per step of the given plan (2)", n)
	}
	for _, c := range a.Calls {
		if slices.Contains(planningPhases, c.Phase) {
			t.Errorf("a %s call by %s in the result", c.Phase, c.Model)
		}
	}
	for _, ph := range a.Phases {
		if slices.Contains(planningPhases, ph.Phase) {
			t.Errorf("a %s phase in the result", ph.Phase)
		}
	}
	if len(gated) != 1 || !reflect.DeepEqual(gated[0], *plan) {
		t.Fatalf("the gate saw %+v; want the given plan once", gated)
	}
	if !a.PlanGiven || a.PlanFrom != "plan.json" || !reflect.DeepEqual(*a.Plan, *plan) {
		t.Fatalf("planGiven %v, planFrom %q, plan %+v", a.PlanGiven, a.PlanFrom, a.Plan)
	}
	if len(a.Proposals) != 0 || len(a.Votes) != 0 || len(a.PlanReviews) != 0 || a.Winner != "" {
		t.Fatalf("proposals %d, votes %d, plan reviews %d, winner %q: want none", len(a.Proposals), len(a.Votes), len(a.PlanReviews), a.Winner)
	}
	if a.Stage != StageReviewed || a.Executor != "m2" || len(a.Steps) != 2 || a.Steps[1].Goal != "document it" || len(ws.commits) != 2 {
		t.Fatalf("stage %q, executor %q, steps %+v, commits %v", a.Stage, a.Executor, a.Steps, ws.commits)
	}
	for _, r := range a.Reviews {
		for _, in := range r.Inspections {
			if in.Model == "m2" {
				t.Fatal("the executor reviewed its own change")
			}
		}
	}
	// The result's plan is Agent's own copy: the caller's stays as given.
	a.Plan.Steps[0].Files[0] = "changed.go"
	if plan.Steps[0].Files[0] != "step1.go" {
		t.Fatal("the result's plan shares its lists with the caller's")
	}
}

// Without Approve, a given plan stops at the gate before any session is
// opened: nothing to plan, nothing consented to.
func TestAgentGivenPlanWithoutConsentAsksNoModel(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	cfg := agentConfig(b)
	cfg.Plan, cfg.Approve = givenPlan(), nil
	cfg.Workspace = func(context.Context) (Workspace, error) { t.Fatal("a workspace was made"); return nil, nil }
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Stage != StagePlanned || !a.PlanGiven || a.Plan == nil || len(b.opened) != 0 || len(a.Calls) != 0 {
		t.Fatalf("stage %q, planGiven %v, plan %v, %d sessions opened, %d calls", a.Stage, a.PlanGiven, a.Plan, len(b.opened), len(a.Calls))
	}
}

// The executor of a given plan: Executor when set; else its author when
// a participant; else the first participant (a plan a person wrote, or
// one whose author takes no part now).
func TestAgentGivenPlanExecutor(t *testing.T) {
	for _, tc := range []struct{ author, executor, want string }{
		{"m3", "", "m3"},
		{"m3", "m1", "m1"},
		{"", "", "m1"},
		{"gone-model", "", "m1"},
	} {
		b := &fakeBackend{ws: newFakeWorkspace()}
		cfg := agentConfig(b)
		cfg.Plan = givenPlan()
		cfg.Plan.Author, cfg.Executor = tc.author, tc.executor
		a, err := Agent(context.Background(), b, "task", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if a.Executor != tc.want || a.Plan.Author != tc.author {
			t.Errorf("author %q, Executor %q: executor %q, author %q; want executor %q", tc.author, tc.executor, a.Executor, a.Plan.Author, tc.want)
		}
	}
}

// A given plan that cannot be carried out is refused before any model
// is asked, saying what to do.
func TestAgentGivenPlanRefused(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	for name, mut := range map[string]func(*AgentConfig){
		"no steps":   func(c *AgentConfig) { c.Plan.Steps = nil },
		"blank goal": func(c *AgentConfig) { c.Plan.Steps[1].Goal = " \n" },
		"and solo":   func(c *AgentConfig) { c.Solo = "m1" },
	} {
		cfg := agentConfig(b)
		cfg.Plan = givenPlan()
		mut(&cfg)
		if _, err := Agent(context.Background(), b, "task", cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err %v, want ErrInvalidConfig", name, err)
		}
		if _, err := EstimateAgent(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: the estimate's err %v, want ErrInvalidConfig", name, err)
		}
	}
	if len(b.opened) != 0 {
		t.Fatalf("%d sessions opened for refused plans", len(b.opened))
	}
}

// The estimate of a given plan has no planning phase, one execute turn
// per step, and shrinks only what the run has (no plan review or
// ensemble to leave out).
func TestEstimateAgentGivenPlanLeavesOutPlanning(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	cfg := agentConfig(b)
	planned, err := EstimateAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plan = givenPlan()
	given, err := EstimateAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	phases := func(e Estimate) map[Phase]PhaseEstimate {
		m := map[Phase]PhaseEstimate{}
		for _, p := range e.Phases {
			m[p.Phase] = p
		}
		return m
	}
	pp, gp := phases(planned), phases(given)
	for _, p := range planningPhases[:3] {
		if _, ok := pp[p]; !ok {
			t.Fatalf("the planned run's estimate has no %s phase: %+v", p, planned.Phases)
		}
	}
	for _, p := range planningPhases {
		if _, ok := gp[p]; ok {
			t.Errorf("the given plan's estimate has a %s phase", p)
		}
	}
	ex, ok := gp[PhaseExecute]
	if !ok || ex.Turns.Min != 2 || ex.Turns.Max != 2 || len(ex.Models) != 1 || ex.Models[0].Model != "m2" {
		t.Fatalf("the execute phase: %+v; want m2's 2 turns, one per step", ex)
	}
	if _, ok := gp[PhaseInspect]; !ok {
		t.Fatal("the given plan's estimate has no final review")
	}
	if given.Premium.Max >= planned.Premium.Max {
		t.Fatalf("the given plan costs up to %v, the planned run %v; planning is not left out", given.Premium.Max, planned.Premium.Max)
	}
	// Without consent, a given plan costs nothing: it stops at the gate.
	cfg.Approve = nil
	if e, _ := EstimateAgent(cfg); e.Turns.Max != 0 || len(e.Phases) != 0 {
		t.Fatalf("a given plan without consent: %+v", e)
	}
	// Under a cap, only the fix round can go.
	cfg = agentConfig(b)
	cfg.Plan, cfg.MaxPremium = givenPlan(), 1
	capped, err := EstimateAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(capped.LeftOut, []string{"the fix round"}) {
		t.Fatalf("left out %q; want only the fix round", capped.LeftOut)
	}
}
