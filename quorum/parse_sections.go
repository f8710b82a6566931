package quorum

import (
	"regexp"
	"strings"
)

// This file reads Markdown replies laid out in named sections: a
// synthesis (ParseSynthesis), and the fallback of the debate parsers
// (ParseArgument, ParseDecision) when a model writes no JSON.

// sectionHeadRE matches a line that may be a section heading: an
// optional # run and bold markers around a few words, an optional colon,
// and what follows it on the line. The words take all they can, so that
// they end at the colon or the bold marker, or take the whole line.
var sectionHeadRE = regexp.MustCompile(`^\s*(#{1,6}\s*)?(\*\*|__)?\s*([A-Za-z][A-Za-z '’-]{0,60})(\*\*|__)?\s*(:)?\s*(\*\*|__)?\s*(.*)$`)

// textSections splits text at the headings named by names, which maps the
// heading's words folded by normKey ("New objections" → "newobjections")
// to a section key. A heading has a leading #, bold markers or a colon,
// so prose that starts with a section's word is not one; text after a
// colon on the heading's line belongs to the section. It returns the
// lines of each section (a section that appears twice gets both bodies),
// the lines before the first heading, and the keys of the headings in the
// order found (a key twice for a section that appears twice).
func textSections(text string, names map[string]string) (bodies map[string][]string, preamble, heads []string) {
	bodies = map[string][]string{}
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		if key, rest, ok := namedHeading(line, names); ok {
			cur = key
			heads = append(heads, key)
			if rest != "" {
				bodies[cur] = append(bodies[cur], rest)
			} else if bodies[cur] == nil {
				bodies[cur] = []string{}
			}
			continue
		}
		if cur == "" {
			preamble = append(preamble, line)
		} else {
			bodies[cur] = append(bodies[cur], line)
		}
	}
	return bodies, preamble, heads
}

// namedHeading recognises a heading line of one of names. Plain prose
// that starts with a section's word ("Consensus is rare") is not one: a
// heading has a leading #, bold markers, or a colon.
func namedHeading(line string, names map[string]string) (key, rest string, ok bool) {
	m := sectionHeadRE.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	key, known := names[normKey(m[3])]
	if !known {
		return "", "", false
	}
	hash, bold, colon, rest := m[1] != "", m[2] != "" && (m[4] != "" || m[6] != ""), m[5] != "", strings.TrimSpace(m[7])
	switch {
	case hash && rest == "":
	case bold, colon:
	default:
		return "", "", false
	}
	return key, rest, true
}

// paragraph joins a section's lines into its text.
func paragraph(lines []string) string { return strings.TrimSpace(strings.Join(lines, "\n")) }
