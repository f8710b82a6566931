package quorum

import (
	"context"
	"errors"
	"slices"
)

// Span is a count that depends on how a run goes: at least Min, at most
// Max. Open means the most depends on what the models do (how many
// shell commands an agent's executor runs, how many steps its plan has):
// Max is then the least that is known, and Config.MaxPremium is what
// bounds the rest.
type Span struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Open bool    `json:"open,omitempty"`
}

func (s Span) plus(o Span) Span {
	return Span{Min: s.Min + o.Min, Max: s.Max + o.Max, Open: s.Open || o.Open}
}

// Estimate is what a run will cost before it starts: the model turns each
// phase takes and the premium requests they cost at each model's
// multiplier (Config.Multipliers).
type Estimate struct {
	// Models are the run's participants, after the cap's shrinking.
	Models []string        `json:"models"`
	Phases []PhaseEstimate `json:"phases"`
	// Turns and Premium are the whole run's.
	Turns   Span `json:"turns"`
	Premium Span `json:"premium"`
	// Cap is Config.MaxPremium (0: none); LeftOut says what the run leaves
	// out to fit in it.
	Cap     float64  `json:"cap,omitempty"`
	LeftOut []string `json:"leftOut,omitempty"`
	// Unpriced are the models whose multiplier is not known: each of
	// their turns is counted at 1.
	Unpriced []string `json:"unpriced,omitempty"`
}

// PhaseEstimate is one phase's share of an Estimate.
type PhaseEstimate struct {
	Phase   Phase           `json:"phase"`
	Turns   Span            `json:"turns"`
	Premium Span            `json:"premium"`
	Models  []ModelEstimate `json:"models"`
	// Why says what the range depends on, when it is one.
	Why string `json:"why,omitempty"`
}

// ModelEstimate is one model's turns in a phase. Model is "" for a role
// the run decides later (an agent's executor, the plan's author).
type ModelEstimate struct {
	Model   string `json:"model"`
	Role    string `json:"role,omitempty"`
	Turns   Span   `json:"turns"`
	Premium Span   `json:"premium"`
}

// Fits reports whether the most the run can cost, as far as it is known
// before it starts, is within its cap (always, without one). An Open
// phase's unknown part is bounded by the cap as the run goes.
func (e Estimate) Fits() bool {
	return e.Cap == 0 || e.Premium.Max <= e.Cap+tieEpsilon
}

// estimator builds an Estimate phase by phase.
type estimator struct {
	m Multipliers
	e Estimate
}

// phase adds phase p; its totals are its models' sums unless set later.
func (b *estimator) phase(p Phase, why string) *PhaseEstimate {
	b.e.Phases = append(b.e.Phases, PhaseEstimate{Phase: p, Why: why, Models: []ModelEstimate{}})
	return &b.e.Phases[len(b.e.Phases)-1]
}

// turns gives model (or, with model "", the role played by one of
// models) turns in pe.
func (b *estimator) turns(pe *PhaseEstimate, model, role string, turns Span, models ...string) {
	price := Span{Min: b.m.Of(model), Max: b.m.Of(model)}
	if model == "" {
		price = b.priceRange(models)
	}
	me := ModelEstimate{Model: model, Role: role, Turns: turns,
		Premium: Span{Min: turns.Min * price.Min, Max: turns.Max * price.Max, Open: turns.Open}}
	pe.Models = append(pe.Models, me)
	pe.Turns = pe.Turns.plus(turns)
	pe.Premium = pe.Premium.plus(me.Premium)
	for _, m := range append(models, model) {
		if m != "" && !b.m.Known(m) && !slices.Contains(b.e.Unpriced, m) {
			b.e.Unpriced = append(b.e.Unpriced, m)
		}
	}
}

// priceRange is the cheapest and dearest multiplier among models.
func (b *estimator) priceRange(models []string) Span {
	var s Span
	for i, m := range models {
		p := b.m.Of(m)
		if i == 0 || p < s.Min {
			s.Min = p
		}
		if i == 0 || p > s.Max {
			s.Max = p
		}
	}
	return s
}

func (b *estimator) done(cap float64, leftOut []string) Estimate {
	e := b.e
	e.Cap, e.LeftOut = cap, leftOut
	for _, p := range e.Phases {
		e.Turns = e.Turns.plus(p.Turns)
		e.Premium = e.Premium.plus(p.Premium)
	}
	if e.Phases == nil {
		e.Phases = []PhaseEstimate{}
	}
	return e
}

func one() Span                 { return Span{Min: 1, Max: 1} }
func upTo(n float64) Span       { return Span{Max: n} }
func between(a, b float64) Span { return Span{Min: a, Max: b} }

// EstimateDiscuss, EstimatePlan, EstimateDebate, EstimateReview and
// EstimateAgent work out, before a run, the model turns each phase of
// that strategy will take with cfg and the premium requests they cost at
// cfg.Multipliers, shrunk to cfg.MaxPremium as the run itself would be
// (Estimate.LeftOut). They ask no model. The estimate's range is where a
// phase's count depends on what happens (early stop, debate rounds, plan
// review rounds, fix rounds, the executor's steps and shell votes); a run
// reports what it used in its Premium.
func EstimateDiscuss(cfg Config) (Estimate, error) {
	return estimate(cfg, discussShape, noReview, fewerModels(0))
}

// EstimatePlan: see EstimateDiscuss.
func EstimatePlan(cfg Config) (Estimate, error) { return estimate(cfg, planShape, fewerModels(0)) }

// EstimateDebate: see EstimateDiscuss.
func EstimateDebate(cfg Config) (Estimate, error) {
	if len(cfg.Models) < 2 {
		return Estimate{}, invalid("a debate needs at least two models in Config.Models, one for each side; it has %d", len(cfg.Models))
	}
	return estimate(cfg, debateShape, fewerRounds, fewerModels(2))
}

// EstimateReview: see EstimateDiscuss.
func EstimateReview(cfg Config) (Estimate, error) {
	return estimate(cfg, reviewShape, fewerModels(0))
}

// EstimateAgent: see EstimateDiscuss. Without cfg.Approve the run stops
// at the plan, and so does the estimate.
func EstimateAgent(cfg AgentConfig) (Estimate, error) {
	s, as, err := cfg.settle(unusedBackend{}, "estimate")
	if err != nil {
		return Estimate{}, err
	}
	return s.fit(agentShape(as), agentShrinks(as)...), nil
}

func estimate(cfg Config, sh shape, shrinks ...shrink) (Estimate, error) {
	s, err := cfg.settle()
	if err != nil {
		return Estimate{}, err
	}
	return s.fit(sh, shrinks...), nil
}

// unusedBackend stands in for the Backend an estimate never calls.
type unusedBackend struct{}

func (unusedBackend) Open(context.Context, OpenOptions) (Conversation, error) {
	return nil, errors.New("quorum: an estimate asks no model")
}

// EstimateAsk is what one question to model costs (quorum ask, a chat's
// /ask): one turn at its multiplier. With a cap it cannot fit, Fits
// reports false; nothing shrinks a single turn.
func EstimateAsk(model string, m Multipliers, maxPremium float64) Estimate {
	b := &estimator{m: m}
	b.turns(b.phase(PhaseAsk, ""), model, "", one())
	return b.done(maxPremium, nil)
}
