package quorum_test

import (
	"context"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// timed is a simulated participant whose replies in each phase take a
// fixed time before the first token (and then stream at once).
func timed(id string, delays map[quorum.Phase]time.Duration) sim.Model {
	var rules []sim.Rule
	for _, r := range simquorum.Rules() {
		respond := r.Respond
		for phase, d := range delays {
			if r.Match(sim.Turn{Prompt: quorum.PromptMarker(phase)}) {
				r.Respond = func(t sim.Turn) sim.Response {
					rep := respond(t)
					rep.FirstTokenDelay, rep.ChunkDelay = d, 0
					return rep
				}
			}
		}
		rules = append(rules, r)
	}
	return sim.Model{ID: id, Respond: sim.Rules(simquorum.Answer, rules...)}
}

// reportRatios reports the wall time of b.N runs against the sum over
// their phases of each phase's slowest model (near 1 when a phase's calls
// run concurrently) and the sum of every call (near 1 when they run one
// after another), and the wall time per run.
func reportRatios(b *testing.B, wall, slowest, all time.Duration) {
	b.ReportMetric(float64(wall)/float64(slowest), "wall/sum-of-slowest")
	b.ReportMetric(float64(wall)/float64(all), "wall/sum-of-all")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms")
}

func benchClient(b *testing.B, models ...sim.Model) quorum.Backend {
	srv := sim.NewServer(sim.Options{Models: models})
	c, err := copilot.Connect(context.Background(), srv.Dial(), copilot.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return quorum.Copilot(c)
}

// BenchmarkDiscussPhasesRunConcurrently measures a discussion of three
// models whose replies take fixed times. If the calls of a phase run
// concurrently, a discussion takes about the sum over phases of each
// phase's slowest model (wall/sum-of-slowest near 1); run one after
// another they would take the sum of all (wall/sum-of-all near 1).
func BenchmarkDiscussPhasesRunConcurrently(b *testing.B) {
	ms := time.Millisecond
	answer := []time.Duration{40 * ms, 80 * ms, 120 * ms}
	review := []time.Duration{60 * ms, 30 * ms, 90 * ms}
	synth := 50 * ms
	ids := []string{"m1", "m2", "m3"}
	var models []sim.Model
	for i, id := range ids {
		models = append(models, timed(id, map[quorum.Phase]time.Duration{quorum.PhaseAnswer: answer[i], quorum.PhaseReview: review[i]}))
	}
	models = append(models, timed("mod", map[quorum.Phase]time.Duration{quorum.PhaseSynthesis: synth}))
	be := benchClient(b, models...)
	cfg := quorum.Config{Models: ids, Moderator: "mod"}
	slowest := max(answer[0], answer[1], answer[2]) + max(review[0], review[1], review[2]) + synth
	all := answer[0] + answer[1] + answer[2] + review[0] + review[1] + review[2] + synth

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		d, err := quorum.Discuss(context.Background(), be, question, cfg)
		if err != nil || d.Degraded {
			b.Fatalf("Discuss: %v %+v", err, d.Failures)
		}
	}
	reportRatios(b, time.Since(start), time.Duration(b.N)*slowest, time.Duration(b.N)*all)
}

// BenchmarkPlanVotesRunConcurrently is the same measure for planning: the
// six votes run at once, so the vote phase costs the slowest voter's one
// vote, not every vote in turn.
func BenchmarkPlanVotesRunConcurrently(b *testing.B) {
	ms := time.Millisecond
	propose := []time.Duration{40 * ms, 80 * ms, 120 * ms}
	vote := []time.Duration{30 * ms, 60 * ms, 90 * ms}
	ids := []string{"m1", "m2", "m3"}
	var models []sim.Model
	for i, id := range ids {
		models = append(models, timed(id, map[quorum.Phase]time.Duration{quorum.PhasePropose: propose[i], quorum.PhaseVote: vote[i]}))
	}
	be := benchClient(b, models...)
	cfg := quorum.Config{Models: ids}
	slowest := max(propose[0], propose[1], propose[2]) + max(vote[0], vote[1], vote[2])
	all := propose[0] + propose[1] + propose[2] + 2*(vote[0]+vote[1]+vote[2])

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		p, err := quorum.Plan(context.Background(), be, task, cfg)
		if err != nil || p.Degraded {
			b.Fatalf("Plan: %v %+v", err, p.Failures)
		}
	}
	reportRatios(b, time.Since(start), time.Duration(b.N)*slowest, time.Duration(b.N)*all)
}

// BenchmarkDebateSidesRunConcurrently is the same measure for a debate:
// in the opening and in every round both sides run at once, so a phase
// costs its slowest debater's turn, and the debate the sum of those plus
// the verdict. The rounds held depend on the simulated opponent's rulings;
// both figures count the phases that ran. (Round delays apply to every
// round: the simulated models match round prompts by one rule.)
func BenchmarkDebateSidesRunConcurrently(b *testing.B) {
	ms := time.Millisecond
	opening := []time.Duration{40 * ms, 80 * ms, 120 * ms}
	round := []time.Duration{60 * ms, 30 * ms, 90 * ms}
	verdict := 50 * ms
	ids := []string{"m1", "m2", "m3"}
	var models []sim.Model
	for i, id := range ids {
		models = append(models, timed(id, map[quorum.Phase]time.Duration{quorum.PhaseOpening: opening[i], quorum.PhaseRound(1): round[i]}))
	}
	models = append(models, timed("mod", map[quorum.Phase]time.Duration{quorum.PhaseVerdict: verdict}))
	be := benchClient(b, models...)
	cfg := quorum.Config{Models: ids, Moderator: "mod"}

	b.ResetTimer()
	start := time.Now()
	var slowest, all time.Duration
	for range b.N {
		d, err := quorum.Debate(context.Background(), be, claim, cfg)
		if err != nil || d.Degraded {
			b.Fatalf("Debate: %v %+v", err, d.Failures)
		}
		n := time.Duration(d.End.RoundsHeld)
		slowest += max(opening[0], opening[1], opening[2]) + n*max(round[0], round[1], round[2]) + verdict
		all += opening[0] + opening[1] + opening[2] + n*(round[0]+round[1]+round[2]) + verdict
	}
	reportRatios(b, time.Since(start), slowest, all)
}

// BenchmarkReviewModelsRunConcurrently is the same measure for a review:
// one phase, every model at once, then merging.
func BenchmarkReviewModelsRunConcurrently(b *testing.B) {
	ms := time.Millisecond
	inspect := []time.Duration{40 * ms, 80 * ms, 120 * ms}
	ids := []string{"m1", "m2", "m3"}
	var models []sim.Model
	for i, id := range ids {
		models = append(models, timed(id, map[quorum.Phase]time.Duration{quorum.PhaseInspect: inspect[i]}))
	}
	be := benchClient(b, models...)
	cfg := quorum.Config{Models: ids}
	slowest := max(inspect[0], inspect[1], inspect[2])
	all := inspect[0] + inspect[1] + inspect[2]

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		r, err := quorum.Review(context.Background(), be, change, cfg)
		if err != nil || r.Degraded {
			b.Fatalf("Review: %v %+v", err, r.Failures)
		}
	}
	reportRatios(b, time.Since(start), time.Duration(b.N)*slowest, time.Duration(b.N)*all)
}

// BenchmarkParseVerdict measures parsing a typical review reply.
func BenchmarkParseVerdict(b *testing.B) {
	text := "Here is my review.\n```json\n" + `{"reviews":[{"response":"A","score":7,"strengths":["clear"],"weaknesses":["thin"]},{"response":"B","score":"8/10","strengths":["deep"],"weaknesses":["long"]}],"ranking":["B","A"]}` + "\n```"
	labels := []string{"A", "B"}
	for range b.N {
		if _, _, ok := quorum.ParseVerdict(text, labels); !ok {
			b.Fatal("unusable")
		}
	}
}
