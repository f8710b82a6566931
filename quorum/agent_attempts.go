package quorum

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// This file runs several attempts at an approved plan at once
// (AgentConfig.Attempts): each attempt is the one-attempt execution
// (execute) on its own goroutine, with its own workspace, executor
// session, gate and bookkeeping, so that nothing the attempts record is
// shared while they run; the run's session semaphore, premium budget,
// progress and context are shared, so the cap and a cancellation apply
// to every attempt. Once all have ended, their bookkeeping is merged into
// the run's Outcome in label order and the models judge them
// (agent_judge.go).

// MaxAttempts bounds AgentConfig.Attempts: each attempt is an executor
// session and a workspace of its own.
const MaxAttempts = 26

type attemptKey struct{}

// AttemptLabel returns the label ("A", "B", …) of the attempt ctx belongs
// to, for an AgentConfig.Workspace func that names each attempt's
// workspace; ok is false outside an attempt of a run with several.
func AttemptLabel(ctx context.Context) (label string, ok bool) {
	label, ok = ctx.Value(attemptKey{}).(string)
	return label, ok
}

// settleAttempts checks Attempts and Executors and settles Attempts.
func (c *AgentConfig) settleAttempts() error {
	if c.Attempts < 0 {
		return invalid("AgentConfig.Attempts is negative (%d); use 1 (or 0) for one attempt, more to have several carry the plan out", c.Attempts)
	}
	for i, e := range c.Executors {
		if strings.TrimSpace(e) == "" {
			return invalid("AgentConfig.Executors[%d] is blank; name a model for each attempt", i)
		}
	}
	if len(c.Executors) > 0 {
		if c.Executor != "" {
			return invalid("AgentConfig.Executor and Executors are both set; name the executors in Executors alone")
		}
		if c.Attempts > 1 && c.Attempts != len(c.Executors) {
			return invalid("AgentConfig.Attempts is %d but Executors names %d; give one executor per attempt, or leave Attempts 0", c.Attempts, len(c.Executors))
		}
		c.Attempts = len(c.Executors)
		if c.Attempts == 1 {
			// One attempt: the run as with Executor.
			c.Executor, c.Executors = c.Executors[0], nil
		}
	}
	if c.Attempts > MaxAttempts {
		return invalid("AgentConfig.Attempts is %d; at most %d attempts can run", c.Attempts, MaxAttempts)
	}
	if c.Attempts == 0 {
		c.Attempts = 1
	}
	return nil
}

// attemptLetter labels attempt i: "A", "B", ….
func attemptLetter(i int) string { return string(rune('A' + i)) }

// forAttempt returns the settings attempt i carries the plan out with:
// its executor, its label, and shell votes of its own.
func (as *agentSettings) forAttempt(i int) *agentSettings {
	c := as.AgentConfig
	if len(c.Executors) > i {
		c.Executor = c.Executors[i]
	}
	return &agentSettings{AgentConfig: c, reviewers: as.reviewers, attempt: attemptLetter(i), of: as.Attempts}
}

// forAttempt returns a run for attempt label that records into out and
// shares r's context (carrying the label), slots, budget and progress.
func (r *run) forAttempt(label string, out *Outcome) *run {
	sub := *r
	sub.ctx = context.WithValue(r.ctx, attemptKey{}, label)
	out.UsageByModel = make(map[string]Usage)
	out.Premium = &Premium{}
	sub.out, sub.failures = out, nil
	return &sub
}

// attempts carries the approved plan out as as.Attempts attempts at once,
// then has the models judge them; the winner's work fills a.
func (r *run) attempts(a *AgentResult, as *agentSettings) error {
	n := as.Attempts
	subs := make([]*AgentResult, n)
	runs := make([]*run, n)
	sets := make([]*agentSettings, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		sets[i] = as.forAttempt(i)
		subs[i] = &AgentResult{Task: a.Task, Models: a.Models, Context: a.Context, Plan: a.Plan}
		runs[i] = r.forAttempt(sets[i].attempt, &subs[i].Outcome)
		wg.Go(func() { errs[i] = runs[i].execute(subs[i], sets[i]) })
	}
	wg.Wait()
	a.Stage = StageExecuted
	for i, sub := range subs {
		label := attemptLetter(i)
		r.mergeAttempt(label, runs[i])
		t := AgentAttempt{Label: label, Executor: sub.Executor, Stage: sub.Stage, Workspace: sub.Workspace, Sandbox: sub.Sandbox,
			Steps: sub.Steps, Actions: sub.Actions, Change: sub.Change, Reviews: sub.Reviews, Findings: sub.Findings}
		if t.Executor == "" {
			t.Executor = cmp.Or(sets[i].Executor, a.Plan.Author)
		}
		if errs[i] != nil {
			t.Error = errs[i].Error()
			if len(runs[i].failures) == 0 {
				// A failure no model turn recorded (the workspace could
				// not be made, say) still degrades the run.
				r.out.Failures = append(r.out.Failures, Failure{Model: t.Executor, Phase: PhaseExecute, Target: "attempt " + label, Kind: "error", Error: errs[i].Error()})
			}
		}
		a.Attempts = append(a.Attempts, t)
	}
	if err := r.stopped(PhaseExecute); err != nil {
		a.fromAttempt(a.firstWithWork())
		return err
	}
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("attempt %s: %w", attemptLetter(i), err))
		}
	}
	if len(failed) == n {
		a.fromAttempt(a.firstWithWork())
		return fmt.Errorf("quorum: every attempt failed: %w", errors.Join(failed...))
	}
	diffs := make([]string, n)
	for i, set := range sets {
		diffs[i] = set.diff
	}
	k, err := r.judgeAttempts(a, as, diffs)
	a.Ranking = k
	// The winner fills the result; a judging that stopped short leaves the
	// first attempt that did not fail there, to say where its work is.
	win := slices.IndexFunc(errs, func(err error) bool { return err == nil })
	if k != nil {
		win = slices.IndexFunc(a.Attempts, func(t AgentAttempt) bool { return t.Label == k.Winner })
	}
	a.fromAttempt(win)
	return err
}

// fromAttempt fills a's execution fields from attempt i, so that a
// consumer reading one execution reads the winner's.
func (a *AgentResult) fromAttempt(i int) {
	t := a.Attempts[i]
	a.Executor, a.Workspace, a.Sandbox, a.Steps, a.Actions = t.Executor, t.Workspace, t.Sandbox, t.Steps, t.Actions
	a.Change, a.Reviews, a.Findings = t.Change, t.Reviews, t.Findings
	if t.Stage != "" {
		a.Stage = t.Stage
	}
}

// firstWithWork is the first attempt that has a workspace (the others'
// could not be made), 0 when none has: the one a stopped run's result
// points to, to say where work is kept.
func (a *AgentResult) firstWithWork() int {
	return max(0, slices.IndexFunc(a.Attempts, func(t AgentAttempt) bool { return t.Workspace != nil }))
}

// mergeAttempt adds an attempt's calls, failures, phases and usage to the
// run's, its targets naming the attempt.
func (r *run) mergeAttempt(label string, sub *run) {
	for _, c := range sub.out.Calls {
		c.Target = attemptTarget(label, c.Target)
		r.recordCall(c)
	}
	for _, f := range sub.out.Failures {
		f.Target = attemptTarget(label, f.Target)
		r.out.Failures = append(r.out.Failures, f)
	}
	r.out.Phases = append(r.out.Phases, sub.out.Phases...)
	if p := sub.out.Premium; p.Skipped > 0 {
		r.skip(p.Skipped, p.SkippedWhy)
	}
	r.failures = append(r.failures, sub.failures...)
}

// attemptTarget is target ("1", a step; "" for none) labelled with its
// attempt: "1 (attempt A)", "attempt A".
func attemptTarget(label, target string) string {
	switch {
	case target == "":
		return "attempt " + label
	case target == "attempt "+label, strings.HasSuffix(target, " (attempt "+label+")"):
		return target // labelled already
	}
	return target + " (attempt " + label + ")"
}

// target is the Target of a turn of step (0: a fix round): the step's
// number, labelled with the attempt as every turn of an attempt is.
func (ex *executor) target(step int) string { return ex.r.labelled(fmt.Sprint(step)) }

// labelled is target as a turn of r names it: labelled with the attempt
// r runs (several attempts run the same phases with the same models at
// once, and would be told apart by nothing else); target itself outside
// an attempt.
func (r *run) labelled(target string) string {
	if label, ok := AttemptLabel(r.ctx); ok {
		return attemptTarget(label, target)
	}
	return target
}

// agentAttemptNote tells an attempt's executor that others carry out the
// same plan, so that it takes its own approach.
func agentAttemptNote(label string, of int) string {
	return fmt.Sprintf("\nThis is attempt %s of %d: other executors carry out the same plan independently, each in its own worktree, and the best result is kept. Take the approach you think best.\n", label, of)
}
