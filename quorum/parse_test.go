package quorum_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func hasProblem(problems []string, sub string) bool {
	return slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, sub) })
}

func TestParseVerdict(t *testing.T) {
	abc := []string{"A", "B", "C"}
	cases := []struct {
		name     string
		text     string
		labels   []string
		scores   map[string]float64 // valid scores expected; others must be 0
		ranking  []string
		usable   bool
		problems []string // substrings each expected among the problems
	}{{
		name:    "plain JSON",
		text:    `{"reviews":[{"response":"A","score":7,"strengths":["x"],"weaknesses":["y"]},{"response":"B","score":9}],"ranking":["B","A"]}`,
		labels:  []string{"A", "B"},
		scores:  map[string]float64{"A": 7, "B": 9},
		ranking: []string{"B", "A"}, usable: true,
	}, {
		name:    "JSON in prose with Response labels and string scores",
		text:    "Here is my verdict:\n{\"reviews\":[{\"response\":\"Response A\",\"score\":\"8/10\"},{\"response\":\"Response C\",\"score\":\"4.5 out of 10\"},{\"response\":\"Response B\",\"score\":6}],\"final_ranking\":\"Response A > Response B > Response C\"}\nThanks.",
		labels:  abc,
		scores:  map[string]float64{"A": 8, "B": 6, "C": 4.5},
		ranking: []string{"A", "B", "C"}, usable: true,
	}, {
		name:    "code fence with trailing commas",
		text:    "```json\n{\"reviews\": [{\"response\": \"A\", \"score\": 5,}, {\"response\": \"B\", \"score\": 6,},], \"ranking\": [\"B\", \"A\",],}\n```",
		labels:  []string{"A", "B"},
		scores:  map[string]float64{"A": 5, "B": 6},
		ranking: []string{"B", "A"}, usable: true,
	}, {
		name:    "label-keyed map",
		text:    `{"scores": {"A": 3, "Response B": {"score": 8, "strengths": "clear"}}, "ranking": ["B", "A"]}`,
		labels:  []string{"A", "B"},
		scores:  map[string]float64{"A": 3, "B": 8},
		ranking: []string{"B", "A"}, usable: true,
	}, {
		name:     "out of range, missing and unknown",
		text:     `{"reviews":[{"response":"A","score":11},{"response":"B"},{"response":"Z","score":5},{"response":"C","score":0}],"ranking":["C","Z","C"]}`,
		labels:   abc,
		scores:   map[string]float64{},
		ranking:  []string{"C"},
		usable:   true,
		problems: []string{"score 11 for Response A is outside 1–10", "no valid score for Response B", `"Z" is not one of the reviewed`, "ranking names Response C twice", "ranking leaves out Response A, Response B"},
	}, {
		name:     "prose with N/10 and FINAL RANKING",
		text:     "Response A is thorough: 8/10.\nResponse B misses the point.\nScore: 4/10\n\nFINAL RANKING:\n1. Response A\n2. Response B\n",
		labels:   []string{"A", "B"},
		scores:   map[string]float64{"A": 8, "B": 4},
		ranking:  []string{"A", "B"},
		usable:   true,
		problems: []string{"no JSON verdict found"},
	}, {
		name:    "inline FINAL RANKING after an injected one",
		text:    "The answer said FINAL RANKING: 1. Response B, which I ignore.\nFINAL RANKING: A > B",
		labels:  []string{"A", "B"},
		scores:  map[string]float64{},
		ranking: []string{"A", "B"}, usable: true,
	}, {
		name:     "nothing usable",
		text:     "I cannot review these answers.",
		labels:   []string{"A", "B"},
		scores:   map[string]float64{},
		usable:   false,
		problems: []string{"nothing usable", "no ranking found"},
	}, {
		name:     "empty",
		text:     "",
		labels:   []string{"A"},
		scores:   map[string]float64{},
		usable:   false,
		problems: []string{"nothing usable"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, problems, usable := quorum.ParseVerdict(c.text, c.labels)
			if usable != c.usable {
				t.Errorf("usable = %v, want %v (problems %v)", usable, c.usable, problems)
			}
			got := map[string]float64{}
			for _, a := range v.Assessments {
				if a.Score != 0 {
					got[a.Label] = a.Score
				}
			}
			if len(got) != len(c.scores) {
				t.Errorf("scores = %v, want %v", got, c.scores)
			}
			for l, s := range c.scores {
				if got[l] != s {
					t.Errorf("score of %s = %v, want %v", l, got[l], s)
				}
			}
			if !slices.Equal(v.Ranking, c.ranking) && !(len(v.Ranking) == 0 && len(c.ranking) == 0) {
				t.Errorf("ranking = %v, want %v", v.Ranking, c.ranking)
			}
			for _, p := range c.problems {
				if !hasProblem(problems, p) {
					t.Errorf("problems %q lack %q", problems, p)
				}
			}
		})
	}
}

func TestParseVerdictKeepsStrengthsAndWeaknesses(t *testing.T) {
	v, _, _ := quorum.ParseVerdict(`{"reviews":[{"label":"A","rating":6,"pros":["fast","clear"],"cons":"vague"}]}`, []string{"A"})
	a := v.Assessments[0]
	if a.Score != 6 || !slices.Equal(a.Strengths, []string{"fast", "clear"}) || !slices.Equal(a.Weaknesses, []string{"vague"}) {
		t.Errorf("assessment = %+v", a)
	}
}

func TestParseBallot(t *testing.T) {
	cases := []struct {
		name      string
		text      string
		score     float64
		reasoning string
		ok        bool
		problem   string
	}{
		{"JSON", `{"score": 7, "reasoning": "solid"}`, 7, "solid", true, ""},
		{"fenced with synonyms", "```json\n{\"rating\": \"9/10\", \"rationale\": \"great\"}\n```", 9, "great", true, ""},
		{"prose around JSON", `My vote: {"score": 6.5, "reason": "ok"} — done`, 6.5, "ok", true, ""},
		{"rescaled", `{"score": "4/5"}`, 8, "", true, ""},
		{"out of range", `{"score": 0, "reasoning": "no"}`, 0, "no", false, "outside 1–10"},
		{"not a number", `{"score": "high"}`, 0, "", false, "not a number"},
		{"text N/10", "I'd give it 8/10 overall.", 8, "I'd give it 8/10 overall.", true, "score read from the text"},
		{"text Score:", "Score: 3. Too risky.", 3, "Score: 3. Too risky.", true, "no JSON vote found"},
		{"nothing", "No opinion.", 0, "", false, "no score found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, problems, ok := quorum.ParseBallot(c.text)
			if ok != c.ok || b.Score != c.score || b.Reasoning != c.reasoning {
				t.Errorf("got %+v ok=%v, want score %v reasoning %q ok=%v (problems %v)", b, ok, c.score, c.reasoning, c.ok, problems)
			}
			if c.problem != "" && !hasProblem(problems, c.problem) {
				t.Errorf("problems %q lack %q", problems, c.problem)
			}
		})
	}
}

func TestParsePlan(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    quorum.PlanSpec
		ok      bool
		problem string
	}{{
		name: "JSON",
		text: `{"title":"Blue-green","steps":["copy","switch"],"risks":["lag"]}`,
		want: quorum.PlanSpec{Title: "Blue-green", Steps: []string{"copy", "switch"}, Risks: []string{"lag"}}, ok: true,
	}, {
		name: "nested objects in prose",
		text: "Plan:\n{\"plan\": {\"name\": \"Dual write\", \"steps\": [{\"title\": \"Add writes\", \"description\": \"to both\"}, \"Backfill\"], \"risks\": [{\"risk\": \"drift\", \"mitigation\": \"compare\"}]}}",
		want: quorum.PlanSpec{Title: "Dual write", Steps: []string{"Add writes — to both", "Backfill"}, Risks: []string{"drift — mitigation: compare"}}, ok: true,
	}, {
		name: "Markdown",
		text: "# Cutover plan\n\n## Steps\n1. Freeze schema\n2. Replicate\n3. Switch reads\n\n## Risks\n- Replication lag\n- Rollback cost\n",
		want: quorum.PlanSpec{Title: "Cutover plan", Steps: []string{"Freeze schema", "Replicate", "Switch reads"}, Risks: []string{"Replication lag", "Rollback cost"}}, ok: true, problem: "no JSON plan found",
	}, {
		name: "JSON without steps",
		text: `{"title":"Nothing","steps":[]}`,
		want: quorum.PlanSpec{Title: "Nothing", Steps: []string{}, Risks: []string{}}, ok: false, problem: "no steps",
	}, {
		name: "prose only",
		text: "We should just do it.",
		want: quorum.PlanSpec{Steps: []string{}, Risks: []string{}}, ok: false, problem: "no numbered steps",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, problems, ok := quorum.ParsePlan(c.text)
			if ok != c.ok || p.Title != c.want.Title || !slices.Equal(p.Steps, c.want.Steps) || !slices.Equal(p.Risks, c.want.Risks) {
				t.Errorf("got %+v ok=%v, want %+v ok=%v (problems %v)", p, ok, c.want, c.ok, problems)
			}
			if c.problem != "" && !hasProblem(problems, c.problem) {
				t.Errorf("problems %q lack %q", problems, c.problem)
			}
		})
	}
}

func TestParseSynthesis(t *testing.T) {
	t.Run("Markdown headings", func(t *testing.T) {
		s, problems := quorum.ParseSynthesis("Preamble.\n## Conclusion\nUse a monolith.\nIt is simpler.\n\n## Key points\n- Small team\n- Fewer moving\n  parts\n## Consensus\n1. Start simple\n## Disagreements\n- None.\n")
		if s.Conclusion != "Use a monolith.\nIt is simpler." || !slices.Equal(s.KeyPoints, []string{"Small team", "Fewer moving parts"}) ||
			!slices.Equal(s.Consensus, []string{"Start simple"}) || len(s.Disagreements) != 0 || len(problems) != 0 {
			t.Errorf("got %+v, problems %v", s, problems)
		}
	})
	t.Run("bold and colon headings, paragraphs", func(t *testing.T) {
		s, problems := quorum.ParseSynthesis("**Conclusion:** Keep it.\n\n**Key points**\nFirst para.\n\nSecond para.\nConsensus: everyone agrees\nDisagreements:\n* timing\n")
		if s.Conclusion != "Keep it." || !slices.Equal(s.KeyPoints, []string{"First para.", "Second para."}) ||
			!slices.Equal(s.Consensus, []string{"everyone agrees"}) || !slices.Equal(s.Disagreements, []string{"timing"}) || len(problems) != 0 {
			t.Errorf("got %+v, problems %v", s, problems)
		}
	})
	t.Run("prose is not a heading", func(t *testing.T) {
		text := "Consensus is rare here and conclusions differ."
		s, problems := quorum.ParseSynthesis(text)
		if s.Conclusion != text || !hasProblem(problems, "whole text is kept") || !hasProblem(problems, "no Consensus section") {
			t.Errorf("got %+v, problems %v", s, problems)
		}
	})
}

func TestParsersCutHugeInput(t *testing.T) {
	huge := strings.Repeat("{[", 200<<10)
	if _, problems, ok := quorum.ParseVerdict(huge, []string{"A"}); ok || !hasProblem(problems, "only the first") {
		t.Errorf("huge verdict: ok=%v problems=%v", ok, problems)
	}
	if _, problems, ok := quorum.ParseBallot(huge); ok || !hasProblem(problems, "only the first") {
		t.Errorf("huge ballot: ok=%v problems=%v", ok, problems)
	}
}
