package quorum_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// A discussion when things go wrong: a model fails or hangs, the
// moderator fails, too few answer, the run is cancelled or times out, a
// Backend breaks its contract.

func TestDiscussModelFailsInAnswerPhase(t *testing.T) {
	e := newEnv(t,
		simquorum.Model("m1"), simquorum.Model("m2"),
		override("m3", quorum.PhaseAnswer, sim.Always(sim.Fail("rate_limit", "simulated: rate limit exceeded for m3"))),
	)
	d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}})
	if err != nil {
		t.Fatalf("Discuss: %v", err)
	}
	e.requireClean(t)
	f, ok := failureOf(d.Failures, "m3", quorum.PhaseAnswer)
	if !ok || f.Kind != "error" || !strings.Contains(f.Error, "rate limit exceeded for m3") {
		t.Fatalf("failure = %+v (found %v); failures %+v", f, ok, d.Failures)
	}
	if !d.Degraded || len(d.Answers) != 2 || len(d.Reviews) != 2 || len(d.Standings) != 2 {
		t.Errorf("degraded=%v answers=%d reviews=%d ranking=%d", d.Degraded, len(d.Answers), len(d.Reviews), len(d.Standings))
	}
	for _, r := range d.Reviews {
		if r.Reviewer == "m3" {
			t.Error("a model that failed to answer still reviewed")
		}
	}
	if d.Phases[0].Dropped[0] != "m3" {
		t.Errorf("answer phase dropped %v", d.Phases[0].Dropped)
	}
	if d.Synthesis == nil || d.Synthesis.Moderator != "m1" {
		t.Errorf("synthesis = %+v", d.Synthesis)
	}
}

func TestDiscussModelFailsInReviewPhase(t *testing.T) {
	e := newEnv(t,
		simquorum.Model("m1"), simquorum.Model("m2"),
		override("m3", quorum.PhaseReview, sim.Always(sim.Fail("query", "simulated: model m3 overloaded"))),
	)
	var p progress
	d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}, Progress: p.fn})
	if err != nil {
		t.Fatalf("Discuss: %v", err)
	}
	f, ok := failureOf(d.Failures, "m3", quorum.PhaseReview)
	if !ok || !strings.Contains(f.Error, "model m3 overloaded") {
		t.Fatalf("failure = %+v (found %v)", f, ok)
	}
	if len(d.Answers) != 3 || len(d.Reviews) != 2 || len(d.Standings) != 3 || !d.Degraded {
		t.Errorf("answers=%d reviews=%d ranking=%d degraded=%v", len(d.Answers), len(d.Reviews), len(d.Standings), d.Degraded)
	}
	// m3's answer is still ranked; the two answers it should have reviewed
	// each count one failed review.
	failed := 0
	for _, s := range d.Standings {
		failed += s.Failed
	}
	if failed != 2 {
		t.Errorf("failed reviews counted = %d, want 2", failed)
	}
	// The failure reached progress with its real error.
	var saw bool
	for _, ev := range p.all() {
		if ev.Kind == quorum.ModelFinished && ev.Model == "m3" && ev.Phase == quorum.PhaseReview && ev.Err != nil && strings.Contains(ev.Err.Error(), "overloaded") {
			saw = true
		}
	}
	if !saw {
		t.Error("no ModelFinished event carried m3's review error")
	}
}

func TestDiscussHangingModelTimesOut(t *testing.T) {
	e := newEnv(t,
		simquorum.Model("m1"), simquorum.Model("m2"),
		override("m3", quorum.PhaseAnswer, sim.Always(sim.Response{Text: "I will never finish", Hang: true})),
	)
	cfg := quorum.Config{Models: []string{"m1", "m2", "m3"}, PhaseTimeout: time.Second}
	d, err := quorum.Discuss(ctxGuard(t), e.b, question, cfg)
	if err != nil {
		t.Fatalf("Discuss: %v", err)
	}
	e.requireClean(t)
	f, ok := failureOf(d.Failures, "m3", quorum.PhaseAnswer)
	if !ok || f.Kind != "timeout" || !strings.Contains(f.Error, "Config.PhaseTimeout") || strings.Contains(f.Error, "--") {
		t.Fatalf("failure = %+v (found %v)", f, ok)
	}
	if len(d.Answers) != 2 || d.Synthesis == nil || !d.Degraded {
		t.Errorf("answers=%d synthesis=%v degraded=%v", len(d.Answers), d.Synthesis != nil, d.Degraded)
	}
	if e.srv.Calls("session.abort") == 0 {
		t.Error("the hanging turn was never aborted")
	}
}

func TestDiscussModeratorFails(t *testing.T) {
	failing := sim.Always(sim.Fail("query", "simulated: the moderator's model is unavailable"))
	t.Run("best-ranked participant takes over", func(t *testing.T) {
		e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"), simquorum.Model("m3"), override("mod", quorum.PhaseSynthesis, failing))
		var p progress
		d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}, Moderator: "mod", Progress: p.fn})
		if err != nil {
			t.Fatalf("Discuss: %v", err)
		}
		e.requireClean(t)
		s := d.Synthesis
		if s == nil || s.Moderator != d.Standings[0].Model || s.RequestedModerator != "mod" || !s.Substituted ||
			!strings.Contains(s.SubstitutionReason, "moderator's model is unavailable") || s.Conclusion == "" {
			t.Fatalf("synthesis = %+v, best-ranked %s", s, d.Standings[0].Model)
		}
		if !d.Degraded {
			t.Error("a replaced moderator does not mark the run degraded")
		}
		if !slices.Contains(p.kinds(), quorum.ModeratorReplaced) {
			t.Error("no ModeratorReplaced event")
		}
	})
	t.Run("moderator is the best-ranked participant", func(t *testing.T) {
		// Find who ranks first with healthy models, then make that model
		// the failing moderator: the second-ranked must take over.
		e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"), simquorum.Model("m3"))
		d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}})
		if err != nil {
			t.Fatal(err)
		}
		best, second := d.Standings[0].Model, d.Standings[1].Model
		var models []sim.Model
		for _, id := range []string{"m1", "m2", "m3"} {
			if id == best {
				models = append(models, override(id, quorum.PhaseSynthesis, failing))
			} else {
				models = append(models, simquorum.Model(id))
			}
		}
		e2 := newEnv(t, models...)
		d2, err := quorum.Discuss(ctxGuard(t), e2.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}, Moderator: best})
		if err != nil {
			t.Fatalf("Discuss: %v", err)
		}
		if d2.Synthesis == nil || d2.Synthesis.Moderator != second || !d2.Synthesis.Substituted {
			t.Fatalf("synthesis by %+v, want %s", d2.Synthesis, second)
		}
	})
	t.Run("moderator already dropped out", func(t *testing.T) {
		e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"),
			override("m3", quorum.PhaseAnswer, sim.Always(sim.Fail("query", "simulated: m3 cannot answer"))))
		d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}, Moderator: "m3"})
		if err != nil {
			t.Fatalf("Discuss: %v", err)
		}
		s := d.Synthesis
		if s == nil || s.Moderator != d.Standings[0].Model || !s.Substituted || !containsAll(s.SubstitutionReason, "m3 had dropped out of the run", "m3 cannot answer") {
			t.Fatalf("synthesis = %+v", s)
		}
		if _, tried := failureOf(d.Failures, "m3", quorum.PhaseSynthesis); tried {
			t.Error("a moderator that had dropped out was asked anyway")
		}
	})
	t.Run("nobody can synthesise", func(t *testing.T) {
		models := []sim.Model{override("mod", quorum.PhaseSynthesis, failing)}
		for _, id := range []string{"m1", "m2"} {
			models = append(models, override(id, quorum.PhaseSynthesis, failing))
		}
		e := newEnv(t, models...)
		d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2"}, Moderator: "mod"})
		var tf *quorum.TooFewError
		if !errors.Is(err, quorum.ErrTooFewModels) || !errors.As(err, &tf) || tf.Phase != quorum.PhaseSynthesis {
			t.Fatalf("err = %v, want a TooFewError in the synthesis phase", err)
		}
		if d == nil || d.Synthesis != nil || len(d.Answers) != 2 || d.Error == "" {
			t.Fatalf("partial result = %+v", d)
		}
		if len(tf.Failures) != 3 || !strings.Contains(err.Error(), "mod failed in the synthesis phase") {
			t.Errorf("error does not list each failure: %v", err)
		}
		e.requireClean(t)
	})
}

func TestDiscussCancelMidway(t *testing.T) {
	for _, phase := range []quorum.Phase{quorum.PhaseAnswer, quorum.PhaseReview} {
		t.Run(string(phase), func(t *testing.T) {
			started := make(chan struct{}, 16)
			hang := func(sim.Turn) sim.Response {
				started <- struct{}{}
				return sim.Response{Text: "thinking…", Hang: true}
			}
			ids := []string{"m1", "m2", "m3"}
			var models []sim.Model
			for _, id := range ids {
				models = append(models, override(id, phase, hang))
			}
			e := newEnv(t, models...)
			ctx, cancel := context.WithCancel(ctxGuard(t))
			defer cancel()
			go func() {
				for range ids {
					<-started
				}
				cancel() // every turn of the phase is in flight
			}()
			// Early stop off: every turn of the phase starts at once.
			d, err := quorum.Discuss(ctx, e.b, question, quorum.Config{Models: ids, NoEarlyStop: true})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if d == nil || d.Error == "" || d.Synthesis != nil {
				t.Fatalf("result = %+v", d)
			}
			for _, f := range d.Failures {
				if f.Kind != "canceled" {
					t.Errorf("failure after cancel: %+v", f)
				}
			}
			e.requireClean(t)
			// Every session was deleted, which stops its turn whether or
			// not the abort got there first.
			if c, dd := e.srv.Calls("session.create"), e.srv.Calls("session.delete"); dd != c {
				t.Errorf("%d sessions created, %d deleted", c, dd)
			}
		})
	}
}

func TestDiscussTooFewAnswers(t *testing.T) {
	e := newEnv(t,
		simquorum.Model("m1"),
		override("m2", quorum.PhaseAnswer, sim.Always(sim.Fail("query", "simulated: m2 is down"))),
		override("m3", quorum.PhaseAnswer, sim.Always(sim.Text("   "))),
	)
	d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}})
	var tf *quorum.TooFewError
	if !errors.As(err, &tf) || !errors.Is(err, quorum.ErrTooFewModels) {
		t.Fatalf("err = %v, want *TooFewError", err)
	}
	if tf.Phase != quorum.PhaseAnswer || !slices.Equal(tf.Left, []string{"m1"}) || len(tf.Failures) != 2 {
		t.Errorf("TooFewError = %+v", tf)
	}
	if !containsAll(err.Error(), "m2 is down", "m3 failed in the answer phase", "replied with no text") {
		t.Errorf("error does not name each failure: %v", err)
	}
	if f, _ := failureOf(d.Failures, "m3", quorum.PhaseAnswer); f.Kind != "empty" {
		t.Errorf("empty answer failure = %+v", f)
	}
	// The failed run still holds the answer that was given.
	if len(d.Answers) != 1 || d.Answers[0].Model != "m1" || d.Answers[0].Text == "" {
		t.Errorf("answers of the failed run = %+v", d.Answers)
	}
	e.requireClean(t)
}

func TestDiscussOverallTimeout(t *testing.T) {
	e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"),
		override("mod", quorum.PhaseSynthesis, sim.Always(sim.Hang())))
	d, err := quorum.Discuss(ctxGuard(t), e.b, question, quorum.Config{Models: []string{"m1", "m2"}, Moderator: "mod", Timeout: 2 * time.Second})
	if !errors.Is(err, quorum.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrTimeout and DeadlineExceeded", err)
	}
	if d == nil || len(d.Answers) != 2 {
		t.Fatalf("partial result = %+v", d)
	}
	e.requireClean(t)
}

// nothing is a Backend that breaks its contract: no conversation, no error.
type nothing struct{}

func (nothing) Open(context.Context, quorum.OpenOptions) (quorum.Conversation, error) {
	return nil, nil
}

func TestBackendBreakingItsContractDoesNotPanic(t *testing.T) {
	d, err := quorum.Discuss(ctxGuard(t), nothing{}, question, quorum.Config{Models: []string{"m1", "m2"}})
	if !errors.Is(err, quorum.ErrTooFewModels) || len(d.Failures) != 2 || !strings.Contains(d.Failures[0].Error, "fix the Backend") {
		t.Fatalf("err = %v, failures %+v", err, d.Failures)
	}
}

// cancelWhen returns a Progress that cancels the run once n turns of
// phase have finished without error, as Ctrl-C would after they came in.
func cancelWhen(phase quorum.Phase, n int, cancel context.CancelFunc) func(quorum.Progress) {
	done := 0
	return func(ev quorum.Progress) {
		if ev.Kind == quorum.ModelFinished && ev.Phase == phase && ev.Err == nil {
			if done++; done == n {
				cancel()
			}
		}
	}
}

// A run cancelled midway keeps what came in: in the answer phase the
// answers given (with their labels), in the review phase the reviews given
// and the ranking they make.
func TestDiscussCancelKeepsWhatCameIn(t *testing.T) {
	// m3 hangs in phase; the run is cancelled once the other two are done.
	discuss := func(t *testing.T, phase quorum.Phase) *quorum.DiscussResult {
		e := newEnv(t, simquorum.Model("m1"), simquorum.Model("m2"), override("m3", phase, sim.Always(sim.Hang())))
		ctx, cancel := context.WithCancel(ctxGuard(t))
		defer cancel()
		d, err := quorum.Discuss(ctx, e.b, question, quorum.Config{Models: []string{"m1", "m2", "m3"}, Progress: cancelWhen(phase, 2, cancel)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		e.requireClean(t)
		return d
	}
	t.Run("answers", func(t *testing.T) {
		d := discuss(t, quorum.PhaseAnswer)
		if len(d.Answers) != 2 || d.Answers[0].Model != "m1" || d.Answers[1].Model != "m2" || d.Answers[0].Label == "" || d.Answers[0].Text == "" {
			t.Errorf("answers = %+v", d.Answers)
		}
		if f, ok := failureOf(d.Failures, "m3", quorum.PhaseAnswer); !ok || f.Kind != "canceled" {
			t.Errorf("m3's failure = %+v", f)
		}
	})
	t.Run("reviews", func(t *testing.T) {
		d := discuss(t, quorum.PhaseReview)
		if len(d.Answers) != 3 || len(d.Reviews) != 2 || len(d.Standings) != 3 || !d.Ranked || d.Synthesis != nil {
			t.Errorf("answers %d, reviews %d, ranking %+v (ranked %v), synthesis %v", len(d.Answers), len(d.Reviews), d.Standings, d.Ranked, d.Synthesis)
		}
	})
}
