package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// Review is the report of a review of a change. Its parts come in the
// order of the run: each model's findings, then the merged findings,
// ranked, which are what stays in view on a terminal; usage and what went
// wrong close it.
func Review(r *quorum.ReviewResult) Report { return review{r} }

type review struct{ r *quorum.ReviewResult }

// ReviewSections are the parts of a review's report.
var ReviewSections = []string{"reviews", "findings", "usage"}

func (review) Sections() []string { return ReviewSections }

func (v review) write(doc doc, o Options) {
	r := v.r
	header(doc, o)
	doc.title("Review", "Change", changeText(r.Change))
	kv := [][2]string{{"Reviewers", participants(o, r.Models, &r.Outcome)}}
	if len(r.Change.Context) > 0 {
		kv = append(kv, [2]string{"Context", strings.Join(r.Change.Context, ", ")})
	}
	doc.fields(kv)
	if o.show("reviews") {
		v.inspections(doc)
	}
	if o.show("findings") {
		v.findings(doc, o)
	}
	usage(doc, o, &r.Outcome)
	problems(doc, o, &r.Outcome)
}

// changeText sums a change up: "2 files, +18 −1: a.go (modified, +9 −1),
// b.go (added, +9 −0)".
func changeText(c quorum.ChangeSummary) string {
	files := make([]string, len(c.Files))
	for i, f := range c.Files {
		switch f.Status {
		case "binary":
			files[i] = f.Path + " (binary)"
		case "renamed":
			files[i] = fmt.Sprintf("%s (renamed from %s, +%d −%d)", f.Path, f.OldPath, f.Added, f.Deleted)
		default:
			files[i] = fmt.Sprintf("%s (%s, +%d −%d)", f.Path, f.Status, f.Added, f.Deleted)
		}
	}
	return excerpt(fmt.Sprintf("%s, +%d −%d: %s", plural(len(c.Files), "file"), c.Added, c.Deleted, strings.Join(files, ", ")))
}

// place is where a finding is: "a.go:12-14", "a.go:12", "a.go", or the
// change as a whole.
func place(f quorum.Finding) string {
	switch {
	case f.File == "":
		return "the change as a whole"
	case f.StartLine == 0:
		return f.File
	case f.EndLine > f.StartLine:
		return fmt.Sprintf("%s:%d-%d", f.File, f.StartLine, f.EndLine)
	}
	return fmt.Sprintf("%s:%d", f.File, f.StartLine)
}

func (v review) inspections(doc doc) {
	doc.heading(1, "Reviews")
	if len(v.r.Inspections) == 0 {
		doc.para("No review came in.")
		return
	}
	doc.note("Each model reviewed the change on its own.")
	for _, in := range v.r.Inspections {
		doc.heading(2, fmt.Sprintf("By %s: %s", in.Model, plural(len(in.Findings), "finding")))
		if !in.Usable {
			doc.para("Nothing in this review could be read, so it did not count: " + strings.Join(in.Problems, "; "))
			continue
		}
		if len(in.Findings) == 0 {
			doc.para("No findings.")
		}
		var its []item
		for _, f := range in.Findings {
			it := item{text: fmt.Sprintf("[%s] %s (%s): %s", f.Severity, place(f), f.Category, f.Explanation)}
			if f.Suggestion != "" {
				it.sub = []string{"Suggested fix: " + f.Suggestion}
			}
			its = append(its, it)
		}
		if len(its) > 0 {
			doc.list(its)
		}
		if len(in.Problems) > 0 {
			doc.para("Parse problems: " + strings.Join(in.Problems, "; "))
		}
	}
}

func (v review) findings(doc doc, o Options) {
	r := v.r
	doc.heading(1, "Findings")
	if len(r.Findings) == 0 {
		if o.Incomplete != "" {
			doc.para("None among the reviews that came in.")
		} else {
			doc.para("No findings.")
		}
		return
	}
	usable := 0
	for _, in := range r.Inspections {
		if in.Usable {
			usable++
		}
	}
	doc.note("The same finding from several models counts once; ranked by severity, then by how many models reported it.")
	var rows [][]string
	for _, f := range r.Findings {
		rows = append(rows, []string{f.ID, string(f.Severity), fmt.Sprintf("%d of %d", f.Agreement, usable), place(f.Finding), f.Category})
	}
	doc.table([]string{"Finding", "Severity", "Models", "Where", "Category"}, []bool{false, false, true, false, false}, rows)
	for _, f := range r.Findings {
		doc.heading(2, fmt.Sprintf("%s · %s · %s", f.ID, f.Severity, place(f.Finding)))
		doc.fields([][2]string{{"Category", f.Category}, {"Reported by", strconv.Itoa(f.Agreement) + " of " + strconv.Itoa(usable) + ": " + strings.Join(f.Models, ", ")}})
		doc.quote(f.Explanation)
		if f.Suggestion != "" {
			doc.para("Suggested fix: " + f.Suggestion)
		}
	}
}
