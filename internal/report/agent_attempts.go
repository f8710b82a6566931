package report

import (
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// This file is the part of an agent run's report about its attempts
// (quorum agent --attempts): the attempts side by side, the models'
// ranking with each one's reasons, and the winner, whose work the rest
// of the report shows.

// attemptsField is the header's line about the attempts.
func attemptsField(a *quorum.AgentResult) [2]string {
	v := fmt.Sprint(len(a.Attempts))
	if a.Ranking != nil {
		v += " (winner: Attempt " + a.Ranking.Winner + ")"
	}
	return [2]string{"Attempts", v}
}

func (r agent) attempts(doc doc) {
	a := r.a
	doc.heading(1, "Attempts")
	doc.note("Each attempt carried the approved plan out on a branch of its own, at the same time as the others; the models judged them knowing only their labels.")
	var rows [][]string
	for _, t := range a.Attempts {
		change, branch := "none", "none"
		if t.Change != nil && len(t.Change.Files) > 0 {
			change = changeText(*t.Change)
		}
		if t.Workspace != nil {
			branch = t.Workspace.Branch
			if t.Removed {
				branch += " (removed)"
			}
		}
		outcome := "done"
		switch {
		case t.Error != "":
			outcome = "stopped: " + excerpt(errorText(t.Error))
		case t.Stage == quorum.StageExecuted:
			outcome = "executed, not reviewed"
		}
		rows = append(rows, []string{t.Label, t.Executor, branch, excerpt(change), fmt.Sprint(len(t.Findings)), outcome})
	}
	doc.table([]string{"Attempt", "Executor", "Branch", "Change", "Findings", "Outcome"}, []bool{false, false, false, false, true, false}, rows)
	for _, t := range a.Attempts {
		if len(t.Findings) == 0 {
			continue
		}
		doc.heading(2, "Attempt "+t.Label+": findings left")
		var its []item
		for _, f := range t.Findings {
			its = append(its, item{text: fmt.Sprintf("[%s] %s:%d %s", f.Severity, f.File, f.StartLine, f.Explanation)})
		}
		doc.list(its)
	}
	k := a.Ranking
	if k == nil {
		doc.para("The attempts were not judged: the run stopped first.")
		return
	}
	doc.heading(2, "Ranking")
	doc.note("By mean score, then Borda count; an attempt that stopped short, changed nothing or kept a finding at or above --fail-on ranks below every attempt that did not.")
	rows = nil
	for _, s := range k.Standings {
		held := ""
		if s.HeldBack != "" {
			held = excerpt(s.HeldBack)
		}
		rows = append(rows, []string{fmt.Sprint(s.Rank), s.Label, s.Model, mean(s.Standing), num(s.Borda), held})
	}
	doc.table([]string{"Rank", "Attempt", "Executor", "Mean", "Borda", "Held back"}, []bool{true, false, false, true, true, false}, rows)
	if len(k.Judgements) > 0 {
		doc.heading(2, "Each model's judgement")
		var its []item
		for _, j := range k.Judgements {
			it := item{text: j.Model + ": " + strings.Join(j.Ranking, " > ")}
			if len(j.Ranking) == 0 {
				it.text = j.Model + ": no ranking"
				if len(j.Problems) > 0 {
					it.text += " (" + excerpt(j.Problems[0]) + ")"
				}
			}
			for _, as := range j.Assessments {
				line := "Attempt " + as.Label
				if as.Score > 0 {
					line += fmt.Sprintf(" (%s/10)", num(as.Score))
				}
				if len(as.Strengths) > 0 {
					line += ": + " + strings.Join(as.Strengths, "; + ")
				}
				if len(as.Weaknesses) > 0 {
					line += "; − " + strings.Join(as.Weaknesses, "; − ")
				}
				it.sub = append(it.sub, excerpt(line))
			}
			its = append(its, it)
		}
		doc.list(its)
	}
	for _, t := range a.Attempts {
		if t.Label == k.Winner {
			doc.para(fmt.Sprintf("The winner is Attempt %s, carried out by %s: the steps, decisions and reviews below are its own.", t.Label, t.Executor))
		}
	}
}

// winnerNext says which attempt the next steps are about.
func (r agent) winnerNext(doc doc) {
	a := r.a
	for _, t := range a.Attempts {
		if t.Workspace == a.Workspace {
			what := "The winner"
			if a.Ranking == nil {
				what = "The first attempt"
			}
			doc.para(fmt.Sprintf("%s, Attempt %s (%s):", what, t.Label, t.Executor))
		}
	}
}

// attemptsNext are the next steps for the attempts that lost: how to look
// at each, or drop it; nothing for one already removed.
func (r agent) attemptsNext(doc doc) {
	a := r.a
	var its []item
	for _, t := range a.Attempts {
		w := t.Workspace
		if w == nil || w == a.Workspace || t.Removed {
			continue
		}
		its = append(its, item{text: "Attempt " + t.Label + " (" + t.Executor + ")", sub: []string{
			"Look at it: git diff " + shortCommit(w.Base) + ".." + w.Branch,
			"Drop it: git worktree remove " + w.Dir + " && git branch -D " + w.Branch,
		}})
	}
	if len(its) > 0 {
		doc.para("The other attempts are kept:")
		doc.list(its)
	}
}
