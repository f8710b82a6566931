package report

import (
	"fmt"

	"github.com/quorum-go/quorum/quorum"
)

// Plan is the report of ensemble planning. Its parts come in the order of
// the run: every proposal, the votes, the standings, then the winning
// plan, which stays in view on a terminal; usage and what went wrong
// close it.
func Plan(p *quorum.PlanResult) Report { return plan{p} }

type plan struct{ p *quorum.PlanResult }

// PlanSections are the parts of a plan's report.
var PlanSections = []string{"proposals", "votes", "standings", "winner", "usage"}

func (plan) Sections() []string { return PlanSections }

func (r plan) proposal(label string) (quorum.Proposal, bool) {
	for _, p := range r.p.Proposals {
		if p.Label == label {
			return p, true
		}
	}
	return quorum.Proposal{}, false
}

// name names a plan with its model: "Plan A (sim-beta)".
func (r plan) name(label string) string {
	pr, _ := r.proposal(label)
	return fmt.Sprintf("Plan %s (%s)", label, pr.Model)
}

func (r plan) write(doc doc, o Options) {
	p := r.p
	header(doc, o)
	doc.title("Plan", "Task", o.subject(p.Task))
	doc.fields(o.withContext([][2]string{{"Participants", participants(o, p.Models, &p.Outcome)}}))
	if o.show("proposals") {
		r.proposals(doc)
	}
	if o.show("votes") && len(p.Votes) > 0 {
		r.votes(doc)
	}
	if o.show("standings") && len(p.Standings) > 0 {
		r.standings(doc)
	}
	if o.show("winner") {
		r.winner(doc, o)
	}
	usage(doc, o, &p.Outcome)
	problems(doc, o, &p.Outcome)
}

// spec writes a plan's steps and risks.
func spec(doc doc, pr quorum.Proposal) {
	doc.numbered(pr.Steps)
	if len(pr.Risks) > 0 {
		doc.para("Risks:")
		doc.list(items(pr.Risks))
	}
}

func (r plan) proposals(doc doc) {
	doc.heading(1, "Proposals")
	if len(r.p.Proposals) == 0 {
		doc.para("No usable plan came in.")
		return
	}
	doc.note("Voters saw each plan under its label only, never its model's name.")
	props := append([]quorum.Proposal(nil), r.p.Proposals...)
	sortByLabel(props, func(p quorum.Proposal) string { return p.Label })
	for _, pr := range props {
		doc.heading(2, fmt.Sprintf("Plan %s · %s: %s", pr.Label, pr.Model, pr.Title))
		spec(doc, pr)
	}
}

func (r plan) votes(doc doc) {
	doc.heading(1, "Votes")
	doc.note("Every participant scored every other plan from 1 to 10, never its own.")
	var voters []string
	by := map[string][]quorum.Vote{}
	for _, v := range r.p.Votes {
		if by[v.Voter] == nil {
			voters = append(voters, v.Voter)
		}
		by[v.Voter] = append(by[v.Voter], v)
	}
	for _, voter := range voters {
		doc.heading(2, "By "+voter)
		var cast []item
		for _, v := range by[voter] {
			it := item{text: fmt.Sprintf("%s: %s/10", r.name(v.Plan), num(v.Score))}
			switch {
			case v.Error != "":
				it.text = fmt.Sprintf("%s: failed (%s)", r.name(v.Plan), errorText(v.Error))
			case v.Reasoning != "":
				it.sub = []string{v.Reasoning}
			}
			cast = append(cast, it)
		}
		doc.list(cast)
	}
}

func (r plan) standings(doc doc) {
	doc.heading(1, "Standings")
	doc.note("Mean score of the other models' votes; ties go to the Borda count, then to fewer failed votes, then to the configured order.")
	var rows [][]string
	for _, st := range r.p.Standings {
		pr, _ := r.proposal(st.Label)
		rows = append(rows, []string{fmt.Sprint(st.Rank), st.Label, st.Model, pr.Title, mean(st), fmt.Sprint(st.Scores), num(st.Borda), fmt.Sprint(st.Failed)})
	}
	doc.table([]string{"Rank", "Plan", "Model", "Title", "Mean score", "Votes", "Borda", "Failed"}, []bool{true, false, false, false, true, true, true, true}, rows)
}

func (r plan) winner(doc doc, o Options) {
	p := r.p
	win, ok := r.proposal(p.Winner)
	if !ok {
		doc.heading(1, "Winning plan")
		if o.Incomplete != "" {
			doc.para("None: the run stopped before the votes were counted.")
		}
		return
	}
	doc.heading(1, "Winning plan")
	doc.fields([][2]string{{"Title", win.Title}, {"Plan", fmt.Sprintf("%s, by %s", win.Label, win.Model)}, {"Why it won", p.Reason}})
	spec(doc, win)
}
