package quorum_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func TestParseFindings(t *testing.T) {
	sql := quorum.Finding{File: "app/db.go", StartLine: 12, EndLine: 14, Severity: quorum.SeverityBlocking, Category: "security", Explanation: "SQL injection.", Suggestion: "Use placeholders."}
	cases := []struct {
		name     string
		text     string
		want     []quorum.Finding
		ok       bool
		problems []string
	}{{
		name: "JSON as asked",
		text: `{"findings": [{"file": "app/db.go", "startLine": 12, "endLine": 14, "severity": "blocking", "category": "security", "explanation": "SQL injection.", "suggestion": "Use placeholders."}]}`,
		want: []quorum.Finding{sql}, ok: true,
	}, {
		name: "other keys and words, a range as text, in a fence",
		text: "Review:\n```json\n{\"issues\": [{\"path\": \"app/db.go\", \"lines\": \"14-12\", \"level\": \"Critical\", \"type\": \"Security\", \"message\": \"SQL injection.\", \"fix\": \"Use placeholders.\"},]}\n```",
		want: []quorum.Finding{sql}, ok: true,
	}, {
		name: "a location in the file field, a bare list",
		text: `[{"file": "app/db.go:12-14", "severity": "high", "category": "SEC", "title": "SQL injection.", "suggestion": "Use placeholders."}]`,
		want: []quorum.Finding{sql}, ok: true,
	}, {
		name: "none, in JSON",
		text: "Nothing stands out.\n{\"findings\": []}",
		want: []quorum.Finding{}, ok: true,
	}, {
		name: "findings without severity or explanation are left out",
		text: `{"findings": [{"file": "a.go", "line": 3, "severity": "whenever", "explanation": "Hm."}, {"file": "a.go", "severity": "minor"}, {"file": "a.go", "line": 7, "severity": "nit", "explanation": "Typo."}]}`,
		want: []quorum.Finding{{File: "a.go", StartLine: 7, EndLine: 7, Severity: quorum.SeverityMinor, Category: "general", Explanation: "Typo."}},
		ok:   true, problems: []string{`a finding on a.go has no known severity ("whenever"); ignored: Hm.`, "a finding on a.go says nothing"},
	}, {
		name: "Markdown list",
		text: "Findings:\n\n- [blocking] `app/db.go:12-14` (security): SQL injection.\n  Suggested fix: Use placeholders.\n- **Minor** cmd/main.go line 3: the name is unclear\n- `a.go:1`: consider a clearer name here.\n",
		want: []quorum.Finding{sql, {File: "cmd/main.go", StartLine: 3, EndLine: 3, Severity: quorum.SeverityMinor, Category: "general", Explanation: "the name is unclear"}},
		ok:   true, problems: []string{"no JSON findings found"},
	}, {
		name: "none, in prose",
		text: "No findings: the change looks good to me.",
		want: []quorum.Finding{}, ok: true, problems: []string{"no JSON findings found"},
	}, {
		name: "nothing usable",
		text: "I would rather not say.",
		want: []quorum.Finding{}, ok: false, problems: []string{"nothing usable"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, problems, ok := quorum.ParseFindings(c.text)
			if ok != c.ok {
				t.Errorf("ok = %v, want %v (problems %v)", ok, c.ok, problems)
			}
			if !reflect.DeepEqual(fs, c.want) {
				t.Errorf("got  %+v\nwant %+v", fs, c.want)
			}
			for _, p := range c.problems {
				if !slices.ContainsFunc(problems, func(s string) bool { return strings.Contains(s, p) }) {
					t.Errorf("problems %q lack %q", problems, p)
				}
			}
			if c.problems == nil && len(problems) > 0 {
				t.Errorf("unexpected problems %q", problems)
			}
		})
	}
}
