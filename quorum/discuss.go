package quorum

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Discuss runs a quorum discussion of question among cfg.Models, through b:
//
//  1. Answer: every model answers in its own session, all in parallel.
//  2. Review (unless cfg.NoReview): answers are relabelled Response A, B, …
//     (names hidden) and quoted between delimiter lines; each model reviews
//     the others' answers (never its own; cfg.AnswersPerReviewer of them if
//     set) and returns a scored, ranked verdict.
//  3. Aggregation: mean score and Borda count per answer, self-votes
//     excluded, give one ranking.
//  4. Synthesis: the moderator writes a synthesis with the sections
//     Conclusion, Key points, Consensus and Disagreements; if it fails, the
//     best-ranked remaining participant takes its place.
//
// A model that fails or times out in a phase is left out of the later ones
// and the run goes on, marked degraded. The run fails with a *TooFewError
// when fewer than cfg.MinModels models are left after a phase, or nobody
// can write the synthesis; with an error wrapping ErrTimeout when
// cfg.Timeout passes; with ctx's error when ctx is cancelled, after every
// turn in flight was aborted and every session destroyed.
//
// The returned DiscussResult is nil only when the arguments are invalid
// (ErrInvalidConfig); after a failed or cancelled run it holds everything
// done so far: the answers that came in, the reviews, and the ranking they
// give.
func Discuss(ctx context.Context, b Backend, question string, cfg Config) (*DiscussResult, error) {
	s, err := cfg.settleFor(b, question, "question")
	if err != nil {
		return nil, err
	}
	s.fit(discussShape, noReview, fewerModels(0))
	d := &DiscussResult{Question: question, Models: s.Models}
	r := newRun(ctx, b, s, &d.Outcome)
	err = r.discuss(d)
	r.finish(err, d.Synthesis != nil && d.Synthesis.Substituted)
	d.fillLists()
	return d, err
}

func (r *run) discuss(d *DiscussResult) error {
	s := r.s
	// 1. Answers.
	ph, results, err := r.askEveryModel(PhaseAnswer, s.t.answer, AnswerData{Question: d.Question}, s.Prompts.AnswerSystem)
	if err != nil {
		return err
	}
	// Answers stay in configured order, first.byLabel in label order.
	first, err := closeFirstPhase(r, ph, d.Question, results, nil, func(res result, l string) Answer {
		a := Answer{Label: l, Model: res.model, Text: res.reply.Text, TurnCost: res.cost()}
		d.Answers = append(d.Answers, a)
		return a
	})
	if err != nil {
		return err
	}

	// 2. Reviews, 3. aggregation.
	alive := first.models
	var js []judgement
	if !s.NoReview && len(first.byLabel) >= 2 {
		js, alive, err = r.review(d, first.byLabel, first.nonce)
	}
	// Also when the review phase failed or was cancelled: the reviews that
	// came in still rank the answers, for the partial result.
	d.Standings = aggregate(first.cands, js)
	for _, st := range d.Standings {
		if st.Scores > 0 || st.Borda > 0 {
			d.Ranked = true
		}
	}
	if err != nil {
		return err
	}

	// 4. Synthesis.
	return r.synthesise(d, first.byLabel, alive, first.nonce)
}

// review runs the review phase and returns the judgements and the models
// still in the run; the judgements also when the phase ends the run.
func (r *run) review(d *DiscussResult, byLabel []Answer, nonce string) ([]judgement, []string, error) {
	s := r.s
	assign := assignReviews(len(byLabel), s.AnswersPerReviewer)
	// Reviewers go in configured model order; idx[k] is the k-th
	// reviewer's index in byLabel.
	var idx []int
	for _, a := range d.Answers {
		idx = append(idx, slices.IndexFunc(byLabel, func(x Answer) bool { return x.Label == a.Label }))
	}
	tasks := make([]task, len(idx))
	shown := make([][]string, len(idx))
	for k, i := range idx {
		a := byLabel[i]
		var blocks, names, example []string
		for _, j := range assign[i] {
			o := byLabel[j]
			shown[k] = append(shown[k], o.Label)
			blocks = append(blocks, quote("RESPONSE "+o.Label, nonce, o.Text))
			names = append(names, "Response "+o.Label)
			example = append(example, fmt.Sprintf(`{"response": %q, "score": 7, "strengths": ["…"], "weaknesses": ["…"]}`, o.Label))
		}
		ranking := `"` + strings.Join(shown[k], `", "`) + `"`
		prompt, err := render(s.t.review, PhaseReview, ReviewData{
			Question:  d.Question,
			Responses: strings.Join(blocks, "\n\n"),
			Nonce:     nonce,
			Labels:    joinAnd(names),
			Example:   `{"reviews": [` + strings.Join(example, ", ") + `], "ranking": [` + ranking + `]}`,
		})
		if err != nil {
			return nil, nil, err
		}
		tasks[k] = task{model: a.Model, system: s.Prompts.ReviewSystem, prompt: prompt}
	}
	ph := r.startPhase(PhaseReview, modelsOf(tasks))
	var all []string
	for _, a := range byLabel {
		all = append(all, a.Label)
	}
	results, ran := ph.doStaged(tasks, staged{
		labels:  all,
		scoring: func(k int) scoring { return scoring{own: byLabel[idx[k]].Label, shown: shown[k]} },
		scores: func(k int, res result) map[string]float64 {
			v, _, _ := ParseVerdict(res.reply.Text, shown[k])
			return verdictScores(v)
		},
	})
	var js []judgement
	var alive, dropped []string
	for i, res := range results {
		if !ran[i] {
			alive = append(alive, tasks[i].model) // not asked: still in the run
			continue
		}
		if res.err != nil {
			r.fail(res.err, res.kind)
			dropped = append(dropped, res.model)
			js = append(js, judgement{judge: res.model, own: byLabel[idx[i]].Label, failed: shown[i]})
			continue
		}
		v, problems, ok := ParseVerdict(res.reply.Text, shown[i])
		rv := PeerReview{
			Reviewer: res.model, ReviewerLabel: byLabel[idx[i]].Label, Reviewed: shown[i], Raw: res.reply.Text,
			Verdict: v, Problems: problems, Usable: ok, TurnCost: res.cost(),
		}
		d.Reviews = append(d.Reviews, rv)
		ev := Progress{Kind: ReviewParsed, Phase: PhaseReview, Model: res.model, Text: summariseVerdict(v, problems)}
		if !ok {
			ev.Err = r.unparsable(PhaseReview, res.task, problems)
			dropped = append(dropped, res.model)
			js = append(js, judgement{judge: res.model, own: byLabel[idx[i]].Label, failed: shown[i]})
			r.ev.emit(ev)
			continue
		}
		r.ev.emit(ev)
		alive = append(alive, res.model)
		js = append(js, judgement{judge: res.model, own: byLabel[idx[i]].Label, shown: shown[i], scores: verdictScores(v), ranking: v.Ranking})
	}
	return js, alive, ph.end(dropped, alive)
}

// verdictScores are a verdict's valid scores by label.
func verdictScores(v Verdict) map[string]float64 {
	scores := map[string]float64{}
	for _, a := range v.Assessments {
		if a.Score > 0 {
			scores[a.Label] = a.Score
		}
	}
	return scores
}

func summariseVerdict(v Verdict, problems []string) string {
	var parts []string
	for _, a := range v.Assessments {
		if a.Score > 0 {
			parts = append(parts, fmt.Sprintf("%s %s/10", a.Label, strconv.FormatFloat(a.Score, 'f', -1, 64)))
		}
	}
	s := strings.Join(parts, ", ")
	if len(v.Ranking) > 0 {
		s += "; ranking " + strings.Join(v.Ranking, " > ")
	}
	if len(problems) > 0 {
		s += fmt.Sprintf(" (%d parse problems)", len(problems))
	}
	return strings.TrimPrefix(s, "; ")
}

// synthesise asks the moderator for the synthesis and, when it fails, the
// best-ranked remaining participants in turn.
func (r *run) synthesise(d *DiscussResult, byLabel []Answer, alive []string, nonce string) error {
	s := r.s
	prompt, err := render(s.t.synthesis, PhaseSynthesis, SynthesisData{
		Question:  d.Question,
		Responses: rankedResponses(d, byLabel, nonce),
		Nonce:     nonce,
		Reviews:   quote("REVIEWS", nonce, reviewsText(d)),
	})
	if err != nil {
		return err
	}
	// The moderator first, unless it is a participant that already dropped
	// out of the run; then the remaining participants, best-ranked first.
	var ranked []string
	for _, st := range d.Standings {
		ranked = append(ranked, st.Model)
	}
	return r.moderate(moderatedPhase{
		phase: PhaseSynthesis, system: s.Prompts.SynthesisSystem, prompt: prompt,
		requested: s.Moderator, substitutes: ranked, alive: alive,
		accept: func(res result, who Moderation) *ModelError {
			sec, problems := ParseSynthesis(res.reply.Text)
			d.Synthesis = &Synthesis{Moderation: who, Raw: res.reply.Text, Sections: sec, Problems: problems, TurnCost: res.cost()}
			r.ev.emit(Progress{Kind: SynthesisDone, Phase: PhaseSynthesis, Model: res.model, Text: sec.Conclusion})
			return nil
		},
	})
}

// rankedResponses quotes the answers in aggregate order, each after its
// figures, for the moderator.
func rankedResponses(d *DiscussResult, byLabel []Answer, nonce string) string {
	var b strings.Builder
	for _, st := range d.Standings {
		var a Answer
		for _, x := range byLabel {
			if x.Label == st.Label {
				a = x
			}
		}
		if d.Ranked {
			fmt.Fprintf(&b, "Rank %d: Response %s (mean score %.2f from %d reviews, Borda count %s)\n", st.Rank, st.Label, st.MeanScore, st.Scores, strconv.FormatFloat(st.Borda, 'f', -1, 64))
		} else {
			fmt.Fprintf(&b, "Response %s (not ranked)\n", st.Label)
		}
		b.WriteString(quote("RESPONSE "+st.Label, nonce, a.Text))
		b.WriteString("\n\n")
	}
	return strings.TrimSpace(b.String())
}

// reviewsText renders each usable review once, short, naming the reviewer
// only by its own answer's label.
func reviewsText(d *DiscussResult) string {
	var b strings.Builder
	for _, rv := range d.Reviews {
		if !rv.Usable {
			continue
		}
		fmt.Fprintf(&b, "Review by the author of Response %s:\n", rv.ReviewerLabel)
		for _, a := range rv.Verdict.Assessments {
			fmt.Fprintf(&b, "- Response %s", a.Label)
			if a.Score > 0 {
				fmt.Fprintf(&b, ": %s/10", strconv.FormatFloat(a.Score, 'f', -1, 64))
			}
			if len(a.Strengths) > 0 {
				fmt.Fprintf(&b, ". Strengths: %s", strings.Join(a.Strengths, "; "))
			}
			if len(a.Weaknesses) > 0 {
				fmt.Fprintf(&b, ". Weaknesses: %s", strings.Join(a.Weaknesses, "; "))
			}
			b.WriteString("\n")
		}
		if len(rv.Verdict.Ranking) > 0 {
			fmt.Fprintf(&b, "- Ranking: %s\n", strings.Join(rv.Verdict.Ranking, " > "))
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "(no reviews)"
	}
	return strings.TrimSpace(b.String())
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
