package quorum_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func TestParseDecision(t *testing.T) {
	ids := []string{"O1", "O2", "O3"}
	cases := []struct {
		name     string
		text     string
		position quorum.Position
		rulings  []quorum.Ruling
		change   int
		problems []string
	}{{
		name:     "JSON as asked",
		text:     `{"position": "against", "summary": "O1 stands.", "rulings": [{"objection": "O3", "status": "answered", "reason": "ok"}], "wouldChange": ["data", "a pilot"]}`,
		position: quorum.PositionAgainst, rulings: []quorum.Ruling{{Objection: "O3", Status: quorum.StatusAnswered, Reason: "ok"}}, change: 2,
	}, {
		name:     "other words in a fence, an unknown id",
		text:     "Verdict:\n```\n{\"verdict\": \"Supported\", \"reasoning\": \"fine\", \"rulings\": {\"O2\": \"still stands\", \"O9\": \"resolved\"}, \"changeIf\": \"new data\"}\n```",
		position: quorum.PositionFor, rulings: []quorum.Ruling{{Objection: "O2", Status: quorum.StatusStanding}}, change: 1,
		problems: []string{"a ruling on O9, which is not in the ledger, was ignored"},
	}, {
		name:     "Markdown",
		text:     "**Position:** undecided\n\n## Summary\nTwo majors stand.\n\n## Rulings\n- O1: answered — good\n\n## What would change the verdict\n- A benchmark\n",
		position: quorum.PositionUndecided, rulings: []quorum.Ruling{{Objection: "O1", Status: quorum.StatusAnswered, Reason: "good"}}, change: 1,
		problems: []string{"no JSON verdict found"},
	}, {
		name:     "a position in a sentence",
		text:     "## Position\nThe debate comes out in favour of the claim, with no blocking objection left.\n",
		position: quorum.PositionFor, problems: []string{"does not say what would change it"},
	}, {
		name:     "no position",
		text:     `{"summary": "It depends.", "wouldChange": []}`,
		problems: []string{"no position found"},
	}, {
		name:     "a position that is none of the three",
		text:     `{"position": "purple", "summary": "x", "wouldChange": []}`,
		problems: []string{`the position "purple" is not for, against or undecided`, "no position found"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, problems, ok := quorum.ParseDecision(c.text, ids)
			if ok != (c.position != "") || d.Position != c.position {
				t.Errorf("position %q, ok %v; want %q (problems %v)", d.Position, ok, c.position, problems)
			}
			if !slices.Equal(d.Rulings, c.rulings) && len(d.Rulings)+len(c.rulings) > 0 {
				t.Errorf("rulings %+v, want %+v", d.Rulings, c.rulings)
			}
			if len(d.WouldChange) != c.change {
				t.Errorf("would change: %q", d.WouldChange)
			}
			for _, p := range c.problems {
				if !slices.ContainsFunc(problems, func(s string) bool { return strings.Contains(s, p) }) {
					t.Errorf("problems %q lack %q", problems, p)
				}
			}
		})
	}
}
