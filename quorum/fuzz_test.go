package quorum_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// The parsers read whatever models write. Whatever that is, they must not
// panic, must keep scores in 1–10 (or 0 for none), and must only name
// labels they were given. Seeds live in testdata/fuzz.

func FuzzParseVerdict(f *testing.F) {
	f.Add(`{"reviews":[{"response":"A","score":7}],"ranking":["A","B"]}`)
	f.Add("Response B: 9/10\nFINAL RANKING:\n1. Response B\n2. Response A")
	labels := []string{"A", "B", "C"}
	f.Fuzz(func(t *testing.T, text string) {
		v, problems, usable := quorum.ParseVerdict(text, labels)
		seen := map[string]bool{}
		scored := false
		for _, a := range v.Assessments {
			if !slices.Contains(labels, a.Label) || seen[a.Label] {
				t.Fatalf("assessment of %q (seen before: %v)", a.Label, seen[a.Label])
			}
			seen[a.Label] = true
			if a.Score != 0 && (a.Score < 1 || a.Score > 10) {
				t.Fatalf("score %v out of range", a.Score)
			}
			scored = scored || a.Score > 0
		}
		rseen := map[string]bool{}
		for _, l := range v.Ranking {
			if !slices.Contains(labels, l) || rseen[l] {
				t.Fatalf("ranking %v", v.Ranking)
			}
			rseen[l] = true
		}
		if usable != (scored || len(v.Ranking) > 0) {
			t.Fatalf("usable=%v with scores=%v ranking=%v", usable, scored, v.Ranking)
		}
		if !usable && len(problems) == 0 {
			t.Fatal("unusable without a problem saying why")
		}
	})
}

func FuzzParseBallot(f *testing.F) {
	f.Add(`{"score": 7, "reasoning": "ok"}`)
	f.Add("8/10")
	f.Fuzz(func(t *testing.T, text string) {
		b, problems, ok := quorum.ParseBallot(text)
		if ok && (b.Score < 1 || b.Score > 10) {
			t.Fatalf("ok with score %v", b.Score)
		}
		if !ok && (b.Score != 0 || len(problems) == 0) {
			t.Fatalf("not ok with score %v and problems %v", b.Score, problems)
		}
	})
}

func FuzzParsePlan(f *testing.F) {
	f.Add(`{"title":"t","steps":["a"],"risks":["r"]}`)
	f.Add("# T\n1. a\n2. b\n## Risks\n- r")
	f.Fuzz(func(t *testing.T, text string) {
		p, _, ok := quorum.ParsePlan(text)
		if ok != (len(p.Steps) > 0) {
			t.Fatalf("ok=%v with %d steps", ok, len(p.Steps))
		}
		if len(p.Steps) > 256 || len(p.Risks) > 256 {
			t.Fatalf("%d steps, %d risks kept", len(p.Steps), len(p.Risks))
		}
		for _, s := range p.Steps {
			if strings.TrimSpace(s) == "" {
				t.Fatal("empty step")
			}
		}
	})
}

func FuzzParseSynthesis(f *testing.F) {
	f.Add("## Conclusion\nx\n## Key points\n- a\n## Consensus\n- b\n## Disagreements\n- None.")
	f.Fuzz(func(t *testing.T, text string) {
		s, _ := quorum.ParseSynthesis(text)
		if strings.TrimSpace(text) != "" && len(text) < 256<<10 && s.Conclusion == "" {
			t.Fatal("non-empty text gave an empty conclusion")
		}
		if s.KeyPoints == nil || s.Consensus == nil || s.Disagreements == nil {
			t.Fatal("nil list")
		}
	})
}

// objectionIDRE is what every objection id the debate parsers return
// looks like.
var objectionIDRE = regexp.MustCompile(`^O[1-9][0-9]*$`)

func FuzzParseArgument(f *testing.F) {
	f.Add(`{"argument": "x", "answers": [{"objection": "O1", "answer": "y"}], "rulings": [{"objection": 2, "status": "resolved"}], "objections": [{"severity": "high", "text": "z"}]}`)
	f.Add("## Argument\nx\n## Rulings\n- O1: withdrawn — y\n## Objections\n- [blocking] z\n")
	f.Fuzz(func(t *testing.T, text string) {
		a, problems, ok := quorum.ParseArgument(text)
		if ok != (a.Argument != "" || len(a.Answers)+len(a.Rulings)+len(a.Objections) > 0) {
			t.Fatalf("ok=%v with %+v", ok, a)
		}
		if !ok && len(problems) == 0 {
			t.Fatal("unusable without a problem saying why")
		}
		seen := map[string]bool{}
		for _, x := range a.Answers {
			if !objectionIDRE.MatchString(x.Objection) || strings.TrimSpace(x.Text) == "" || seen[x.Objection] {
				t.Fatalf("answer %+v", x)
			}
			seen[x.Objection] = true
		}
		clear(seen)
		for _, r := range a.Rulings {
			if !objectionIDRE.MatchString(r.Objection) || seen[r.Objection] ||
				!slices.Contains([]quorum.ObjectionStatus{quorum.StatusAnswered, quorum.StatusWithdrawn, quorum.StatusStanding}, r.Status) {
				t.Fatalf("ruling %+v", r)
			}
			seen[r.Objection] = true
		}
		for _, o := range a.Objections {
			if o.Severity.Rank() == 0 || strings.TrimSpace(o.Text) == "" || o.ID != "" {
				t.Fatalf("objection %+v", o)
			}
		}
		if len(a.Answers) > 256 || len(a.Rulings) > 256 || len(a.Objections) > 256 {
			t.Fatalf("%d answers, %d rulings, %d objections kept", len(a.Answers), len(a.Rulings), len(a.Objections))
		}
	})
}

func FuzzParseDecision(f *testing.F) {
	f.Add(`{"position": "against", "summary": "x", "rulings": [{"objection": "O2", "status": "standing"}], "wouldChange": ["y"]}`)
	f.Add("**Position:** split\n## Rulings\n- O1: answered\n## What would change the verdict\n- y\n")
	ids := []string{"O1", "O2"}
	f.Fuzz(func(t *testing.T, text string) {
		d, problems, ok := quorum.ParseDecision(text, ids)
		if ok != (d.Position != "") || !ok && len(problems) == 0 {
			t.Fatalf("ok=%v position=%q problems=%v", ok, d.Position, problems)
		}
		if d.Position != "" && !slices.Contains([]quorum.Position{quorum.PositionFor, quorum.PositionAgainst, quorum.PositionUndecided}, d.Position) {
			t.Fatalf("position %q", d.Position)
		}
		seen := map[string]bool{}
		for _, r := range d.Rulings {
			if !slices.Contains(ids, r.Objection) || seen[r.Objection] || r.Status == "" {
				t.Fatalf("ruling %+v", r)
			}
			seen[r.Objection] = true
		}
	})
}

func FuzzParseFindings(f *testing.F) {
	f.Add(`{"findings": [{"file": "a.go", "lines": "9-3", "severity": "critical", "category": "Security", "explanation": "x", "fix": "y"}]}`)
	f.Add("- [major] `a.go:12-14` (bug): x\n  Suggested fix: y\n")
	f.Add("No findings.")
	f.Fuzz(func(t *testing.T, text string) {
		fs, problems, ok := quorum.ParseFindings(text)
		if fs == nil || !ok && (len(fs) > 0 || len(problems) == 0) {
			t.Fatalf("ok=%v findings=%v problems=%v", ok, fs, problems)
		}
		if len(fs) > 256 {
			t.Fatalf("%d findings kept", len(fs))
		}
		for _, x := range fs {
			if x.Severity.Rank() == 0 || strings.TrimSpace(x.Explanation) == "" || x.Category == "" ||
				x.StartLine < 0 || x.StartLine > x.EndLine || (x.StartLine == 0) != (x.EndLine == 0) {
				t.Fatalf("finding %+v", x)
			}
		}
	})
}

func FuzzChangeValidate(f *testing.F) {
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n")
	f.Fuzz(func(t *testing.T, diff string) {
		err := quorum.Change{Diff: diff}.Validate()
		if err != nil && !errors.Is(err, quorum.ErrInvalidConfig) {
			t.Fatalf("error not wrapping ErrInvalidConfig: %v", err)
		}
	})
}
