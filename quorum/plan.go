package quorum

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Plan runs ensemble planning of task among cfg.Models, through b:
//
//  1. Propose: every model proposes a plan (title, ordered steps, risks) in
//     parallel; plans are relabelled Plan A, B, … (names hidden).
//  2. Vote: every plan is scored by every other model, all N·(N−1) votes at
//     once (within cfg.MaxConcurrency), each in its own session with the
//     task and the quoted plan, as JSON {score 1–10, reasoning}.
//  3. The highest mean score wins; ties go to the Borda count, then to
//     fewer failed votes, then to cfg.Models' order, so the same votes
//     always pick the same plan.
//
// Failure, timeouts and cancellation behave as in Discuss: a model that
// fails is left out and the run goes on, degraded; too few models left
// fail it with a *TooFewError. The moderator and review settings of cfg
// are not used. The returned PlanResult is nil only when the arguments are
// invalid; after a failed or cancelled run it holds everything done so
// far: the plans that came in, the votes, and the standings they give, but
// no Winner.
func Plan(ctx context.Context, b Backend, task string, cfg Config) (*PlanResult, error) {
	s, err := cfg.settleFor(b, task, "task")
	if err != nil {
		return nil, err
	}
	s.fit(planShape, fewerModels(0))
	p := &PlanResult{Task: task, Models: s.Models}
	r := newRun(ctx, b, s, &p.Outcome)
	err = r.plan(p)
	r.finish(err, false)
	p.fillLists()
	return p, err
}

func (r *run) plan(p *PlanResult) error {
	first, err := r.propose(p)
	if err != nil {
		return err
	}
	js, err := r.vote(p, first)
	if err != nil {
		// The votes that came in still rank the plans, for the partial
		// result; no plan wins a run that did not finish.
		p.Standings = aggregate(first.cands, js)
		return err
	}
	p.elect(first.cands, js)
	return nil
}

// propose runs the propose phase and returns the usable plans, labelled.
func (r *run) propose(p *PlanResult) (firstReplies[Proposal], error) {
	s := r.s
	ph, results, err := r.askEveryModel(PhasePropose, s.t.propose, ProposeData{Task: p.Task}, s.Prompts.ProposeSystem)
	if err != nil {
		return firstReplies[Proposal]{}, err
	}
	type parsed struct {
		spec PlanSpec
		prob []string
	}
	plans := make(map[string]parsed, len(results)) // by model: one proposal each
	usable := func(res result) bool {
		spec, problems, ok := ParsePlan(res.reply.Text)
		ev := Progress{Kind: ProposalParsed, Phase: PhasePropose, Model: res.model, Text: spec.Title}
		if !ok {
			ev.Err = r.unparsable(PhasePropose, res.task, problems)
		} else {
			plans[res.model] = parsed{spec, problems}
		}
		r.ev.emit(ev)
		return ok
	}
	// Proposals stay in configured order, byLabel in label order.
	return closeFirstPhase(r, ph, p.Task, results, usable, func(res result, l string) Proposal {
		x := plans[res.model]
		pr := Proposal{Label: l, Model: res.model, PlanSpec: x.spec, RawReply: RawReply{Raw: res.reply.Text, Problems: x.prob}, TurnCost: res.cost()}
		p.Proposals = append(p.Proposals, pr)
		return pr
	})
}

// vote runs the vote phase: the whole matrix at once. Voters go in model
// order, plans in label order; nobody votes on their own plan. It returns
// every voter's judgement, also when the phase ends the run.
func (r *run) vote(p *PlanResult, first firstReplies[Proposal]) ([]judgement, error) {
	s := r.s
	proposers, byLabel := first.models, first.byLabel
	var vtasks []task
	for _, voter := range proposers {
		for _, pr := range byLabel {
			if pr.Model == voter {
				continue
			}
			prompt, err := render(s.t.vote, PhaseVote, VoteData{Task: p.Task, Label: pr.Label, Plan: quote("PLAN "+pr.Label, first.nonce, planText(pr)), Nonce: first.nonce})
			if err != nil {
				return nil, err
			}
			vtasks = append(vtasks, task{model: voter, target: pr.Label, system: s.Prompts.VoteSystem, prompt: prompt})
		}
	}
	ph := r.startPhase(PhaseVote, proposers)
	own := make(map[string]string, len(byLabel)) // model → its plan's label
	for _, pr := range byLabel {
		own[pr.Model] = pr.Label
	}
	var labels []string
	for _, pr := range byLabel {
		labels = append(labels, pr.Label)
	}
	results, ran := ph.doStaged(vtasks, staged{
		labels:  labels,
		scoring: func(i int) scoring { return scoring{own: own[vtasks[i].model], shown: []string{vtasks[i].target}} },
		scores: func(i int, res result) map[string]float64 {
			if b, _, ok := ParseBallot(res.reply.Text); ok {
				return map[string]float64{vtasks[i].target: b.Score}
			}
			return nil
		},
	})
	notAsked := map[string]bool{} // voters with votes early stop did not start
	for i := range vtasks {
		if !ran[i] {
			notAsked[vtasks[i].model] = true
		}
	}
	js := make(map[string]*judgement, len(proposers))
	for _, m := range proposers {
		js[m] = &judgement{judge: m, own: own[m], scores: map[string]float64{}}
	}
	for i, res := range results {
		if !ran[i] {
			continue
		}
		v := Vote{Voter: res.model, Plan: res.target, RawReply: RawReply{Raw: res.reply.Text}, TurnCost: res.cost()}
		j := js[res.model]
		ev := Progress{Kind: VoteCast, Phase: PhaseVote, Model: res.model, Target: res.target}
		switch {
		case res.err != nil:
			r.fail(res.err, res.kind)
			v.Error = res.err.Err.Error()
			ev.Err = res.err
		default:
			b, problems, usable := ParseBallot(res.reply.Text)
			v.Reasoning, v.Problems = b.Reasoning, problems
			if !usable {
				e := r.unparsable(PhaseVote, res.task, problems)
				v.Error = e.Err.Error()
				ev.Err = e
				break
			}
			v.Score = b.Score
			ev.Score, ev.Text = b.Score, b.Reasoning
			j.shown = append(j.shown, res.target)
			j.scores[res.target] = b.Score
		}
		if v.Error != "" {
			j.failed = append(j.failed, res.target)
		}
		p.Votes = append(p.Votes, v)
		if res.err == nil { // a failed call was reported by ModelFinished already
			r.ev.emit(ev)
		}
	}
	var voters, dropped []string
	var all []judgement
	for _, m := range proposers {
		if len(js[m].shown) > 0 || (notAsked[m] && !failedAll(p.Votes, m)) {
			voters = append(voters, m)
		} else {
			dropped = append(dropped, m)
		}
		all = append(all, *js[m])
	}
	return all, ph.end(dropped, voters)
}

// failedAll reports whether every vote voter cast failed (it has cast
// at least one).
func failedAll(votes []Vote, voter string) bool {
	cast := false
	for _, v := range votes {
		if v.Voter == voter {
			if v.Error == "" {
				return false
			}
			cast = true
		}
	}
	return cast
}

// elect ranks the plans by the voters' judgements and names the winner.
func (p *PlanResult) elect(cands []candidate, js []judgement) {
	p.Standings = aggregate(cands, js)
	p.Winner = p.Standings[0].Label
	p.Reason = winReason(p.Standings)
}

// planText renders a parsed plan for voters: the structure, not the raw
// reply, so prose around the JSON cannot speak to them.
func planText(p Proposal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Title: %s\nSteps:\n", p.Title)
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	if len(p.Risks) > 0 {
		b.WriteString("Risks:\n")
		for _, r := range p.Risks {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	return b.String()
}

// winReason says which criterion separated the winner from the runner-up.
func winReason(st []Standing) string {
	w := st[0]
	name := fmt.Sprintf("Plan %s (%s)", w.Label, w.Model)
	if len(st) == 1 {
		return name + " was the only plan."
	}
	n := st[1]
	other := fmt.Sprintf("Plan %s (%s)", n.Label, n.Model)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	switch {
	case cmpDesc(w.MeanScore, n.MeanScore) != 0:
		return fmt.Sprintf("%s won with the highest mean score, %s from %s, against %s for %s.", name, f(w.MeanScore), plural(w.Scores, "vote"), f(n.MeanScore), other)
	case cmpDesc(w.Borda, n.Borda) != 0:
		return fmt.Sprintf("%s tied with %s on mean score (%s) and won on Borda count, %s against %s.", name, other, f(w.MeanScore), f(w.Borda), f(n.Borda))
	case w.Failed != n.Failed:
		return fmt.Sprintf("%s tied with %s on mean score (%s) and Borda count (%s) and won on fewer failed votes, %d against %d.", name, other, f(w.MeanScore), f(w.Borda), w.Failed, n.Failed)
	}
	return fmt.Sprintf("%s tied with %s on mean score (%s), Borda count (%s) and failed votes (%d), and won as the earlier of the two in the configured model order.", name, other, f(w.MeanScore), f(w.Borda), w.Failed)
}

// plural is "1 vote", "2 votes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
