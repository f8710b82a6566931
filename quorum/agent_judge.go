package quorum

import (
	"fmt"
	"slices"
	"strings"
)

// This file judges an agent run's attempts: every model reads every
// attempt's diff, with what its review found and whether it stopped
// short, knowing the attempts only by label; it scores and ranks them as a
// peer review does, and the rankings are aggregated as plan votes are.

// PhaseJudge is the phase in which the models judge the attempts.
const PhaseJudge Phase = "judge"

// maxJudgeDiffRunes bounds the diffs one judging prompt quotes, shared
// among the attempts: a longer diff is cut, and the prompt says so.
const maxJudgeDiffRunes = 120_000

// judgeAttempts has every model judge the attempts that changed
// something and returns the ranking; the winner is its first standing.
// Fewer than two attempts to compare need no judging.
func (r *run) judgeAttempts(a *AgentResult, as *agentSettings, diffs []string) (*AttemptRanking, error) {
	k := &AttemptRanking{}
	cands := make([]candidate, len(a.Attempts))
	var shown []string
	for i, t := range a.Attempts {
		cands[i] = candidate{label: t.Label, model: t.Executor, order: i}
		if strings.TrimSpace(diffs[i]) != "" {
			shown = append(shown, t.Label)
		}
	}
	var js []judgement
	if len(shown) >= 2 {
		var err error
		js, err = r.judge(a, as, shown, diffs, k)
		if err != nil {
			return nil, err
		}
	}
	for _, s := range aggregate(cands, js) {
		k.Standings = append(k.Standings, AttemptStanding{Standing: s, HeldBack: heldBack(a.Attempts[slices.IndexFunc(a.Attempts, func(t AgentAttempt) bool { return t.Label == s.Label })], as)})
	}
	// Attempts held back rank below every attempt that is not, in the
	// order the votes gave each group.
	slices.SortStableFunc(k.Standings, func(x, y AttemptStanding) int {
		return boolRank(x.HeldBack != "") - boolRank(y.HeldBack != "")
	})
	for i := range k.Standings {
		k.Standings[i].Rank = i + 1
	}
	k.Winner = k.Standings[0].Label
	return k, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// heldBack says why attempt t ranks below the attempts without a reason.
func heldBack(t AgentAttempt, as *agentSettings) string {
	switch {
	case t.Error != "":
		return "it stopped short: " + strings.TrimPrefix(t.Error, "quorum: ")
	case t.Change == nil || len(t.Change.Files) == 0:
		return "it changed nothing"
	case len(t.Findings) > 0:
		return fmt.Sprintf("its review left %d finding(s) at or above %s", len(t.Findings), as.FailOn)
	}
	return ""
}

// judge puts the attempts labelled shown to every model and returns each
// usable judgement, recording every model's reply in k.
func (r *run) judge(a *AgentResult, as *agentSettings, shown, diffs []string, k *AttemptRanking) ([]judgement, error) {
	var blocks []string
	per := maxJudgeDiffRunes / len(shown)
	texts := []string{a.Task}
	for i, t := range a.Attempts {
		if slices.Contains(shown, t.Label) {
			texts = append(texts, t.Label, diffs[i])
		}
	}
	nonce := nonceOf(texts...)
	for i, t := range a.Attempts {
		if !slices.Contains(shown, t.Label) {
			continue
		}
		diff := diffs[i]
		cut := ""
		if len([]rune(diff)) > per {
			diff, cut = cutRunes(diff, per), " (its diff is cut short here)"
		}
		blocks = append(blocks, fmt.Sprintf("Attempt %s%s; %s\n%s", t.Label, cut, attemptStatus(t, as), quote("ATTEMPT "+t.Label, nonce, diff)))
	}
	prompt := agentJudgePrompt(a.Task, quote("PLAN", nonce, planDoc(*a.Plan)), shown, strings.Join(blocks, "\n"))
	tasks := make([]task, len(r.s.Models))
	for i, m := range r.s.Models {
		tasks[i] = task{model: m, system: agentReviewSystem, prompt: prompt}
	}
	ph := r.startPhase(PhaseJudge, r.s.Models)
	results := ph.do(tasks)
	var js []judgement
	var dropped []string
	for _, res := range results {
		j := AttemptJudgement{Model: res.model, TurnCost: res.cost()}
		if res.err != nil {
			r.fail(res.err, res.kind)
			j.Problems = []string{res.err.Err.Error()}
			k.Judgements = append(k.Judgements, j)
			dropped = append(dropped, res.model)
			continue
		}
		v, problems, ok := ParseVerdict(res.reply.Text, shown)
		j.Raw, j.Problems, j.Ranking, j.Assessments = res.reply.Text, problems, v.Ranking, v.Assessments
		k.Judgements = append(k.Judgements, j)
		if !ok {
			r.unparsable(PhaseJudge, res.task, problems)
			dropped = append(dropped, res.model)
			continue
		}
		jd := judgement{judge: res.model, shown: shown, scores: map[string]float64{}, ranking: v.Ranking}
		for _, as := range v.Assessments {
			if as.Score > 0 {
				jd.scores[as.Label] = as.Score
			}
		}
		js = append(js, jd)
	}
	ph.finish(dropped)
	// A judging that failed leaves the attempts in label order, the run
	// degraded; only the run's own end stops it.
	return js, r.stopped(PhaseJudge)
}

// attemptStatus says how an attempt ended, for the judges.
func attemptStatus(t AgentAttempt, as *agentSettings) string {
	switch {
	case t.Error != "":
		return "it stopped short of the end of the plan"
	case len(t.Findings) > 0:
		var list []string
		for _, f := range t.Findings {
			list = append(list, fmt.Sprintf("[%s] %s:%d %s", f.Severity, f.File, f.StartLine, oneLine(f.Explanation)))
		}
		return fmt.Sprintf("its review left %d finding(s) at or above %s: %s", len(t.Findings), as.FailOn, defang.Replace(strings.Join(list, "; ")))
	}
	return "it carried out the whole plan and its review left nothing to fix"
}
