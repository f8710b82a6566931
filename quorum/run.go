package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"

	"golang.org/x/sync/semaphore"
)

// run is the machinery every strategy (Discuss, Plan, Debate, Review)
// shares: the run's context and limits, the session semaphore, progress,
// phases of concurrent calls, the moderator's phase with substitutes, and
// the bookkeeping of calls, failures, phases and usage into the result's
// Outcome.
//
// Phases run one after another on the caller's goroutine; within a phase
// every model call runs on its own goroutine, bounded by the semaphore.
// Results and failures are recorded after the phase, in task order, so the
// result does not depend on which call finished first.
type run struct {
	s      *settings
	b      Backend
	ctx    context.Context // the run: the caller's context with Config.Timeout
	cancel context.CancelFunc
	sem    *semaphore.Weighted
	ev     *emitter
	start  time.Time
	out    *Outcome
	budget *budget

	failures []*ModelError
}

func newRun(ctx context.Context, b Backend, s *settings, out *Outcome) *run {
	start := time.Now()
	cause := fmt.Errorf("%w: the run took longer than Config.Timeout (%v); raise it, or lower Config.PhaseTimeout so slow models are dropped sooner", ErrTimeout, s.Timeout)
	rctx, cancel := context.WithTimeoutCause(ctx, s.Timeout, cause)
	out.StartedAt = start
	out.UsageByModel = make(map[string]Usage)
	out.Premium = &Premium{Estimate: s.estimate, Cap: s.MaxPremium, LeftOut: s.estimate.LeftOut}
	return &run{
		s: s, b: b, ctx: rctx, cancel: cancel, start: start, out: out,
		sem:    semaphore.NewWeighted(int64(s.MaxConcurrency)),
		ev:     newEmitter(s.Progress, s.Transcript),
		budget: newBudget(s.MaxPremium, s.Multipliers),
	}
}

// task is one model call: a fresh session, one prompt, closed afterwards.
type task struct {
	model, target  string
	system, prompt string
}

// result is a task's outcome. err is nil or a *ModelError.
type result struct {
	task
	reply   Reply
	elapsed time.Duration
	err     *ModelError
	kind    string // outcome kind: "ok" or a Failure kind
	call    Call
}

// cost is the TurnCost a result's part records.
func (res result) cost() TurnCost {
	return TurnCost{ElapsedMS: res.elapsed.Milliseconds(), Usage: res.reply.Usage}
}

// phaseRun is one phase in progress.
type phaseRun struct {
	r      *run
	phase  Phase
	report PhaseReport
	start  time.Time
}

// askEveryModel opens phase p and puts the same prompt, rendered from t
// and data, to every participant at once: the first phase of a run.
func (r *run) askEveryModel(p Phase, t *template.Template, data any, system string) (*phaseRun, []result, error) {
	prompt, err := render(t, p, data)
	if err != nil {
		return nil, nil, err
	}
	tasks := make([]task, len(r.s.Models))
	for i, m := range r.s.Models {
		tasks[i] = task{model: m, system: system, prompt: prompt}
	}
	ph := r.startPhase(p, r.s.Models)
	return ph, ph.do(tasks), nil
}

// firstReplies are what the first phase leaves for the rest of a run: the
// usable replies, each under the anonymous label it was dealt.
type firstReplies[T any] struct {
	// byLabel are the records of the replies, in label order; cands are
	// the same as candidates for the ranking.
	byLabel []T
	cands   []candidate
	// models are the models still in the run, in configured order.
	models []string
	// nonce is the delimiter nonce of every later prompt, derived from the
	// topic and every usable reply.
	nonce string
}

// closeFirstPhase ends the first phase (answers or proposals) the same way
// for Discuss and Plan: it records each failed call, keeps the replies
// usable accepts (usable records its own failures; nil accepts all) and
// finishes the phase. Then it deals labels in a seeded order (see shuffle)
// and hands each kept reply to keep, in configured model order, for the
// result to hold; only then does it check that the run may go on (its
// context has not ended, enough models are left), so that a run that
// failed or was cancelled still holds the replies that came in. It is a
// function, not a method, because methods cannot have type parameters.
func closeFirstPhase[T any](r *run, ph *phaseRun, topic string, results []result, usable func(result) bool, keep func(res result, label string) T) (firstReplies[T], error) {
	var f firstReplies[T]
	kept, dropped := ph.collect(results, usable)
	ph.finish(dropped)
	perm := shuffle(len(kept), append([]string{topic}, r.s.Models...)...)
	f.byLabel = make([]T, len(kept))
	f.cands = make([]candidate, len(kept))
	texts := make([]string, 1+len(kept))
	texts[0] = topic
	for i, res := range kept {
		l := label(perm[i])
		f.byLabel[perm[i]] = keep(res, l)
		f.cands[perm[i]] = candidate{label: l, model: res.model, order: slices.Index(r.s.Models, res.model)}
		texts[1+perm[i]] = res.reply.Text
		f.models = append(f.models, res.model)
	}
	if err := r.stopped(ph.phase); err != nil {
		return f, err
	}
	if err := r.tooFew(ph.phase, f.models, r.s.MinModels); err != nil {
		return f, err
	}
	f.nonce = nonceOf(texts...)
	return f, nil
}

func (r *run) startPhase(p Phase, models []string) *phaseRun {
	now := time.Now()
	r.ev.emit(Progress{Kind: PhaseStarted, Phase: p, Text: strings.Join(models, ", ")})
	return &phaseRun{r: r, phase: p, start: now, report: PhaseReport{
		Phase: p, StartMS: now.Sub(r.start).Milliseconds(), Models: append([]string{}, models...), Dropped: []string{},
	}}
}

// finish closes the phase, naming the models that dropped out of it.
func (pr *phaseRun) finish(dropped []string) {
	el := time.Since(pr.start)
	pr.report.ElapsedMS = el.Milliseconds()
	pr.report.Dropped = append(pr.report.Dropped, dropped...)
	pr.r.out.Phases = append(pr.r.out.Phases, pr.report)
	text := ""
	if len(dropped) > 0 {
		text = "dropped: " + strings.Join(dropped, ", ")
	}
	pr.r.ev.emit(Progress{Kind: PhaseFinished, Phase: pr.phase, Elapsed: el, Text: text})
}

// end finishes the phase, naming the models that dropped out of it, and
// tells whether the run can go on: not when its context has ended, nor when
// left, the models still in the run, are fewer than Config.MinModels.
func (pr *phaseRun) end(dropped, left []string) error {
	pr.finish(dropped)
	if err := pr.r.stopped(pr.phase); err != nil {
		return err
	}
	return pr.r.tooFew(pr.phase, left, pr.r.s.MinModels)
}

// collect sorts a phase's results: each failed call is recorded as its
// model's failure, and the replies usable accepts are kept, in task
// order (usable records its own failures; nil accepts every reply).
// dropped names the models of the rest.
func (pr *phaseRun) collect(results []result, usable func(result) bool) (kept []result, dropped []string) {
	for _, res := range results {
		switch {
		case res.err != nil:
			pr.r.fail(res.err, res.kind)
		case usable == nil || usable(res):
			kept = append(kept, res)
			continue
		}
		dropped = append(dropped, res.model)
	}
	return kept, dropped
}

// do runs tasks concurrently under one Config.PhaseTimeout and returns
// their results in task order, after recording each call.
func (pr *phaseRun) do(tasks []task) []result { return pr.doIn(pr.r.ctx, tasks) }

// doIn is do under parent, a context within the run's: an agent's shell
// vote runs in the permission request's context.
func (pr *phaseRun) doIn(parent context.Context, tasks []task) []result {
	r := pr.r
	cause := fmt.Errorf("%w: no reply within the phase timeout (Config.PhaseTimeout, %v) of the %s phase", ErrTimeout, r.s.PhaseTimeout, pr.phase)
	ctx, cancel := context.WithTimeoutCause(parent, r.s.PhaseTimeout, cause)
	defer cancel()
	results := make([]result, len(tasks))
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Go(func() { results[i] = r.call(ctx, pr.phase, t) })
	}
	wg.Wait()
	for i := range results {
		r.recordCall(results[i].call)
	}
	return results
}

// call runs one task: wait for a session slot, open a conversation, send
// the prompt while streaming deltas to progress, and close the
// conversation, also after cancellation.
func (r *run) call(ctx context.Context, p Phase, t task) result {
	res := result{task: t, kind: "ok"}
	// A turn of an attempt (its reviewers', its shell votes) names the
	// attempt in progress and in the result's calls; the task the caller
	// matches results by keeps its own target.
	t.target = r.labelled(t.target)
	res.call = Call{Phase: p, Model: t.model, Target: t.target, StartMS: time.Since(r.start).Milliseconds()}
	err := r.sem.Acquire(ctx, 1)
	// expired records whether ctx had ended when the failing step returned,
	// so that a deadline passing later (during Close) does not disguise a
	// real error as a timeout.
	expired := err != nil && ctx.Err() != nil
	var settle func(reported float64)
	if err == nil {
		// The cap is checked once the turn has its slot, so that turns
		// waiting for one do not hold premium requests they may never use.
		if settle, err = r.budget.reserve(t.model); err != nil {
			r.sem.Release(1)
			res.err, res.kind = &ModelError{Model: t.model, Phase: p, Target: t.target, Err: err}, "cap"
		}
	}
	if res.err == nil && err == nil {
		defer r.sem.Release(1)
		res.call.StartMS = time.Since(r.start).Milliseconds()
		r.ev.emit(Progress{Kind: ModelStarted, Phase: p, Model: t.model, Target: t.target, Text: t.prompt, System: t.system})
		started := time.Now()
		var conv Conversation
		conv, err = r.b.Open(ctx, OpenOptions{Model: t.model, SystemMessage: t.system})
		if err == nil && conv == nil {
			err = errors.New("quorum: the Backend's Open returned neither a conversation nor an error; fix the Backend")
		}
		if err == nil {
			res.reply, err = conv.Send(ctx, t.prompt, func(d string) {
				r.ev.emit(Progress{Kind: Delta, Phase: p, Model: t.model, Target: t.target, Text: d})
			})
		}
		res.elapsed = time.Since(started)
		settle(res.reply.Usage.Cost)
		expired = err != nil && ctx.Err() != nil
		if conv != nil {
			// The conversation must end on the provider's side even when ctx
			// has: a session left behind costs the user.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.s.CloseTimeout)
			if cerr := conv.Close(cctx); cerr != nil {
				res.call.CloseError = cerr.Error()
			}
			cancel()
		}
		if err == nil && strings.TrimSpace(res.reply.Text) == "" {
			err = ErrEmptyReply
		}
	}
	if err != nil && res.err == nil {
		res.err, res.kind = r.modelError(ctx, expired, p, t, err)
	}
	res.call.ElapsedMS = res.elapsed.Milliseconds()
	res.call.Outcome = res.kind
	res.call.Usage = res.reply.Usage
	if res.err != nil {
		res.call.Error = res.err.Err.Error()
	}
	u := res.reply.Usage
	ev := Progress{Kind: ModelFinished, Phase: p, Model: t.model, Target: t.target, Text: res.reply.Text, Elapsed: res.elapsed, Usage: &u}
	if res.err != nil {
		ev.Err = res.err
	}
	r.ev.emit(ev)
	return res
}

// modelError explains a failed call. When the call's context had ended
// (expired), the context's cause says why (a phase or run timeout, or the caller's
// cancellation) better than the provider's error does.
func (r *run) modelError(ctx context.Context, expired bool, p Phase, t task, err error) (*ModelError, string) {
	kind := "error"
	if expired {
		cause := context.Cause(ctx)
		switch {
		case errors.Is(cause, ErrTimeout):
			err, kind = fmt.Errorf("%w (%w)", cause, context.DeadlineExceeded), "timeout"
		default:
			err, kind = cause, "canceled"
		}
	} else if errors.Is(err, ErrEmptyReply) {
		kind = "empty"
	} else if errors.Is(err, ErrUnparsable) {
		kind = "unparsable"
	}
	return &ModelError{Model: t.model, Phase: p, Target: t.target, Err: err}, kind
}

func (r *run) recordCall(c Call) {
	r.out.Calls = append(r.out.Calls, c)
	r.out.Usage.Add(c.Usage)
	u := r.out.UsageByModel[c.Model]
	u.Add(c.Usage)
	r.out.UsageByModel[c.Model] = u
}

// fail records a model's failure in the result.
func (r *run) fail(e *ModelError, kind string) {
	r.failures = append(r.failures, e)
	r.out.Failures = append(r.out.Failures, Failure{Model: e.Model, Phase: e.Phase, Target: e.Target, Kind: kind, Error: e.Err.Error()})
}

// lastFailure returns the error of model's latest failure, for messages.
func (r *run) lastFailure(model string) string {
	for i := len(r.failures) - 1; i >= 0; i-- {
		if r.failures[i].Model == model {
			return r.failures[i].Err.Error()
		}
	}
	return "no reason recorded"
}

// unparsable records a reply that held nothing usable as a failure.
func (r *run) unparsable(p Phase, t task, problems []string) *ModelError {
	e := &ModelError{Model: t.model, Phase: p, Target: t.target, Err: fmt.Errorf("%w (%s)", ErrUnparsable, strings.Join(problems, "; "))}
	r.fail(e, "unparsable")
	return e
}

// stopped returns the run's error if it must stop: its context has ended
// (the caller cancelled, or Config.Timeout passed), or the cap refused a
// turn.
func (r *run) stopped(p Phase) error {
	if r.ctx.Err() == nil {
		if _, refused := r.budget.spent(); refused > 0 {
			return fmt.Errorf("%w: the run stopped in the %s phase with %s premium requests used of its cap of %s; raise --max-premium (Config.MaxPremium) to go further",
				ErrPremiumCap, p, premiumNum(r.usedPremium()), premiumNum(r.s.MaxPremium))
		}
		return nil
	}
	cause := context.Cause(r.ctx)
	if errors.Is(cause, ErrTimeout) {
		return fmt.Errorf("%w (stopped in the %s phase; %w)", cause, p, context.DeadlineExceeded)
	}
	return fmt.Errorf("quorum: the run was stopped in the %s phase: %w", p, cause)
}

// tooFew checks that enough models are left after phase p.
func (r *run) tooFew(p Phase, left []string, need int) error {
	if len(left) >= need {
		return nil
	}
	return &TooFewError{Phase: p, Need: need, Left: append([]string{}, left...), Failures: append([]*ModelError{}, r.failures...)}
}

// finish completes the Outcome, delivers the last event and waits until
// progress has caught up: nothing is delivered after the run returns.
func (r *run) finish(err error, degraded bool) {
	el := time.Since(r.start)
	r.out.ElapsedMS = el.Milliseconds()
	r.out.Premium.Used, r.out.Premium.Refused = r.budget.spent()
	r.out.Degraded = degraded || len(r.out.Failures) > 0 || r.out.Premium.Refused > 0
	if err != nil {
		r.out.Error = err.Error()
	}
	r.ev.emit(Progress{Kind: RunFinished, Elapsed: el, Err: err})
	r.ev.close(r.ctx, r.s.CloseTimeout)
	r.cancel()
	if r.out.Failures == nil {
		r.out.Failures = []Failure{}
	}
	if r.out.Phases == nil {
		r.out.Phases = []PhaseReport{}
	}
	if r.out.Calls == nil {
		r.out.Calls = []Call{}
	}
}

// models returns the models of tasks, each once, in first-seen order.
func modelsOf(tasks []task) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tasks {
		if !seen[t.model] {
			seen[t.model] = true
			out = append(out, t.model)
		}
	}
	return out
}

// usedPremium is what the run's turns have cost so far.
func (r *run) usedPremium() float64 {
	used, _ := r.budget.spent()
	return used
}

// skip records turns early stop did not start.
func (r *run) skip(n int, why string) {
	r.out.Premium.Skipped += n
	if r.out.Premium.SkippedWhy != "" {
		why = r.out.Premium.SkippedWhy + "; " + why
	}
	r.out.Premium.SkippedWhy = why
}
