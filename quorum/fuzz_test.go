package quorum_test

import (
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
