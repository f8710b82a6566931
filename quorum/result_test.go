package quorum_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// keys returns the JSON keys of v's objects, as "path.key", recursively
// (the first element stands for every element of a list).
func keys(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if prefix == "usageByModel" {
				k = "*" // model ids
			}
			p := strings.TrimPrefix(prefix+"."+k, ".")
			out[p] = true
			keys(p, e, out)
		}
	case []any:
		if len(x) > 0 {
			keys(prefix+"[]", x[0], out)
		}
	}
}

// The JSON schema is what `quorum -o json` prints: renaming a field breaks
// its users, so the key set is pinned here.
func TestResultJSONSchemaIsStable(t *testing.T) {
	e := newEnv(t, participants()...)
	d, err := quorum.Discuss(ctxGuard(t), e.b, question, cfg3())
	if err != nil {
		t.Fatal(err)
	}
	p, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: simquorum.Participants})
	if err != nil {
		t.Fatal(err)
	}
	outcome := []string{"degraded", "failures", "phases", "phases[].phase", "phases[].startMs", "phases[].elapsedMs", "phases[].models", "phases[].dropped",
		"calls", "calls[].phase", "calls[].model", "calls[].startMs", "calls[].elapsedMs", "calls[].outcome", "calls[].usage",
		"calls[].usage.calls", "calls[].usage.inputTokens", "calls[].usage.outputTokens", "calls[].usage.cost",
		"usage", "usage.calls", "usage.inputTokens", "usage.outputTokens", "usage.cost",
		"usageByModel", "usageByModel.*", "usageByModel.*.calls", "usageByModel.*.inputTokens", "usageByModel.*.outputTokens", "usageByModel.*.cost",
		"startedAt", "elapsedMs"}
	span := func(p string) []string { return []string{p, p + ".min", p + ".max"} }
	outcome = slices.Concat(outcome, []string{"premium", "premium.used", "premium.estimate", "premium.estimate.models", "premium.estimate.phases", "premium.estimate.phases[].phase",
		"premium.estimate.phases[].models", "premium.estimate.phases[].models[].model", "premium.estimate.unpriced"},
		span("premium.estimate.turns"), span("premium.estimate.premium"), span("premium.estimate.phases[].turns"), span("premium.estimate.phases[].premium"),
		span("premium.estimate.phases[].models[].turns"), span("premium.estimate.phases[].models[].premium"))
	usage := func(p string) []string {
		return []string{p, p + ".calls", p + ".inputTokens", p + ".outputTokens", p + ".cost"}
	}
	standing := func(p string) []string {
		return []string{p, p + "[].rank", p + "[].label", p + "[].model", p + "[].meanScore", p + "[].scores", p + "[].borda", p + "[].failed"}
	}
	discussion := append(slices.Concat(outcome, standing("ranking"), usage("answers[].usage"), usage("reviews[].usage"), usage("synthesis.usage")),
		"question", "models", "ranked",
		"answers", "answers[].label", "answers[].model", "answers[].text", "answers[].elapsedMs",
		"reviews", "reviews[].reviewer", "reviews[].reviewerLabel", "reviews[].reviewed", "reviews[].raw", "reviews[].problems", "reviews[].usable", "reviews[].elapsedMs",
		"reviews[].verdict", "reviews[].verdict.assessments", "reviews[].verdict.ranking", "reviews[].verdict.assessments[].label", "reviews[].verdict.assessments[].score",
		"reviews[].verdict.assessments[].strengths", "reviews[].verdict.assessments[].weaknesses",
		"synthesis", "synthesis.moderator", "synthesis.requestedModerator", "synthesis.substituted", "synthesis.raw", "synthesis.conclusion",
		"synthesis.keyPoints", "synthesis.consensus", "synthesis.disagreements", "synthesis.problems", "synthesis.elapsedMs")
	plan := append(slices.Concat(outcome, standing("standings"), usage("proposals[].usage"), usage("votes[].usage")),
		"task", "models", "winner", "reason",
		"proposals", "proposals[].label", "proposals[].model", "proposals[].title", "proposals[].steps", "proposals[].risks", "proposals[].raw", "proposals[].problems", "proposals[].elapsedMs",
		"votes", "votes[].voter", "votes[].plan", "votes[].score", "votes[].reasoning", "votes[].raw", "votes[].problems", "votes[].elapsedMs")
	db, err := quorum.Debate(ctxGuard(t), e.b, claim, cfg3())
	if err != nil {
		t.Fatal(err)
	}
	rv, err := quorum.Review(ctxGuard(t), e.b, change, quorum.Config{Models: simquorum.Participants})
	if err != nil {
		t.Fatal(err)
	}
	// The walk reads the first element of each list: the first turn is a
	// proponent's opening, whose lists are empty.
	debate := append(slices.Concat(outcome, usage("turns[].usage"), usage("verdict.usage")),
		"claim", "models", "rounds", "debaters", "debaters[].label", "debaters[].model", "debaters[].side",
		"turns", "turns[].phase", "turns[].round", "turns[].label", "turns[].model", "turns[].side", "turns[].argument",
		"turns[].answers", "turns[].rulings", "turns[].objections", "turns[].raw", "turns[].problems", "turns[].elapsedMs",
		"ledger", "ledger[].id", "ledger[].severity", "ledger[].text", "ledger[].raisedBy", "ledger[].model", "ledger[].phase", "ledger[].status",
		"ledger[].answers", "ledger[].answers[].by", "ledger[].answers[].model", "ledger[].answers[].phase", "ledger[].answers[].text",
		"ledger[].history", "ledger[].history[].phase", "ledger[].history[].status", "ledger[].history[].by", "ledger[].history[].model", "ledger[].history[].reason",
		"end", "end.roundsHeld", "end.early", "end.settled", "end.reason",
		"verdict", "verdict.moderator", "verdict.requestedModerator", "verdict.substituted", "verdict.position", "verdict.summary",
		"verdict.rulings", "verdict.rulings[].objection", "verdict.rulings[].status", "verdict.rulings[].reason", "verdict.wouldChange",
		"verdict.standing", "verdict.standing.blocking", "verdict.standing.major", "verdict.standing.minor", "verdict.raw", "verdict.problems", "verdict.elapsedMs")
	finding := func(p string) []string {
		return []string{p + ".file", p + ".startLine", p + ".endLine", p + ".severity", p + ".category", p + ".explanation", p + ".suggestion"}
	}
	review := append(slices.Concat(outcome, usage("inspections[].usage"), finding("inspections[].findings[]"), finding("findings[]"), finding("findings[].reports[]")),
		"change", "change.files", "change.files[].path", "change.files[].status", "change.files[].added", "change.files[].deleted",
		"change.files[].hunks", "change.files[].hunks[].start", "change.files[].hunks[].end", "change.added", "change.deleted", "change.context",
		"models", "inspections", "inspections[].model", "inspections[].findings", "inspections[].raw", "inspections[].problems", "inspections[].usable", "inspections[].elapsedMs",
		"findings", "findings[].id", "findings[].rank", "findings[].agreement", "findings[].models", "findings[].reports", "findings[].reports[].model")
	for name, c := range map[string]struct {
		v    any
		want []string
	}{"DiscussResult": {d, discussion}, "PlanResult": {p, plan}, "DebateResult": {db, debate}, "ReviewResult": {rv, review}} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		var m any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		keys("", m, got)
		want := map[string]bool{}
		for _, k := range c.want {
			want[k] = true
		}
		if !maps.Equal(got, want) {
			var extra, missing []string
			for k := range got {
				if !want[k] {
					extra = append(extra, k)
				}
			}
			for k := range want {
				if !got[k] {
					missing = append(missing, k)
				}
			}
			slices.Sort(extra)
			slices.Sort(missing)
			t.Errorf("%s JSON keys changed: unexpected %v, missing %v", name, extra, missing)
		}
	}
}
