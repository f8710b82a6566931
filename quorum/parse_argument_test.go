package quorum_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func TestParseArgument(t *testing.T) {
	cases := []struct {
		name     string
		text     string
		want     quorum.Argument
		ok       bool
		problems []string
	}{{
		name: "JSON as asked",
		text: `{"argument": "It holds.", "answers": [{"objection": "O1", "answer": "Rollback is tested."}], "rulings": [{"objection": "O2", "status": "withdrawn", "reason": "fair"}], "objections": [{"severity": "blocking", "text": "No data."}]}`,
		want: quorum.Argument{Argument: "It holds.", Answers: []quorum.Rebuttal{{Objection: "O1", Text: "Rollback is tested."}},
			Rulings: []quorum.Ruling{{Objection: "O2", Status: quorum.StatusWithdrawn, Reason: "fair"}}, Objections: []quorum.RaisedObjection{{Severity: quorum.SeverityBlocking, Text: "No data."}}},
		ok: true,
	}, {
		name: "loose JSON in a fence, maps and other words",
		text: "Sure.\n```json\n{\"case\": \"No.\", \"answers\": {\"objection 3\": \"Because.\",}, \"rulings\": [{\"id\": 1, \"ruling\": \"resolved\", \"why\": \"ok\"}], \"objections\": [{\"level\": \"critical\", \"objection\": \"Cost.\"}, \"low: Naming.\"],}\n```",
		want: quorum.Argument{Argument: "No.", Answers: []quorum.Rebuttal{{Objection: "O3", Text: "Because."}},
			Rulings:    []quorum.Ruling{{Objection: "O1", Status: quorum.StatusAnswered, Reason: "ok"}},
			Objections: []quorum.RaisedObjection{{Severity: quorum.SeverityBlocking, Text: "Cost."}, {Severity: quorum.SeverityMinor, Text: "Naming."}}},
		ok: true,
	}, {
		name: "objections by severity",
		text: `{"argument": "x", "objections": {"major": ["A", "B"], "blocking": "C"}}`,
		want: quorum.Argument{Argument: "x", Objections: []quorum.RaisedObjection{{Severity: quorum.SeverityBlocking, Text: "C"}, {Severity: quorum.SeverityMajor, Text: "A"}, {Severity: quorum.SeverityMajor, Text: "B"}}},
		ok:   true,
	}, {
		name: "unreadable entries are left out and named",
		text: `{"argument": "x", "answers": [{"answer": "to what?"}, {"objection": "O2", "answer": "a"}, {"objection": "O2", "answer": "b"}], "rulings": [{"objection": "O1", "status": "maybe"}], "objections": [{"severity": "catastrophic", "text": "Doom."}]}`,
		want: quorum.Argument{Argument: "x", Answers: []quorum.Rebuttal{{Objection: "O2", Text: "a"}}},
		ok:   true, problems: []string{"an answer names no objection id", `the ruling on O1 has no known status ("maybe")`, `no known severity ("catastrophic")`, "O2 gets two answers"},
	}, {
		name: "Markdown sections",
		text: "## Argument\nThe claim fails.\n\n## Rulings\n- O1: answered — the pilot settles it\n- O2 stands because the numbers are old\n\n## Objections\n- [blocking] Nobody owns it.\n- **Minor**: The name.\n- And something vague.\n",
		want: quorum.Argument{Argument: "The claim fails.",
			Rulings:    []quorum.Ruling{{Objection: "O1", Status: quorum.StatusAnswered, Reason: "the pilot settles it"}, {Objection: "O2", Status: quorum.StatusStanding, Reason: "because the numbers are old"}},
			Objections: []quorum.RaisedObjection{{Severity: quorum.SeverityBlocking, Text: "Nobody owns it."}, {Severity: quorum.SeverityMinor, Text: "The name."}}},
		ok: true, problems: []string{"no JSON reply found", "an objection has no known severity; ignored: And something vague."},
	}, {
		name: "list items without sections",
		text: "I answer as follows.\n- O1: we measured it.\n- **Objection 2**: it is one-off.\n",
		want: quorum.Argument{Argument: "I answer as follows.", Answers: []quorum.Rebuttal{{Objection: "O1", Text: "we measured it."}, {Objection: "O2", Text: "it is one-off."}}},
		ok:   true, problems: []string{"no JSON reply found"},
	}, {
		name: "prose only",
		text: "Microservices suit small teams badly.\n\nThey cost more to run.",
		want: quorum.Argument{Argument: "Microservices suit small teams badly.\n\nThey cost more to run."},
		ok:   true, problems: []string{"the whole text is kept as the argument"},
	}, {
		name: "nothing",
		text: "```json\n{\"argument\": \"\"}\n```",
		ok:   false, problems: []string{"the argument is empty", "nothing usable"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, problems, ok := quorum.ParseArgument(c.text)
			if ok != c.ok {
				t.Errorf("ok = %v, want %v (problems %v)", ok, c.ok, problems)
			}
			if !reflect.DeepEqual(norm(a), norm(c.want)) {
				t.Errorf("got  %+v\nwant %+v", a, c.want)
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

// norm makes empty lists nil, so that cases need not spell them.
func norm(a quorum.Argument) quorum.Argument {
	if len(a.Answers) == 0 {
		a.Answers = nil
	}
	if len(a.Rulings) == 0 {
		a.Rulings = nil
	}
	if len(a.Objections) == 0 {
		a.Objections = nil
	}
	return a
}

func TestParseSeverity(t *testing.T) {
	for in, want := range map[string]quorum.Severity{
		"blocking": quorum.SeverityBlocking, "**Critical**": quorum.SeverityBlocking, "[HIGH]": quorum.SeverityBlocking,
		"Major": quorum.SeverityMajor, "warning": quorum.SeverityMajor, "medium": quorum.SeverityMajor,
		"minor": quorum.SeverityMinor, "nit": quorum.SeverityMinor, "Low": quorum.SeverityMinor, "info": quorum.SeverityMinor,
	} {
		if got, ok := quorum.ParseSeverity(in); !ok || got != want {
			t.Errorf("ParseSeverity(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "urgent-ish", "maybe", "10"} {
		if got, ok := quorum.ParseSeverity(in); ok {
			t.Errorf("ParseSeverity(%q) = %q", in, got)
		}
	}
	if !quorum.SeverityBlocking.AtLeast(quorum.SeverityMajor) || quorum.SeverityMinor.AtLeast(quorum.SeverityMajor) || quorum.Severity("x").AtLeast(quorum.Severity("y")) {
		t.Error("AtLeast orders severities wrongly")
	}
}
