package report

import (
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// Discuss is the report of a discussion. Its parts come in the order
// of the run: the answers, the reviews, the ranking, then the synthesis,
// which is what stays in view on a terminal when the report has scrolled
// past; usage and what went wrong close it.
func Discuss(d *quorum.DiscussResult) Report { return discuss{d} }

type discuss struct{ d *quorum.DiscussResult }

// DiscussSections are the parts of a discussion's report.
var DiscussSections = []string{"answers", "reviews", "ranking", "synthesis", "usage"}

func (discuss) Sections() []string { return DiscussSections }

// modelOf is the model that wrote the answer labelled l.
func (r discuss) modelOf(l string) string {
	for _, a := range r.d.Answers {
		if a.Label == l {
			return a.Model
		}
	}
	return "?"
}

// response names an answer with its model: "Response A (sim-beta)".
func (r discuss) response(l string) string {
	return fmt.Sprintf("Response %s (%s)", l, r.modelOf(l))
}

func (r discuss) write(doc doc, o Options) {
	d := r.d
	header(doc, o)
	doc.title("Discussion", "Question", o.subject(d.Question))
	kv := [][2]string{{"Participants", participants(o, d.Models, &d.Outcome)}}
	if s := d.Synthesis; s != nil {
		kv = append(kv, [2]string{"Moderator", moderatorLine(s.Moderation)})
	}
	doc.fields(o.withContext(kv))
	if o.show("answers") {
		r.answers(doc)
	}
	if o.show("reviews") && len(d.Reviews) > 0 {
		r.reviews(doc)
	}
	if o.show("ranking") && len(d.Standings) > 0 {
		r.ranking(doc)
	}
	if o.show("synthesis") {
		r.synthesis(doc, o)
	}
	usage(doc, o, &d.Outcome)
	problems(doc, o, &d.Outcome)
}

// answers writes each answer under its label and model, in label order,
// the order reviewers and the moderator saw them in.
func (r discuss) answers(doc doc) {
	doc.heading(1, "Answers")
	if len(r.d.Answers) == 0 {
		doc.para("No answer came in.")
		return
	}
	answers := append([]quorum.Answer(nil), r.d.Answers...)
	sortByLabel(answers, func(a quorum.Answer) string { return a.Label })
	doc.note("Reviewers and the moderator saw each answer under its label only, never its model's name.")
	for _, a := range answers {
		doc.heading(2, fmt.Sprintf("Response %s · %s", a.Label, a.Model))
		doc.quote(a.Text)
	}
}

func (r discuss) reviews(doc doc) {
	doc.heading(1, "Reviews")
	doc.note(fmt.Sprintf("Each participant scored %s from 1 to 10, never its own, and ranked them.", r.reviewedWhat()))
	for _, rv := range r.d.Reviews {
		doc.heading(2, fmt.Sprintf("By %s, author of Response %s", rv.Reviewer, rv.ReviewerLabel))
		if !rv.Usable {
			doc.para("Nothing in this review could be read, so it did not count: " + strings.Join(rv.Problems, "; "))
			continue
		}
		var judged []item
		for _, a := range rv.Verdict.Assessments {
			score := "no score"
			if a.Score > 0 {
				score = num(a.Score) + "/10"
			}
			it := item{text: fmt.Sprintf("%s: %s", r.response(a.Label), score)}
			for _, s := range a.Strengths {
				it.sub = append(it.sub, "+ "+s)
			}
			for _, w := range a.Weaknesses {
				it.sub = append(it.sub, "− "+w)
			}
			judged = append(judged, it)
		}
		if len(judged) > 0 {
			doc.list(judged)
		}
		if len(rv.Verdict.Ranking) > 0 {
			doc.para("Ranking: " + strings.Join(rv.Verdict.Ranking, " > "))
		}
		if len(rv.Problems) > 0 {
			doc.para("Not counted: " + strings.Join(rv.Problems, "; "))
		}
	}
}

func (r discuss) ranking(doc doc) {
	d := r.d
	doc.heading(1, "Ranking")
	switch {
	case !d.Ranked && !r.reviewPhase():
		doc.note("Not ranked: peer review was skipped (--no-review), as asked; answers in the configured order.")
	case !d.Ranked:
		doc.note("Not ranked: no review could be used; answers in the configured order.")
	default:
		doc.note("Mean score and Borda count of the reviews, self-votes excluded; ties go to the Borda count, then to the configured order.")
	}
	var rows [][]string
	for _, st := range d.Standings {
		rows = append(rows, []string{fmt.Sprint(st.Rank), st.Label, st.Model, mean(st), fmt.Sprint(st.Scores), num(st.Borda), fmt.Sprint(st.Failed)})
	}
	doc.table([]string{"Rank", "Response", "Model", "Mean score", "Scores", "Borda", "Failed"}, []bool{true, false, false, true, true, true, true}, rows)
}

func (r discuss) synthesis(doc doc, o Options) {
	d := r.d
	doc.heading(1, "Synthesis")
	s := d.Synthesis
	if s == nil {
		if o.Incomplete != "" {
			doc.para("Not written: the run stopped first.")
		}
		return
	}
	// The synthesis cites answers by label: the legend sits right above.
	var labels, models []string
	for _, st := range d.Standings {
		labels, models = append(labels, st.Label), append(models, st.Model)
	}
	sortPairs(labels, models)
	doc.fields([][2]string{{"By", moderatorLine(s.Moderation)}, {"Responses", legend(labels, models)}})
	doc.heading(2, "Conclusion")
	doc.quote(s.Conclusion)
	for _, sec := range []struct {
		title string
		items []string
	}{{"Key points", s.KeyPoints}, {"Consensus", s.Consensus}, {"Disagreements", s.Disagreements}} {
		doc.heading(2, sec.title)
		if len(sec.items) == 0 {
			doc.para("None.")
			continue
		}
		doc.list(items(sec.items))
	}
}

// reviewPhase says whether the discussion had a peer review: it has none
// with --no-review.
func (r discuss) reviewPhase() bool {
	for _, p := range r.d.Phases {
		if p.Phase == quorum.PhaseReview {
			return true
		}
	}
	return len(r.d.Reviews) > 0
}

// reviewedWhat says which answers each reviewer scored: all the others',
// or, with --reviewers N, N of them.
func (r discuss) reviewedWhat() string {
	others := len(r.d.Answers) - 1
	n := -1
	for _, rv := range r.d.Reviews {
		if !rv.Usable {
			continue
		}
		switch {
		case n == -1:
			n = len(rv.Reviewed)
		case n != len(rv.Reviewed):
			return "some of the others' answers"
		}
	}
	if n < 0 || n >= others {
		return "the others' answers"
	}
	if n == 1 {
		return "one of the others' answers"
	}
	return fmt.Sprintf("%d of the others' answers", n)
}
