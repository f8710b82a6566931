package quorum

import (
	"regexp"
	"strings"
)

// ParseSynthesis splits a synthesis into its sections: Conclusion, Key
// points, Consensus and Disagreements, as Markdown headings ("## Key
// points"), bold lines ("**Consensus**") or labels ("Disagreements:").
// List sections become their items ("None." items are dropped, so an empty
// list means none). When no Conclusion section is found, the whole text is
// kept as the conclusion. It reports the problems met.
func ParseSynthesis(text string) (Sections, []string) {
	var problems []string
	text = clip(text, &problems)
	names := map[section]string{secConclusion: "Conclusion", secKeyPoints: "Key points", secConsensus: "Consensus", secDisagreements: "Disagreements"}
	bodies := make(map[section][]string)
	seen := make(map[section]bool)
	cur := secNone
	for _, line := range strings.Split(text, "\n") {
		if sec, rest, ok := sectionHeading(line); ok {
			if seen[sec] {
				problems = append(problems, "the "+names[sec]+" section appears twice; both are kept")
			}
			cur, seen[sec] = sec, true
			if rest != "" {
				bodies[cur] = append(bodies[cur], rest)
			}
			continue
		}
		if cur != secNone {
			bodies[cur] = append(bodies[cur], line)
		}
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
	for _, sec := range []section{secKeyPoints, secConsensus, secDisagreements} {
		if !seen[sec] {
			problems = append(problems, "no "+names[sec]+" section found")
		}
	}
	return s, problems
}

// section is a section of a synthesis, as sectionHeading names it.
type section int

const (
	secNone section = iota // before the first heading
	secConclusion
	secKeyPoints
	secConsensus
	secDisagreements
)

var sectionRE = regexp.MustCompile(`(?i)^\s*(#{1,6}\s*)?(\*\*|__)?\s*(conclusions?|key\s+points|consensus|disagreements?)\s*(\*\*|__)?\s*(:)?\s*(\*\*|__)?\s*(.*)$`)

// sectionHeading recognises a section heading line. Plain prose that starts
// with a section's word ("Consensus is rare") is not one: a heading has a
// leading #, bold markers, or a colon.
func sectionHeading(line string) (sec section, rest string, ok bool) {
	m := sectionRE.FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	hash, bold, colon, rest := m[1] != "", m[2] != "" && (m[4] != "" || m[6] != ""), m[5] != "", strings.TrimSpace(m[7])
	switch {
	case hash && rest == "":
	case bold, colon:
	default:
		return 0, "", false
	}
	switch w := strings.ToLower(m[3]); {
	case strings.HasPrefix(w, "conclusion"):
		sec = secConclusion
	case strings.HasPrefix(w, "key"):
		sec = secKeyPoints
	case w == "consensus":
		sec = secConsensus
	default:
		sec = secDisagreements
	}
	return sec, rest, true
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
