package quorum_test

import (
	"slices"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

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
