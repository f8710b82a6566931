package report

import (
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// Agent is the report of an agent run. Its parts come in the order of the
// run: what was read, the proposals and votes, each round of plan review,
// the plan as approved, every step with its tool calls, every decision of
// the action gate, the review of the result, then what to do with the
// branch — which stays in view on a terminal — and usage.
func Agent(a *quorum.AgentResult) Report { return agent{a} }

type agent struct{ a *quorum.AgentResult }

// AgentSections are the parts of an agent run's report.
var AgentSections = []string{"context", "proposals", "votes", "plan-review", "plan", "attempts", "steps", "actions", "sandbox", "review", "next", "usage"}

func (agent) Sections() []string { return AgentSections }

func (r agent) write(doc doc, o Options) {
	a := r.a
	header(doc, o)
	doc.title("Agent", "Task", excerpt(a.Task))
	kv := [][2]string{{"Participants", participants(o, a.Models, &a.Outcome)}, {"Stage", stageText(a)}}
	if a.PlanGiven {
		kv = append(kv, [2]string{"Plan", givenText(a)})
	}
	if a.Executor != "" {
		kv = append(kv, [2]string{"Executor", a.Executor})
	}
	if w := a.Workspace; w != nil {
		kv = append(kv, [2]string{"Branch", w.Branch}, [2]string{"Worktree", w.Dir})
	}
	if len(a.Attempts) > 0 {
		kv = append(kv, attemptsField(a))
	}
	doc.fields(kv)
	if o.show("context") {
		r.context(doc)
	}
	pl := plan{&quorum.PlanResult{Task: a.Task, Models: a.Models, Proposals: a.Proposals, Votes: a.Votes, Standings: a.Standings, Winner: a.Winner}}
	if o.show("proposals") && !a.PlanGiven { // a given plan had none
		pl.proposals(doc)
	}
	if o.show("votes") && len(a.Votes) > 0 {
		pl.votes(doc)
		if len(a.Standings) > 0 {
			pl.standings(doc)
		}
	}
	if o.show("plan-review") && len(a.PlanReviews) > 0 {
		r.planReviews(doc)
	}
	if o.show("plan") {
		r.plan(doc)
	}
	if o.show("attempts") && len(a.Attempts) > 0 {
		r.attempts(doc)
	}
	if o.show("steps") && len(a.Steps) > 0 {
		r.steps(doc)
	}
	if o.show("actions") && len(a.Actions) > 0 {
		r.actions(doc)
	}
	if o.show("sandbox") && a.Sandbox != nil {
		r.sandbox(doc)
	}
	if o.show("review") && len(a.Reviews) > 0 {
		r.reviews(doc, o)
	}
	if o.show("next") {
		r.next(doc, o)
	}
	usage(doc, o, &a.Outcome)
	problems(doc, o, &a.Outcome)
}

// stageText says how far the run went, in words.
func stageText(a *quorum.AgentResult) string {
	switch a.Stage {
	case quorum.StagePlanned:
		return "planned (nothing was executed)"
	case quorum.StageRejected:
		return "rejected at the gate (nothing was executed)"
	case quorum.StageExecuted:
		return "executed (not reviewed)"
	case quorum.StageReviewed:
		if len(a.Findings) > 0 {
			return fmt.Sprintf("executed and reviewed; %s remain", plural(len(a.Findings), "finding"))
		}
		return "executed and reviewed"
	}
	return "stopped while planning"
}

func (r agent) context(doc doc) {
	doc.heading(1, "Context read")
	if len(r.a.Context) == 0 {
		doc.para("Nothing: the models planned from the task alone.")
		return
	}
	var its []item
	for _, c := range r.a.Context {
		text := fmt.Sprintf("%s (%s bytes)", c.Path, thousands(c.Bytes))
		if c.Truncated {
			text += ", cut: the context budget was spent"
		}
		its = append(its, item{text: text})
	}
	doc.list(its)
}

func (r agent) planReviews(doc doc) {
	doc.heading(1, "Plan review")
	doc.note("The models other than the plan's author reviewed it; the author revised it for their objections.")
	for _, rr := range r.a.PlanReviews {
		doc.heading(2, fmt.Sprintf("Round %d", rr.Round))
		var its []item
		for _, pr := range rr.Reviews {
			it := item{text: pr.Reviewer + ": approved"}
			if !pr.Approve {
				it.text = pr.Reviewer + ": asked for changes"
				for _, o := range pr.Objections {
					it.sub = append(it.sub, o.Text)
				}
			}
			its = append(its, it)
		}
		if len(its) == 0 {
			doc.para("No review came in.")
		} else {
			doc.list(its)
		}
		if rr.Revised {
			doc.para("The author revised the plan.")
		}
	}
	if len(r.a.Objections) > 0 {
		doc.heading(2, "Objections still standing")
		var its []item
		for _, o := range r.a.Objections {
			its = append(its, item{text: fmt.Sprintf("%s (%s)", o.Text, o.Reviewer)})
		}
		doc.list(its)
	}
}

func (r agent) plan(doc doc) {
	a := r.a
	title := "The plan"
	switch a.Approval {
	case quorum.ApprovalApproved:
		title += " as approved"
	case quorum.ApprovalEdited:
		title += " as edited and approved"
	case quorum.ApprovalRejected:
		title += " (rejected)"
	}
	doc.heading(1, title)
	if a.Plan == nil {
		doc.para("None: planning did not finish.")
		return
	}
	doc.fields(planFields(*a.Plan))
	planSteps(doc, *a.Plan)
}

// givenText says where a plan given in advance came from.
func givenText(a *quorum.AgentResult) string {
	if a.PlanFrom == "" {
		return "given, not planned in this run"
	}
	return "given (from " + a.PlanFrom + "), not planned in this run"
}

// planFields are a plan's title and author (a given plan may name none).
func planFields(p quorum.AgentPlan) [][2]string {
	kv := [][2]string{{"Title", p.Title}}
	if p.Author != "" {
		kv = append(kv, [2]string{"Author", p.Author})
	}
	return kv
}

// planSteps writes a plan's steps, each with its files and check, and its
// risks.
func planSteps(doc doc, p quorum.AgentPlan) {
	var its []item
	for i, st := range p.Steps {
		it := item{text: fmt.Sprintf("Step %d: %s", i+1, st.Goal)}
		if len(st.Files) > 0 {
			it.sub = append(it.sub, "Files: "+strings.Join(st.Files, ", "))
		}
		if st.Check != "" {
			it.sub = append(it.sub, "Check: "+st.Check)
		}
		its = append(its, it)
	}
	doc.list(its)
	if len(p.Risks) > 0 {
		doc.para("Risks:")
		doc.list(items(p.Risks))
	}
}

func (r agent) steps(doc doc) {
	doc.heading(1, "Steps")
	for _, st := range r.a.Steps {
		head := fmt.Sprintf("Step %d: %s", st.Step, st.Goal)
		if st.Step == 0 {
			head = fmt.Sprintf("Fix round %s", strings.TrimPrefix(st.Round, "fix-"))
		}
		doc.heading(2, head)
		var its []item
		for _, u := range st.Tools {
			mark := "ok"
			switch {
			case !u.Done:
				mark = "did not finish"
			case !u.OK:
				mark = "failed"
			}
			it := item{text: fmt.Sprintf("%s %s: %s", u.Tool, u.Arguments, mark)}
			if u.Result != "" && (!u.OK || !u.Done) {
				it.sub = []string{u.Result}
			}
			its = append(its, it)
		}
		if len(its) > 0 {
			doc.list(its)
		} else {
			doc.para("No tool calls.")
		}
		if st.Reply != "" {
			doc.quote(st.Reply)
		}
		kv := [][2]string{}
		if st.Commit != "" {
			kv = append(kv, [2]string{"Commit", shortCommit(st.Commit)})
		} else {
			kv = append(kv, [2]string{"Commit", "none (nothing changed)"})
		}
		if st.Error != "" {
			kv = append(kv, [2]string{"Failed", errorText(st.Error)})
		}
		doc.fields(kv)
	}
}

func (r agent) actions(doc doc) {
	doc.heading(1, "Permission decisions")
	doc.note("Reads and writes inside the worktree are allowed; anything outside it, URLs (unless --allow-url) and other kinds are denied; shell commands are decided by --approve.")
	var rows [][]string
	for i, rec := range r.a.Actions {
		what := rec.Action.Command
		switch {
		case what != "":
		case rec.Action.URL != "":
			what = rec.Action.URL
		case len(rec.Action.Paths) > 0:
			what = strings.Join(r.relative(rec.Action.Paths), ", ")
		default:
			what = rec.Action.Tool
		}
		decision := "denied"
		if rec.Allow {
			decision = "allowed"
		}
		where := fmt.Sprint(rec.Step)
		if rec.Step == 0 {
			where = rec.Round
		}
		reason := rec.Reason
		for _, v := range rec.Votes {
			vote := "deny"
			if v.Approve {
				vote = "approve"
			}
			if v.Error != "" {
				vote = "no vote"
			}
			reason += fmt.Sprintf("; %s: %s", v.Model, vote)
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), where, rec.Action.Kind, excerpt(what), decision, rec.By, excerpt(reason)})
	}
	doc.table([]string{"#", "Step", "Kind", "What", "Decision", "By", "Why"}, []bool{true, false, false, false, false, false, false}, rows)
}

// relative shows paths inside the worktree relative to it, as the plan
// names files; a path outside it stays whole, to be seen for what it is.
func (r agent) relative(paths []string) []string {
	w := r.a.Workspace
	if w == nil || w.Dir == "" {
		return paths
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		switch {
		case p == w.Dir:
			out[i] = "."
		case strings.HasPrefix(p, w.Dir+"/"):
			out[i] = strings.TrimPrefix(p, w.Dir+"/")
		default:
			out[i] = p
		}
	}
	return out
}

func (r agent) reviews(doc doc, o Options) {
	for _, rv := range r.a.Reviews {
		title := "Review of the result"
		if rv.Round != "final" {
			title = "Review after " + strings.Replace(rv.Round, "fix-", "fix round ", 1)
		}
		doc.heading(1, title)
		doc.fields([][2]string{{"Change", changeText(rv.Change)}})
		review{&quorum.ReviewResult{Change: rv.Change, Inspections: rv.Inspections, Findings: rv.Findings}}.findings(doc, o)
	}
}

func (r agent) next(doc doc, o Options) {
	a := r.a
	doc.heading(1, "What now")
	w := a.Workspace
	switch {
	case a.Stage == quorum.StagePlanned:
		doc.para("Nothing was executed. To carry the plan out as it is, without planning it again, give this run's JSON (-o json) to quorum agent --plan FILE: on a terminal to approve it there, or with --yes.")
		return
	case a.Stage == quorum.StageRejected:
		doc.para("The plan was rejected; nothing was executed.")
		return
	case w == nil:
		doc.para("Nothing was executed.")
		return
	}
	if o.Incomplete != "" {
		doc.para("The run stopped; the work so far is committed on the branch and kept in the worktree.")
	}
	r.winnerNext(doc)
	doc.list([]item{
		{text: "Look at it: git diff " + shortCommit(w.Base) + ".." + w.Branch},
		{text: "Merge it: git merge " + w.Branch},
		{text: "Drop it: git worktree remove " + w.Dir + " && git branch -D " + w.Branch},
	})
	r.attemptsNext(doc)
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// AgentPlan is the plan an agent asks the user to approve: its title,
// author, steps and risks, and the objections still standing.
func AgentPlan(p quorum.AgentPlan, objections []quorum.PlanObjection) Report {
	return gatePlan{p, objections}
}

type gatePlan struct {
	p          quorum.AgentPlan
	objections []quorum.PlanObjection
}

func (gatePlan) Sections() []string { return nil }

func (g gatePlan) write(doc doc, o Options) {
	header(doc, o)
	doc.heading(1, "The plan: "+g.p.Title)
	if g.p.Author != "" {
		doc.fields([][2]string{{"Author", g.p.Author}})
	}
	planSteps(doc, g.p)
	if len(g.objections) > 0 {
		doc.para("Objections still standing:")
		var its []item
		for _, ob := range g.objections {
			its = append(its, item{text: fmt.Sprintf("%s (%s)", ob.Text, ob.Reviewer)})
		}
		doc.list(its)
	}
}
