package quorum

import "strings"

// ParseSynthesis splits a synthesis into its sections: Conclusion, Key
// points, Consensus and Disagreements, as Markdown headings ("## Key
// points"), bold lines ("**Consensus**") or labels ("Disagreements:").
// List sections become their items ("None." items are dropped, so an empty
// list means none). When no Conclusion section is found, the whole text is
// kept as the conclusion. It reports the problems met.
//
// Discuss calls it on the synthesis; it is exported for code that reads
// replies outside a run (see Parsing in the package doc).
func ParseSynthesis(text string) (Sections, []string) {
	var problems []string
	text = clip(text, &problems)
	bodies, _, heads := textSections(text, synthesisSections)
	seen := map[string]bool{}
	for _, h := range heads {
		if seen[h] {
			problems = append(problems, "the "+h+" section appears twice; both are kept")
		}
		seen[h] = true
	}
	s := Sections{
		Conclusion:    strings.TrimSpace(strings.Join(bodies[secConclusion], "\n")),
		KeyPoints:     listItems(bodies[secKeyPoints]),
		Consensus:     listItems(bodies[secConsensus]),
		Disagreements: listItems(bodies[secDisagreements]),
	}
	if s.Conclusion == "" {
		s.Conclusion = strings.TrimSpace(text)
		problems = append(problems, "no Conclusion section found; the whole text is kept as the conclusion")
	}
	for _, sec := range []string{secKeyPoints, secConsensus, secDisagreements} {
		if !seen[sec] {
			problems = append(problems, "no "+sec+" section found")
		}
	}
	return s, problems
}

// The sections of a synthesis, by the names problems give them.
const (
	secConclusion    = "Conclusion"
	secKeyPoints     = "Key points"
	secConsensus     = "Consensus"
	secDisagreements = "Disagreements"
)

// synthesisSections name the headings of a synthesis's sections.
var synthesisSections = map[string]string{
	"conclusion": secConclusion, "conclusions": secConclusion, "keypoints": secKeyPoints,
	"consensus": secConsensus, "disagreement": secDisagreements, "disagreements": secDisagreements,
}

// listItems turns a section's lines into items: list entries (with their
// continuation lines), or paragraphs when there is no list.
func listItems(lines []string) []string {
	var items []string
	var cur strings.Builder
	isList := false
	flush := func() {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" || len(items) >= maxItemsParsed {
			return
		}
		switch strings.ToLower(strings.Trim(s, ". ")) {
		case "none", "n/a", "nothing", "no disagreements", "no major disagreements":
			return
		}
		items = append(items, cutRunes(s, maxItemRunes))
	}
	for _, line := range lines {
		if m := bulletRE.FindStringSubmatch(line); m != nil {
			flush()
			isList = true
			cur.WriteString(m[1])
			continue
		}
		if strings.TrimSpace(line) == "" {
			if !isList {
				flush() // paragraphs end at blank lines
			}
			continue
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(strings.TrimSpace(line))
	}
	flush()
	if items == nil {
		items = []string{}
	}
	return items
}
