package quorum_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// An estimate counts each phase's turns and prices them at each model's
// multiplier, with ranges where the run decides.
func TestEstimateCountsAndPrices(t *testing.T) {
	m := quorum.Multipliers{"a": 1, "b": 3, "c": 0.25}
	cfg := quorum.Config{Models: []string{"a", "b", "c"}, Moderator: "a", Multipliers: m, NoEarlyStop: true}
	d, err := quorum.EstimateDiscuss(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// answers 1+3+0.25, reviews the same, synthesis 1.
	if d.Turns != (quorum.Span{Min: 7, Max: 7}) || d.Premium != (quorum.Span{Min: 9.5, Max: 9.5}) || len(d.Unpriced) != 0 {
		t.Errorf("discussion: turns %+v, premium %+v, unpriced %v", d.Turns, d.Premium, d.Unpriced)
	}
	cfg.Rounds = 3
	db, err := quorum.EstimateDebate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// opening 4.25, up to 3 rounds of 4.25, verdict 1.
	if db.Premium != (quorum.Span{Min: 5.25, Max: 18}) {
		t.Errorf("debate: premium %+v", db.Premium)
	}
	cfg.Models = append(cfg.Models, "unknown")
	if p, _ := quorum.EstimatePlan(cfg); !slices.Equal(p.Unpriced, []string{"unknown"}) {
		t.Errorf("plan: unpriced %v, want the model without a multiplier", p.Unpriced)
	}
	ag, err := quorum.EstimateAgent(quorum.AgentConfig{Config: quorum.Config{Models: []string{"a", "c"}, Multipliers: m},
		Approve:   func(context.Context, quorum.AgentPlan) (quorum.Approval, error) { return quorum.Approval{}, nil },
		Workspace: func(context.Context) (quorum.Workspace, error) { return nil, errors.New("not asked") }})
	if err != nil {
		t.Fatal(err)
	}
	if !ag.Premium.Open || !ag.Fits() {
		t.Errorf("agent: the executor's steps make the premium open-ended: %+v", ag.Premium)
	}
}

// A cap shrinks the run before it starts: the peer review first, then the
// dearest model (of equals, the last), never below MinModels.
func TestEstimateShrinksToTheCap(t *testing.T) {
	m := quorum.Multipliers{"a": 1, "b": 1, "c": 0.25, "mod": 1}
	cfg := quorum.Config{Models: []string{"a", "b", "c"}, Moderator: "mod", Multipliers: m, MaxPremium: 3}
	e, err := quorum.EstimateDiscuss(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.LeftOut, []string{"the peer review (3 turns)", "model b"}) || !slices.Equal(e.Models, []string{"a", "c"}) || !e.Fits() {
		t.Errorf("cap 3: left out %v, models %v, premium %+v", e.LeftOut, e.Models, e.Premium)
	}
	cfg.MaxPremium = 1
	e, _ = quorum.EstimateDiscuss(cfg)
	if e.Fits() || len(e.Models) != 2 {
		t.Errorf("cap 1: no two-model run fits, yet %+v with %v", e.Premium, e.Models)
	}
}
