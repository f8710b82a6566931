package quorum

import (
	"strings"
	"testing"
)

func TestParseAgentPlan(t *testing.T) {
	p, _, ok := parseAgentPlan("Here:\n```json\n" + `{"title":"T","steps":[{"goal":"a","files":["x.go","y.go"],"check":"go test"},"b",{"step":"c","file":"z.go","verify":"look"}],"risks":["r"]}` + "\n```")
	if !ok || p.Title != "T" || len(p.Steps) != 3 {
		t.Fatalf("%+v ok=%v", p, ok)
	}
	if s := p.Steps[0]; s.Goal != "a" || strings.Join(s.Files, ",") != "x.go,y.go" || s.Check != "go test" {
		t.Fatalf("step 1 %+v", s)
	}
	if s := p.Steps[1]; s.Goal != "b" || len(s.Files) != 0 {
		t.Fatalf("step 2 %+v", s)
	}
	if s := p.Steps[2]; s.Goal != "c" || s.Files[0] != "z.go" || s.Check != "look" {
		t.Fatalf("step 3 %+v", s)
	}
	// Markdown falls back to ParsePlan.
	p, _, ok = parseAgentPlan("# Title\n\n1. first\n2. second\n")
	if !ok || len(p.Steps) != 2 || p.Steps[1].Goal != "second" {
		t.Fatalf("markdown %+v ok=%v", p, ok)
	}
	if _, _, ok := parseAgentPlan("no plan here"); ok {
		t.Fatal("a reply without steps was read as a plan")
	}
}

func TestParsePlanReview(t *testing.T) {
	for _, tc := range []struct {
		text    string
		approve bool
		objs    int
		ok      bool
	}{
		{`{"approve": true, "objections": []}`, true, 0, true},
		{`{"approve": false, "objections": ["x", "y"]}`, false, 2, true},
		{`{"verdict": "approve"}`, true, 0, true},
		{`{"verdict": "changes", "concerns": ["z"]}`, false, 1, true},
		{`{"approve": true, "objections": ["but"]}`, false, 1, true},
		{`{"approve": false}`, false, 1, true},
		{`looks good to me`, false, 0, false},
	} {
		approve, objs, _, ok := parsePlanReview(tc.text)
		if approve != tc.approve || len(objs) != tc.objs || ok != tc.ok {
			t.Errorf("%s: approve %v, %d objections, ok %v", tc.text, approve, len(objs), ok)
		}
	}
}

func TestParseShellVote(t *testing.T) {
	for text, want := range map[string][2]bool{
		`{"approve": true, "reason": "ok"}`: {true, true},
		`{"approve": false}`:                {false, true},
		`{"decision": "deny"}`:              {false, true},
		`{"verdict": "Approve"}`:            {true, true},
		`sure`:                              {false, false},
	} {
		approve, _, ok := parseShellVote(text)
		if approve != want[0] || ok != want[1] {
			t.Errorf("%s: approve %v ok %v", text, approve, ok)
		}
	}
}
