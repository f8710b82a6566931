package simquorum

import (
	"strings"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// Participants are the default participant ids, and Moderator the default
// moderator id, that Models serves when given no ids.
var Participants = []string{"sim-alpha", "sim-beta", "sim-gamma"}

// Moderator is the default moderator's id.
const Moderator = "sim-moderator"

// Models returns a quorum-aware simulated model for each id; with no ids,
// the Participants and the Moderator. Pass them as sim.Options.Models.
func Models(ids ...string) []sim.Model {
	if len(ids) == 0 {
		ids = append(append([]string{}, Participants...), Moderator)
	}
	out := make([]sim.Model, len(ids))
	for i, id := range ids {
		out[i] = Model(id)
	}
	return out
}

// multipliers are the premium requests one request to a simulated model
// counts, where it is not 1: sim-gamma is a cheap model, as GitHub
// Copilot's fast models count 0.25 (a binary fraction: sums of premium
// requests stay exact, as a run's report and estimate add them up).
var multipliers = map[string]float64{"sim-gamma": 0.25}

// Model returns one quorum-aware simulated model, with its multiplier
// (1 unless multipliers says otherwise).
func Model(id string) sim.Model {
	m := sim.Model{ID: id, Name: "Simulated " + id, Respond: Respond}
	if x, ok := multipliers[id]; ok {
		m = m.WithMultiplier(x)
	}
	return m
}

// Respond answers a turn as a quorum participant would, by the prompt's
// marker; a prompt without one gets a plain answer.
func Respond(t sim.Turn) sim.Response { return sim.Rules(Answer, Rules()...)(t) }

// Rules are the rules Respond applies, for models built with
// sim.Model.With: add your own rules before them to override a phase.
func Rules() []sim.Rule {
	return []sim.Rule{
		{Name: "quorum answer", Match: Is(quorum.PhaseAnswer), Respond: Answer},
		{Name: "quorum review", Match: Is(quorum.PhaseReview), Respond: Review},
		{Name: "quorum synthesis", Match: Is(quorum.PhaseSynthesis), Respond: Synthesis},
		{Name: "quorum agent proposal", Match: IsAgentProposal, Respond: AgentProposal},
		{Name: "quorum proposal", Match: Is(quorum.PhasePropose), Respond: Proposal},
		{Name: "quorum vote", Match: Is(quorum.PhaseVote), Respond: Vote},
		{Name: "quorum debate opening", Match: Is(quorum.PhaseOpening), Respond: Debater},
		{Name: "quorum debate round", Match: IsRound, Respond: Debater},
		{Name: "quorum debate verdict", Match: Is(quorum.PhaseVerdict), Respond: Verdict},
		{Name: "quorum review inspection", Match: Is(quorum.PhaseInspect), Respond: Inspection},
		{Name: "quorum agent plan review", Match: Is(quorum.PhasePlanReview), Respond: PlanReview},
		{Name: "quorum agent revision", Match: Is(quorum.PhaseRevise), Respond: Revise},
		{Name: "quorum agent shell vote", Match: Is(quorum.PhaseShellVote), Respond: ShellVote},
		{Name: "quorum agent step", Match: Is(quorum.PhaseExecute), Respond: Executor},
		{Name: "quorum agent fix", Match: Is(quorum.PhaseFix), Respond: Executor},
		{Name: "quorum agent judging", Match: Is(quorum.PhaseJudge), Respond: AttemptJudgement},
	}
}

// Is matches the prompts of phase p: those starting with its marker. A
// marker quoted inside a prompt (an answer that contains one) does not
// match, since only the first line counts.
func Is(p quorum.Phase) func(sim.Turn) bool {
	marker := quorum.PromptMarker(p)
	return func(t sim.Turn) bool { return strings.HasPrefix(t.Prompt, marker) }
}

// IsRound matches the prompts of every round of a debate (not its
// opening).
func IsRound(t sim.Turn) bool {
	first, _, _ := strings.Cut(t.Prompt, "\n")
	p, ok := strings.CutPrefix(first, "[quorum:")
	if !ok {
		return false
	}
	_, ok = quorum.Phase(strings.TrimSuffix(p, "]")).Round()
	return ok && strings.HasSuffix(p, "]")
}
