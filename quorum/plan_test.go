package quorum_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

const task = "Migrate the billing service from MySQL to Postgres without downtime"

func TestPlanCleanRun(t *testing.T) {
	e := newEnv(t, participants()...)
	var p progress
	d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: simquorum.Participants, Progress: p.fn})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	e.requireClean(t)
	if d.Degraded || len(d.Failures) != 0 {
		t.Errorf("degraded: %+v", d.Failures)
	}
	if len(d.Proposals) != 3 {
		t.Fatalf("proposals = %d", len(d.Proposals))
	}
	own := map[string]string{}
	for i, pr := range d.Proposals {
		if pr.Model != simquorum.Participants[i] || pr.Title == "" || len(pr.Steps) < 3 || len(pr.Risks) != 2 || pr.Raw == "" {
			t.Errorf("proposal %d = %+v", i, pr)
		}
		own[pr.Model] = pr.Label
	}
	// The full matrix: 3·2 votes, nobody on their own plan, all valid.
	if len(d.Votes) != 6 {
		t.Fatalf("votes = %d, want 6", len(d.Votes))
	}
	for _, v := range d.Votes {
		if own[v.Voter] == v.Plan || v.Score < 1 || v.Score > 10 || v.Error != "" || v.Reasoning == "" {
			t.Errorf("vote %+v", v)
		}
	}
	// Every vote prompt carries the task and exactly one quoted plan.
	for _, ev := range p.all() {
		if ev.Kind == quorum.ModelStarted && ev.Phase == quorum.PhaseVote {
			if !strings.Contains(ev.Text, task) || len(regexp.MustCompile(`(?m)^<<<BEGIN PLAN `+ev.Target+` `).FindAllString(ev.Text, -1)) != 1 {
				t.Errorf("vote prompt for %s on %s lacks the task or its plan", ev.Model, ev.Target)
			}
		}
	}
	if len(d.Standings) != 3 || d.Winner != d.Standings[0].Label || d.Reason == "" || !strings.Contains(d.Reason, "Plan "+d.Winner) {
		t.Errorf("winner %q, reason %q, standings %+v", d.Winner, d.Reason, d.Standings)
	}
	for _, s := range d.Standings {
		if s.Scores != 2 {
			t.Errorf("plan %s counted %d votes, want 2", s.Label, s.Scores)
		}
	}
	var casts int
	for _, ev := range p.all() {
		if ev.Kind == quorum.VoteCast {
			casts++
		}
	}
	if casts != 6 || p.overlap.Load() {
		t.Errorf("%d VoteCast events (want 6), concurrent progress %v", casts, p.overlap.Load())
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatal(err)
	}
}

func TestPlanVotesRunAllAtOnce(t *testing.T) {
	proposals, votes := newBarrier(3), newBarrier(6)
	wrap := func(id string) sim.Model {
		return simquorum.Model(id).With(
			sim.Rule{Match: simquorum.Is(quorum.PhasePropose), Respond: func(t sim.Turn) sim.Response { proposals.wait(); return simquorum.Proposal(t) }},
			sim.Rule{Match: simquorum.Is(quorum.PhaseVote), Respond: func(t sim.Turn) sim.Response { votes.wait(); return simquorum.Vote(t) }},
		)
	}
	e := newEnv(t, wrap("m1"), wrap("m2"), wrap("m3"))
	// Early stop off: it starts votes in waves (TestEarlyStop…).
	d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: []string{"m1", "m2", "m3"}, NoEarlyStop: true})
	if err != nil || d.Degraded {
		t.Fatalf("Plan: %v %+v", err, d.Failures)
	}
	// Each vote blocks until all six have started: had plans been voted on
	// one after another, at most two could ever meet.
	if proposals.max() != 3 || votes.max() != 6 {
		t.Errorf("most turns at once: proposals %d, votes %d; want 3 and 6", proposals.max(), votes.max())
	}
	if n := e.srv.MaxConcurrentTurns(); n < 6 {
		t.Errorf("the server saw at most %d turns at once", n)
	}
}

// scripted returns models whose plans are titled "plan by <id>" and whose
// votes come from scores[voter][author]; a negative score is a reply with
// no usable score.
func scripted(scores map[string]map[string]int) []sim.Model {
	author := regexp.MustCompile(`plan by (m\w+)`)
	var out []sim.Model
	for voter := range scores {
		out = append(out, sim.Model{ID: voter, Respond: sim.Rules(nil,
			sim.Rule{Match: simquorum.Is(quorum.PhasePropose), Respond: func(t sim.Turn) sim.Response {
				return sim.Text(fmt.Sprintf(`{"title":"plan by %s","steps":["one","two"],"risks":["none"]}`, t.Model))
			}},
			sim.Rule{Match: simquorum.Is(quorum.PhaseVote), Respond: func(t sim.Turn) sim.Response {
				m := author.FindStringSubmatch(t.Prompt)
				if m == nil {
					return sim.Fail("query", "no plan in the prompt")
				}
				s := scores[t.Model][m[1]]
				if s < 0 {
					return sim.Text("Hard to say.")
				}
				return sim.Text(fmt.Sprintf(`{"score": %d, "reasoning": "scripted"}`, s))
			}},
		)})
	}
	slices.SortFunc(out, func(a, b sim.Model) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func TestPlanTieBreaks(t *testing.T) {
	cases := []struct {
		name   string
		models []string
		scores map[string]map[string]int
		winner string // model
		reason string
	}{{
		name:   "mean score",
		models: []string{"ma", "mb", "mc"},
		scores: map[string]map[string]int{"ma": {"mb": 6, "mc": 9}, "mb": {"ma": 5, "mc": 8}, "mc": {"ma": 7, "mb": 7}},
		winner: "mc", reason: "highest mean score, 8.50",
	}, {
		// Means tie at 8 (ma: 6 and 10, mb: 8 and 8); Borda gives ma 2
		// and mb 1. mb comes first in the configured order, so only the
		// Borda count can make ma win.
		name:   "Borda count",
		models: []string{"mb", "ma", "mc"},
		scores: map[string]map[string]int{"ma": {"mb": 8, "mc": 6}, "mb": {"ma": 6, "mc": 5}, "mc": {"ma": 10, "mb": 8}},
		winner: "ma", reason: "won on Borda count, 2.00 against 1.00",
	}, {
		// ma and mb tie on mean (8) and Borda (0.5); mb's vote on ma is
		// unusable, so ma has one failed vote and mb wins though ma comes
		// first in the configured order.
		name:   "failed votes",
		models: []string{"ma", "mb", "mc"},
		scores: map[string]map[string]int{"ma": {"mb": 8, "mc": 9}, "mb": {"ma": -1, "mc": 1}, "mc": {"ma": 8, "mb": 8}},
		winner: "mb", reason: "fewer failed votes, 0 against 1",
	}, {
		name:   "configured order",
		models: []string{"mc", "ma", "mb"},
		scores: map[string]map[string]int{"ma": {"mb": 7, "mc": 7}, "mb": {"ma": 7, "mc": 7}, "mc": {"ma": 7, "mb": 7}},
		winner: "mc", reason: "earlier of the two in the configured model order",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 2 { // the same inputs always pick the same plan
				e := newEnv(t, scripted(c.scores)...)
				d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: c.models})
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				if d.Standings[0].Model != c.winner || !strings.Contains(d.Reason, c.reason) {
					t.Fatalf("winner %s (%q), want %s (%q); standings %+v", d.Standings[0].Model, d.Reason, c.winner, c.reason, d.Standings)
				}
			}
		})
	}
}

func TestPlanMalformedVotes(t *testing.T) {
	vote := func(text string) func(sim.Turn) sim.Response { return sim.Always(sim.Text(text)) }
	e := newEnv(t,
		override("m-prose", quorum.PhaseVote, vote("Solid plan overall. I'd give it 7/10 because the rollback is clear.")),
		override("m-range", quorum.PhaseVote, vote(`{"score": 14, "reasoning": "amazing"}`)),
		override("m-fence", quorum.PhaseVote, vote("Here you go:\n```json\n{\"rating\": \"8/10\", \"rationale\": \"good\"}\n```")),
		simquorum.Model("m-good"),
	)
	d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: []string{"m-prose", "m-range", "m-fence", "m-good"}})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	for _, v := range d.Votes {
		switch v.Voter {
		case "m-prose":
			if v.Score != 7 || v.Error != "" || !slices.ContainsFunc(v.Problems, func(s string) bool { return strings.Contains(s, "no JSON") }) {
				t.Errorf("prose vote %+v", v)
			}
		case "m-range":
			if v.Score != 0 || !strings.Contains(v.Error, "could not be parsed") || !slices.ContainsFunc(v.Problems, func(s string) bool { return strings.Contains(s, "outside 1–10") }) {
				t.Errorf("out-of-range vote %+v", v)
			}
		case "m-fence":
			if v.Score != 8 || v.Reasoning != "good" || v.Error != "" {
				t.Errorf("fenced vote %+v", v)
			}
		}
	}
	// m-range cast no usable vote: it drops out of the vote phase and the
	// run is degraded, with one unparsable failure per vote.
	n := 0
	for _, f := range d.Failures {
		if f.Model == "m-range" && f.Phase == quorum.PhaseVote && f.Kind == "unparsable" && f.Target != "" {
			n++
		}
	}
	if n != 3 || !d.Degraded || !slices.Contains(d.Phases[1].Dropped, "m-range") {
		t.Errorf("failures %+v, degraded %v, dropped %v", d.Failures, d.Degraded, d.Phases[1].Dropped)
	}
	failed := 0
	for _, s := range d.Standings {
		failed += s.Failed
	}
	if failed != 3 {
		t.Errorf("failed votes counted %d, want 3", failed)
	}
}

func TestPlanModelFails(t *testing.T) {
	t.Run("propose", func(t *testing.T) {
		e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"),
			override("m3", quorum.PhasePropose, sim.Always(sim.Text("I have no plan."))),
			override("m4", quorum.PhasePropose, sim.Always(sim.Fail("query", "simulated: m4 crashed"))))
		d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: []string{"m1", "m2", "m3", "m4"}})
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		if len(d.Proposals) != 2 || len(d.Votes) != 2 || !d.Degraded {
			t.Fatalf("proposals=%d votes=%d degraded=%v", len(d.Proposals), len(d.Votes), d.Degraded)
		}
		if f, ok := failureOf(d.Failures, "m3", quorum.PhasePropose); !ok || f.Kind != "unparsable" {
			t.Errorf("m3 failure = %+v", f)
		}
		if f, ok := failureOf(d.Failures, "m4", quorum.PhasePropose); !ok || !strings.Contains(f.Error, "m4 crashed") {
			t.Errorf("m4 failure = %+v", f)
		}
		for _, v := range d.Votes {
			if v.Voter == "m3" || v.Voter == "m4" {
				t.Errorf("a model without a plan voted: %+v", v)
			}
		}
		e.requireClean(t)
	})
	t.Run("vote", func(t *testing.T) {
		e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"),
			override("m3", quorum.PhaseVote, sim.Always(sim.Fail("query", "simulated: m3 vote failed"))))
		d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: []string{"m1", "m2", "m3"}})
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		if len(d.Votes) != 6 || len(d.Standings) != 3 || !d.Degraded {
			t.Fatalf("votes=%d standings=%d degraded=%v", len(d.Votes), len(d.Standings), d.Degraded)
		}
		for _, v := range d.Votes {
			if v.Voter == "m3" && (!strings.Contains(v.Error, "m3 vote failed") || v.Score != 0) {
				t.Errorf("m3's vote %+v", v)
			}
		}
		e.requireClean(t)
	})
	t.Run("too few voters", func(t *testing.T) {
		e := newEnv(t, simquorum.Model("m1"),
			override("m2", quorum.PhaseVote, sim.Always(sim.Fail("query", "simulated: m2 vote failed"))))
		d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: []string{"m1", "m2"}})
		var tf *quorum.TooFewError
		if !errors.As(err, &tf) || tf.Phase != quorum.PhaseVote || !strings.Contains(err.Error(), "m2 vote failed") {
			t.Fatalf("err = %v", err)
		}
		if d == nil || len(d.Proposals) != 2 || d.Winner != "" {
			t.Fatalf("partial result %+v", d)
		}
	})
}

func TestPlanHangingVoterTimesOut(t *testing.T) {
	e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"),
		override("m3", quorum.PhaseVote, sim.Always(sim.Hang())))
	d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: []string{"m1", "m2", "m3"}, PhaseTimeout: time.Second})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	e.requireClean(t)
	n := 0
	for _, f := range d.Failures {
		if f.Model == "m3" && f.Kind == "timeout" {
			n++
		}
	}
	if n != 2 || d.Winner == "" {
		t.Errorf("timeouts = %d (want 2), winner %q", n, d.Winner)
	}
}

func TestPlanCancel(t *testing.T) {
	started := make(chan struct{}, 16)
	hang := func(sim.Turn) sim.Response { started <- struct{}{}; return sim.Hang() }
	ids := []string{"m1", "m2", "m3"}
	var models []sim.Model
	for _, id := range ids {
		models = append(models, override(id, quorum.PhaseVote, hang))
	}
	e := newEnv(t, models...)
	ctx, cancel := context.WithCancel(ctxGuard(t))
	defer cancel()
	go func() {
		for range 6 {
			<-started
		}
		cancel()
	}()
	// Early stop off: all six votes start at once.
	_, err := quorum.Plan(ctx, e.b, task, quorum.Config{Models: ids, NoEarlyStop: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	e.requireClean(t)
}

func TestPlanIsDeterministic(t *testing.T) {
	var got []string
	for range 2 {
		e := newEnv(t, participants()...)
		d, err := quorum.Plan(ctxGuard(t), e.b, task, quorum.Config{Models: simquorum.Participants})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(struct {
			S []quorum.Standing
			W string
			V []float64
		}{d.Standings, d.Reason, scoresOf(d.Votes)})
		got = append(got, string(b))
	}
	if got[0] != got[1] {
		t.Errorf("two identical runs differ:\n%s\n%s", got[0], got[1])
	}
}

func scoresOf(vs []quorum.Vote) []float64 {
	var out []float64
	for _, v := range vs {
		out = append(out, v.Score)
	}
	return out
}

// A plan cancelled in the vote phase keeps the votes that came in and the
// standings they make, and names no winner.
func TestPlanCancelKeepsVotes(t *testing.T) {
	e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"), override("m3", quorum.PhaseVote, sim.Always(sim.Hang())))
	ctx, cancel := context.WithCancel(ctxGuard(t))
	defer cancel()
	p, err := quorum.Plan(ctx, e.b, task, quorum.Config{Models: []string{"m1", "m2", "m3"}, Progress: cancelWhen(quorum.PhaseVote, 4, cancel)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	scored := 0
	for _, v := range p.Votes {
		if v.Score > 0 {
			scored++
		}
	}
	if len(p.Proposals) != 3 || scored != 4 || len(p.Standings) != 3 || p.Standings[0].Scores == 0 || p.Winner != "" || p.Reason != "" {
		t.Errorf("proposals %d, scored votes %d, standings %+v, winner %q", len(p.Proposals), scored, p.Standings, p.Winner)
	}
	e.requireClean(t)
}
