package quorum

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// mergeSlack is how many lines apart two reports of one problem may
// start or end: models point at a statement, its block or the line
// before, for the same problem.
const mergeSlack = 2

// mergeFindings merges the findings of usable inspections (in configured
// model order) and ranks them. Two findings are one when they are on the
// same file, and either their lines overlap (within mergeSlack) and their
// categories agree, or their explanations share enough words (lines then
// overlapping too, when both give lines). A model never agrees with
// itself: a second finding of one model is matched against the others'
// findings only. Groups form in the order findings come, so the result
// does not depend on timing.
func mergeFindings(ins []Inspection) []MergedFinding {
	type group struct {
		reports []FindingReport
	}
	var groups []*group
	for _, in := range ins {
		if !in.Usable {
			continue
		}
		for _, f := range in.Findings {
			var match *group
			for _, g := range groups {
				if slices.ContainsFunc(g.reports, func(r FindingReport) bool { return r.Model == in.Model }) {
					continue
				}
				if slices.ContainsFunc(g.reports, func(r FindingReport) bool { return sameFinding(r.Finding, f) }) {
					match = g
					break
				}
			}
			if match == nil {
				match = &group{}
				groups = append(groups, match)
			}
			match.reports = append(match.reports, FindingReport{Model: in.Model, Finding: f})
		}
	}
	out := make([]MergedFinding, len(groups))
	for i, g := range groups {
		out[i] = merged(g.reports)
	}
	// Stable, on the order groups formed: equal findings keep it.
	slices.SortStableFunc(out, func(a, b MergedFinding) int {
		if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Agreement, a.Agreement); c != 0 {
			return c
		}
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		return cmp.Compare(a.StartLine, b.StartLine)
	})
	for i := range out {
		out[i].Rank = i + 1
		out[i].ID = fmt.Sprintf("F%d", i+1)
	}
	return out
}

// sameFinding says whether two models' findings are the same problem.
func sameFinding(a, b Finding) bool {
	if a.File != b.File {
		return false
	}
	lined := a.StartLine > 0 && b.StartLine > 0
	near := lined && a.StartLine-mergeSlack <= b.EndLine && b.StartLine-mergeSlack <= a.EndLine
	if lined && !near {
		return false
	}
	if near && a.Category == b.Category {
		return true
	}
	return similar(a.Explanation, b.Explanation)
}

// similar says whether two explanations share enough of their words
// (Jaccard index of their words of four letters or more at least 0.3):
// the same problem told twice shares its nouns.
func similar(a, b string) bool {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	both := 0
	for w := range wa {
		if wb[w] {
			both++
		}
	}
	return float64(both)/float64(len(wa)+len(wb)-both) >= 0.3
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_')
	}) {
		if len(w) >= 4 {
			out[w] = true
		}
	}
	return out
}

// merged makes one finding of its reports: see MergedFinding.
func merged(reports []FindingReport) MergedFinding {
	m := MergedFinding{Reports: reports, Agreement: len(reports)}
	sevs, cats := map[Severity]int{}, map[string]int{}
	for _, r := range reports {
		m.Models = append(m.Models, r.Model)
		sevs[r.Severity]++
		cats[r.Category]++
		if r.StartLine > 0 {
			if m.StartLine == 0 || r.StartLine < m.StartLine {
				m.StartLine = r.StartLine
			}
			m.EndLine = max(m.EndLine, r.EndLine)
		}
	}
	// The severity most reports give, a tie going to the more severe: one
	// model's alarm does not outvote two that judged it less severe, and
	// where they split evenly the more cautious reading wins.
	for _, sev := range Severities {
		if m.Severity == "" || sevs[sev] > sevs[m.Severity] {
			m.Severity = sev
		}
	}
	m.Category = reports[0].Category
	for _, r := range reports {
		if cats[r.Category] > cats[m.Category] {
			m.Category = r.Category
		}
	}
	rep := reports[slices.IndexFunc(reports, func(r FindingReport) bool { return r.Severity == m.Severity })]
	m.File, m.Explanation, m.Suggestion = rep.File, rep.Explanation, rep.Suggestion
	return m
}
