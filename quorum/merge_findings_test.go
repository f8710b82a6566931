package quorum

import (
	"slices"
	"testing"
)

func TestMergeFindings(t *testing.T) {
	f := func(file string, start, end int, sev Severity, cat, text string) Finding {
		return Finding{File: file, StartLine: start, EndLine: end, Severity: sev, Category: cat, Explanation: text}
	}
	ins := []Inspection{
		{Model: "m1", Usable: true, Findings: []Finding{
			f("db.go", 12, 12, SeverityMajor, "security", "SQL built from input allows injection."),
			f("db.go", 40, 40, SeverityMinor, "style", "Long line."),
			f("db.go", 12, 12, SeverityMinor, "security", "Another remark on the same line."),
		}},
		{Model: "m2", Usable: true, Findings: []Finding{
			f("db.go", 11, 13, SeverityBlocking, "security", "Injection: the query concatenates input."),
			f("main.go", 3, 3, SeverityMinor, "tests", "No test covers main."),
		}},
		{Model: "m3", Usable: false, Findings: []Finding{f("db.go", 12, 12, SeverityBlocking, "security", "ignored: unusable")}},
		{Model: "m4", Usable: true, Findings: []Finding{
			f("db.go", 14, 14, SeverityMajor, "bug", "The SQL query concatenates user input: injection."),
			f("db.go", 90, 90, SeverityMajor, "security", "SQL built from input allows injection."),
			f("", 0, 0, SeverityMinor, "docs", "The change needs a changelog entry."),
		}},
	}
	got := mergeFindings(ins)
	type row struct {
		id     string
		sev    Severity
		file   string
		start  int
		end    int
		cat    string
		models []string
	}
	var rows []row
	for _, m := range got {
		rows = append(rows, row{m.ID, m.Severity, m.File, m.StartLine, m.EndLine, m.Category, m.Models})
		if m.Agreement != len(m.Reports) || m.Agreement != len(m.Models) {
			t.Errorf("%s: agreement %d with %d reports", m.ID, m.Agreement, len(m.Reports))
		}
	}
	want := []row{
		// Three models on one injection: the severity most give (one
		// model's blocking does not outvote two majors), the lines every
		// report covers, the category most give, and the explanation of
		// the first report with that severity.
		{"F1", SeverityMajor, "db.go", 11, 14, "security", []string{"m1", "m2", "m4"}},
		// The same words far away are another place.
		{"F2", SeverityMajor, "db.go", 90, 90, "security", []string{"m4"}},
		// m1's second remark on line 12 is not m1 agreeing with itself.
		{"F3", SeverityMinor, "", 0, 0, "docs", []string{"m4"}},
		{"F4", SeverityMinor, "db.go", 12, 12, "security", []string{"m1"}},
		{"F5", SeverityMinor, "db.go", 40, 40, "style", []string{"m1"}},
		{"F6", SeverityMinor, "main.go", 3, 3, "tests", []string{"m2"}},
	}
	if !slices.EqualFunc(rows, want, func(a, b row) bool {
		return a.id == b.id && a.sev == b.sev && a.file == b.file && a.start == b.start && a.end == b.end && a.cat == b.cat && slices.Equal(a.models, b.models)
	}) {
		t.Errorf("merged:\n got %+v\nwant %+v", rows, want)
	}
	if got[0].Explanation != "SQL built from input allows injection." {
		t.Errorf("F1 explains %q, not the first major report's words", got[0].Explanation)
	}
	// An even split goes to the more severe.
	split := mergeFindings([]Inspection{
		{Model: "a", Usable: true, Findings: []Finding{f("x.go", 1, 1, SeverityMinor, "bug", "Off by one.")}},
		{Model: "b", Usable: true, Findings: []Finding{f("x.go", 1, 1, SeverityBlocking, "bug", "Off by one here.")}},
	})
	if len(split) != 1 || split[0].Severity != SeverityBlocking || split[0].Explanation != "Off by one here." {
		t.Errorf("an even split: %+v", split)
	}
	if rows[0].id != "F1" || got[0].Rank != 1 || got[5].Rank != 6 {
		t.Errorf("ranks: %+v", got)
	}
}
