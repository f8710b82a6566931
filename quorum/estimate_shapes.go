package quorum

import "fmt"

// This file is each strategy's shape in turns (what Estimate counts) and
// how it shrinks to fit Config.MaxPremium before it starts.

// shape is a strategy's turns, phase by phase, for settled settings.
type shape func(b *estimator, s *settings)

// shrink makes s smaller by one step, if the strategy allows it, and says
// what it left out; ok is false when this step cannot shrink s further.
type shrink func(s *settings) (leftOut string, ok bool)

// fit estimates s's run and, while its most does not fit the cap, shrinks
// it step by step (in the order of shrinks, each as far as it goes). When
// even the smallest run does not fit, it runs as small as it can and the
// cap stops it when its next turn would pass it.
func (s *settings) fit(sh shape, shrinks ...shrink) Estimate {
	var leftOut []string
	est := func() Estimate {
		b := &estimator{m: s.Multipliers}
		sh(b, s)
		e := b.done(s.MaxPremium, leftOut)
		e.Models = append([]string(nil), s.Models...)
		return e
	}
	e := est()
	for _, step := range shrinks {
		for !e.Fits() {
			what, ok := step(s)
			if !ok {
				break
			}
			leftOut = append(leftOut, what)
			e = est()
		}
	}
	s.estimate = e
	return e
}

// earlyMin is the fewest of the pending scorings, in order, after which
// early stop could settle the leader; all of them with early stop off.
func earlyMin(s *settings, labels []string, pending []scoring) int {
	if s.NoEarlyStop {
		return len(pending)
	}
	return newTally(labels).wave(pending)
}

func labels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = label(i)
	}
	return out
}

const earlyWhy = "early stop: the turns that can no longer change the leader are not started"

// discussShape: every model answers, reviews (unless NoReview), and the
// moderator writes the synthesis (a substitute only when it fails).
func discussShape(b *estimator, s *settings) {
	pe := b.phase(PhaseAnswer, "")
	for _, m := range s.Models {
		b.turns(pe, m, "", one())
	}
	if n := len(s.Models); !s.NoReview && n >= 2 {
		assign := assignReviews(n, s.AnswersPerReviewer)
		ls := labels(n)
		var pending []scoring
		for i := range n {
			var shown []string
			for _, j := range assign[i] {
				shown = append(shown, ls[j])
			}
			pending = append(pending, scoring{own: ls[i], shown: shown})
		}
		least := earlyMin(s, ls, pending)
		pe := b.phase(PhaseReview, whyIf(least < n, earlyWhy))
		for i, m := range s.Models {
			t := one()
			if i >= least {
				t = upTo(1)
			}
			b.turns(pe, m, "", t)
		}
	}
	b.turns(b.phase(PhaseSynthesis, ""), s.Moderator, "moderator", one())
}

// planShape: every model proposes, then votes on every other plan.
func planShape(b *estimator, s *settings) {
	pe := b.phase(PhasePropose, "")
	for _, m := range s.Models {
		b.turns(pe, m, "", one())
	}
	votesShape(b, s)
}

// votesShape is Plan's vote phase: voters in model order, each on every
// plan but its own, as vote starts them.
func votesShape(b *estimator, s *settings) {
	n := len(s.Models)
	if n < 2 {
		return
	}
	ls := labels(n)
	var pending []scoring
	for i := range n {
		for j := range n {
			if j != i {
				pending = append(pending, scoring{own: ls[i], shown: []string{ls[j]}})
			}
		}
	}
	least := earlyMin(s, ls, pending)
	pe := b.phase(PhaseVote, whyIf(least < len(pending), earlyWhy))
	for i, m := range s.Models {
		first := i * (n - 1)
		sure := min(max(least-first, 0), n-1)
		b.turns(pe, m, "", between(float64(sure), float64(n-1)))
	}
}

// debateShape: the opening, up to Rounds rounds of every debater, the
// verdict.
func debateShape(b *estimator, s *settings) {
	pe := b.phase(PhaseOpening, "")
	for _, m := range s.Models {
		b.turns(pe, m, "", one())
	}
	pe = b.phase("rounds", fmt.Sprintf("up to %d rounds: the debate ends once no blocking objection stands", s.Rounds))
	for _, m := range s.Models {
		b.turns(pe, m, "", upTo(float64(s.Rounds)))
	}
	b.turns(b.phase(PhaseVerdict, ""), s.Moderator, "moderator", one())
}

// reviewShape: every model inspects the change once.
func reviewShape(b *estimator, s *settings) {
	pe := b.phase(PhaseInspect, "")
	for _, m := range s.Models {
		b.turns(pe, m, "", one())
	}
}

// fewerModels drops a model of s.Models while more than MinModels (and,
// for a debate, two) are left: the dearest, so that each step saves the
// most, and of those the last in the order of preference. A debate drops
// the last one only, so that its sides stay as they were dealt.
func fewerModels(least int) shrink {
	return func(s *settings) (string, bool) {
		if len(s.Models) <= max(s.MinModels, least) {
			return "", false
		}
		drop := len(s.Models) - 1
		if least < 2 {
			for i, m := range s.Models {
				if s.Multipliers.Of(m) >= s.Multipliers.Of(s.Models[drop]) {
					drop = i
				}
			}
		}
		m := s.Models[drop]
		s.Models = append(s.Models[:drop:drop], s.Models[drop+1:]...)
		return "model " + m, true
	}
}

func noReview(s *settings) (string, bool) {
	if s.NoReview || len(s.Models) < 2 {
		return "", false
	}
	s.NoReview = true
	return fmt.Sprintf("the peer review (%d turns)", len(s.Models)), true
}

func fewerRounds(s *settings) (string, bool) {
	if s.Rounds <= 1 {
		return "", false
	}
	s.Rounds--
	return fmt.Sprintf("debate round %d", s.Rounds+1), true
}

func whyIf(cond bool, why string) string {
	if cond {
		return why
	}
	return ""
}

// others lists models but one.
func others(models []string, but string) []string {
	var out []string
	for _, m := range models {
		if m != but {
			out = append(out, m)
		}
	}
	return out
}

// agentShape: the planning (ensemble or solo), the plan review rounds and
// revisions, and, once approved, the execution, its shell votes, the
// final review and its fix rounds. A plan given in advance
// (AgentConfig.Plan) has no planning phase: its turns start at the gate.
func agentShape(as *agentSettings) shape {
	return func(b *estimator, s *settings) {
		n := len(s.Models)
		author, authors := as.Solo, s.Models
		switch {
		case as.Plan != nil:
			author = as.Plan.Author
		case author != "":
			authors = []string{author}
			b.turns(b.phase(PhasePropose, ""), author, "planner", one())
		default:
			planShape(b, s)
		}
		if rounds := as.MaxRevisions; as.Plan == nil && rounds >= 0 && n >= 2 {
			r := float64(rounds)
			pe := b.phase(PhasePlanReview, fmt.Sprintf("up to %s: another only when a reviewer asks for changes", plural(rounds+1, "round")))
			if author != "" {
				for _, m := range others(s.Models, author) {
					b.turns(pe, m, "", between(1, r+1))
				}
			} else {
				b.turns(pe, "", "each model but the plan's author", between(float64(n-1), float64(n-1)*(r+1)), s.Models...)
			}
			if rounds > 0 {
				b.turns(b.phase(PhaseRevise, "only when a reviewer asks for changes"), author, "the plan's author", upTo(r), authors...)
			}
		}
		if as.Approve == nil {
			return
		}
		execs := attemptExecutors(as)
		// of names attempt i's part of a role when there are several.
		of := func(i int, role string) string {
			if len(execs) > 1 {
				role += " of attempt " + attemptLetter(i)
			}
			return role
		}
		// executorOf is attempt i's executor and its role; "" for the
		// model when the ensemble's plan author (not known yet) executes.
		executorOf := func(i int) (string, string) {
			if execs[i] == "" {
				return author, of(i, "executor (the plan's author)")
			}
			return execs[i], of(i, "executor")
		}
		steps := 1.0 // the least a plan has; a given plan's own count
		if as.Plan != nil {
			steps = float64(len(as.Plan.Steps))
		}
		pe := b.phase(PhaseExecute, "one turn per step of the approved plan")
		for i := range execs {
			executor, role := executorOf(i)
			b.turns(pe, executor, role, Span{Min: steps, Max: steps, Open: true}, authors...)
		}
		if as.Shell == ShellQuorum {
			var pe *PhaseEstimate
			for i := range execs {
				executor, _ := executorOf(i)
				voters := s.Models
				if executor != "" {
					voters = others(s.Models, executor)
				}
				if len(voters) == 0 {
					continue
				}
				if pe == nil {
					pe = b.phase(PhaseShellVote, "a turn of each voter for every shell command the executor asks to run")
				}
				b.turns(pe, "", of(i, "each model but the executor"), Span{Open: true}, voters...)
			}
		}
		f := float64(max(as.FixRounds, 0))
		reviewers := max(n-1, 1)
		pe = b.phase(PhaseInspect, "the final review, again after each fix round")
		for i := range execs {
			b.turns(pe, "", of(i, "each model but the executor"), between(float64(reviewers), float64(reviewers)*(1+f)), s.Models...)
		}
		if f > 0 {
			pe := b.phase(PhaseFix, "only when the review finds what needs a fix")
			for i := range execs {
				executor, role := executorOf(i)
				b.turns(pe, executor, role, upTo(f), authors...)
			}
		}
		if len(execs) > 1 {
			pe := b.phase(PhaseJudge, "every model judges the attempts that changed something")
			b.turns(pe, "", "each model", between(0, float64(n)), s.Models...)
		}
	}
}

// attemptExecutors are the executors of the run's attempts, one each;
// "" stands for the plan's author.
func attemptExecutors(as *agentSettings) []string {
	if len(as.Executors) > 0 {
		return as.Executors
	}
	out := make([]string, max(as.Attempts, 1))
	for i := range out {
		out[i] = as.Executor
	}
	return out
}

// agentShrinks: no fix round, fewer attempts (the last first), fewer
// plan review rounds, one planner. Attempts go before the plan's review:
// every attempt carries out the one plan, so a better plan serves them
// all, while each attempt costs its own executor, review and judging.
func agentShrinks(as *agentSettings) []shrink {
	return []shrink{
		func(*settings) (string, bool) {
			if as.FixRounds < 0 || as.Approve == nil {
				return "", false
			}
			as.FixRounds = -1
			return "the fix round", true
		},
		func(*settings) (string, bool) {
			if as.Attempts <= 1 || as.Approve == nil {
				return "", false
			}
			as.Attempts--
			dropped := attemptLetter(as.Attempts)
			if len(as.Executors) > 0 {
				as.Executors = as.Executors[:as.Attempts]
				if as.Attempts == 1 {
					as.Executor, as.Executors = as.Executors[0], nil // one attempt: the run as with Executor
				}
			}
			return "attempt " + dropped, true
		},
		func(*settings) (string, bool) {
			if as.MaxRevisions < 0 || as.Plan != nil {
				return "", false
			}
			as.MaxRevisions--
			if as.MaxRevisions < 0 {
				return "the plan review", true
			}
			return fmt.Sprintf("plan review round %d", as.MaxRevisions+2), true
		},
		func(s *settings) (string, bool) {
			if as.Solo != "" || as.Plan != nil || len(s.Models) < 2 {
				return "", false
			}
			as.Solo = s.Models[0]
			return fmt.Sprintf("the ensemble plan (%s plans alone)", as.Solo), true
		},
	}
}
