package quorum_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// panel is a scripted panel of models for early stop: each model's answer
// or plan has a hidden quality, and each judge scores what it is shown at
// that quality plus its own bias for that author (seeded), so panels have
// clear leaders, close races and ties. The backend answers at once, in
// process, so hundreds of panels run in a test.
type panel struct {
	quality map[string]int
	bias    map[[2]string]int

	mu    sync.Mutex
	turns int
}

func newPanel(seed uint64, models []string) *panel {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p := &panel{quality: map[string]int{}, bias: map[[2]string]int{}}
	for _, m := range models {
		p.quality[m] = 2 + rng.IntN(8)
		for _, o := range models {
			p.bias[[2]string{m, o}] = rng.IntN(5) - 2
		}
	}
	return p
}

func (p *panel) score(judge, author string) int {
	return min(10, max(1, p.quality[author]+p.bias[[2]string{judge, author}]))
}

func (p *panel) Open(_ context.Context, o quorum.OpenOptions) (quorum.Conversation, error) {
	return &panelTurn{p: p, model: o.Model}, nil
}

type panelTurn struct {
	p     *panel
	model string
}

var (
	quotedRE = regexp.MustCompile(`(?s)<<<BEGIN (RESPONSE|PLAN) (\S+) \S+>>>\n(.*?)\n<<<END`)
	authorRE = regexp.MustCompile(`written by (\S+)\.`)
)

func (t *panelTurn) Send(_ context.Context, prompt string, _ func(string)) (quorum.Reply, error) {
	t.p.mu.Lock()
	t.p.turns++
	t.p.mu.Unlock()
	quoted := quotedRE.FindAllStringSubmatch(prompt, -1)
	switch {
	case strings.Contains(prompt, "<<<BEGIN REVIEWS"): // the synthesis
		return quorum.Reply{Text: "## Conclusion\nDone.\n## Key points\n- a\n## Consensus\n- b\n## Disagreements\n- none"}, nil
	case len(quoted) > 0 && quoted[0][1] == "PLAN": // a vote on one plan
		author := authorRE.FindStringSubmatch(quoted[0][3])[1]
		return quorum.Reply{Text: fmt.Sprintf(`{"score": %d, "reasoning": "r"}`, t.p.score(t.model, author))}, nil
	case len(quoted) > 0: // a peer review
		var reviews []string
		for _, q := range quoted {
			author := authorRE.FindStringSubmatch(q[3])[1]
			reviews = append(reviews, fmt.Sprintf(`{"response": %q, "score": %d, "strengths": ["s"], "weaknesses": ["w"]}`, q[2], t.p.score(t.model, author)))
		}
		return quorum.Reply{Text: `{"reviews": [` + strings.Join(reviews, ", ") + `]}`}, nil
	case strings.Contains(strings.ToLower(prompt), "plan"): // a proposal
		b, _ := json.Marshal(map[string]any{"title": "Plan written by " + t.model + ".", "steps": []string{"do it"}, "risks": []string{}})
		return quorum.Reply{Text: string(b)}, nil
	}
	return quorum.Reply{Text: "An answer written by " + t.model + "."}, nil
}

func (t *panelTurn) Close(context.Context) error { return nil }

func panelModels(n int) []string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = "m" + strconv.Itoa(i+1)
	}
	return ms
}

// earlyStopRun runs one panel's discussion or plan with early stop on or
// off and returns the winner's model and the turns it took.
func earlyStopRun(t testing.TB, plan bool, seed uint64, n int, noEarlyStop bool) (winner string, turns int, res *quorum.Premium) {
	t.Helper()
	ms := panelModels(n)
	p := newPanel(seed, ms)
	cfg := quorum.Config{Models: ms, NoEarlyStop: noEarlyStop, MaxConcurrency: n * n}
	if plan {
		r, err := quorum.Plan(context.Background(), p, "Ship the release.", cfg)
		if err != nil {
			t.Fatalf("panel %d, %d models: Plan: %v", seed, n, err)
		}
		return r.Standings[0].Model, p.turns, r.Premium
	}
	r, err := quorum.Discuss(context.Background(), p, "Which release first?", cfg)
	if err != nil {
		t.Fatalf("panel %d, %d models: Discuss: %v", seed, n, err)
	}
	return r.Standings[0].Model, p.turns, r.Premium
}

// Early stop must never change the winner: across many scripted panels of
// 3, 5 and 7 models, a discussion's and a plan's winner with early stop is
// the winner of the full run, and early stop does save turns, each turn it
// did not start counted in Premium.Skipped.
func TestEarlyStopKeepsTheWinner(t *testing.T) {
	for _, plan := range []bool{false, true} {
		for _, n := range []int{3, 5, 7} {
			saved := 0
			for seed := range uint64(40) {
				full, fullTurns, _ := earlyStopRun(t, plan, seed, n, true)
				early, earlyTurns, prem := earlyStopRun(t, plan, seed, n, false)
				if early != full {
					t.Errorf("plan=%v, %d models, panel %d: early stop elected %s, the full run %s", plan, n, seed, early, full)
				}
				if earlyTurns+prem.Skipped != fullTurns {
					t.Errorf("plan=%v, %d models, panel %d: %d turns + %d skipped, the full run took %d", plan, n, seed, earlyTurns, prem.Skipped, fullTurns)
				}
				if prem.Skipped > 0 && !strings.Contains(prem.SkippedWhy, "could change that") {
					t.Errorf("skipped %d without saying why: %q", prem.Skipped, prem.SkippedWhy)
				}
				saved += prem.Skipped
			}
			if saved == 0 {
				t.Errorf("plan=%v, %d models: early stop saved no turn in 40 panels", plan, n)
			}
		}
	}
}

// BenchmarkEarlyStop reports, for a discussion and a plan of 3, 5 and 7
// models over 100 scripted panels, the premium requests (every model at
// multiplier 1) with early stop off and on, and the winners it changed
// (must be 0).
func BenchmarkEarlyStop(b *testing.B) {
	for _, plan := range []bool{false, true} {
		kind := "discuss"
		if plan {
			kind = "plan"
		}
		for _, n := range []int{3, 5, 7} {
			b.Run(fmt.Sprintf("%s/models=%d", kind, n), func(b *testing.B) {
				var off, on, changed float64
				for range b.N {
					off, on, changed = 0, 0, 0
					for seed := range uint64(100) {
						fw, _, fp := earlyStopRun(b, plan, seed, n, true)
						ew, _, ep := earlyStopRun(b, plan, seed, n, false)
						off += fp.Used
						on += ep.Used
						if fw != ew {
							changed++
						}
					}
				}
				b.ReportMetric(off/100, "premium-off/run")
				b.ReportMetric(on/100, "premium-on/run")
				b.ReportMetric(100*(off-on)/off, "%saved")
				b.ReportMetric(changed, "winners-changed")
			})
		}
	}
}
