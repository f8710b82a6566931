package quorum_test

import (
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

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
