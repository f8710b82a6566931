package quorum

import (
	"regexp"
	"strconv"
	"strings"
)

// ParseBallot parses a vote: JSON {"score": 1–10, "reasoning": "…"} (in
// prose or a code fence), or else a "Score: N" or "N/10" in the text. It
// returns the ballot, the problems met, and whether a valid score was
// found.
//
// Plan calls it on every vote; it is exported for code that reads replies
// outside a run (see Parsing in the package doc).
func ParseBallot(text string) (Ballot, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	for _, obj := range jsonObjects(text) {
		raw, ok := field(obj, scoreKeys...)
		if !ok {
			continue
		}
		var b Ballot
		if r, ok := field(obj, "reasoning", "reason", "rationale", "explanation", "justification", "comment", "comments"); ok {
			b.Reasoning = cutRunes(str(r), maxReasoningRune)
		}
		s, ok := score(raw)
		if !ok {
			problems = append(problems, "the vote's score is not a number")
			return b, problems, false
		}
		if !validScore(s, "the plan", &problems) {
			return b, problems, false
		}
		b.Score = s
		return b, problems, true
	}
	problems = append(problems, "no JSON vote found")
	m := voteScoreRE.FindStringSubmatch(text)
	if m == nil {
		problems = append(problems, "no score found in the text either")
		return Ballot{}, problems, false
	}
	n, err := strconv.ParseFloat(m[1]+m[2], 64)
	if err != nil {
		problems = append(problems, "no score found in the text either")
		return Ballot{}, problems, false
	}
	b := Ballot{Reasoning: cutRunes(strings.TrimSpace(text), maxReasoningRune)}
	if !validScore(n, "the plan", &problems) {
		return b, problems, false
	}
	problems = append(problems, "score read from the text")
	b.Score = n
	return b, problems, true
}

var voteScoreRE = regexp.MustCompile(`(?i)(?:\bscore\b[^0-9\n-]{0,12}(-?\d+(?:\.\d+)?))|(?:(-?\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*10\b)`)
