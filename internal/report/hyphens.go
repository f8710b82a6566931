package report

import (
	"regexp"
	"strings"
)

// This file works around a miscount in glamour's word wrapper
// (muesli/reflow's wordwrap, v0.3.0): a '-' is a break point, written
// without counting its column, so a line with hyphens ("(--sim)",
// "built-in", "sim-gamma") comes out wider than the width by one column a
// hyphen. In a block quote, which glamour wraps a second time at the right
// width, the last word of such a line then falls onto a line of its own
// ("…not from a / real / model."). While glamour lays the text out, a
// hyphen inside text stands as nbHyphen, which it counts like any letter;
// the hyphens that are Markdown (a list item's marker, a thematic break, a
// table's delimiter row, code in a fence) are left as they are.

// nbHyphen is U+2011 NON-BREAKING HYPHEN: one column wide everywhere (its
// East Asian width is neutral), and no break point for either wrapper.
const nbHyphen = "\u2011"

// markdownRuleRE matches a line that is all Markdown: a thematic break, a
// setext underline, a table's delimiter row, in a quote or not.
var markdownRuleRE = regexp.MustCompile(`^[\s>]*(?:[-*_=](?:\s*[-*_=]){2,}|[|:\s-]*-[|:\s-]*)\s*$`)

// guardHyphens returns md with its text's hyphens as nbHyphen; md as it is
// when it already holds one (unguardHyphens could not tell them apart).
func guardHyphens(md string) string {
	if !strings.Contains(md, "-") || strings.Contains(md, nbHyphen) {
		return md
	}
	lines := strings.Split(md, "\n")
	fence := ""
	for i, l := range lines {
		prefix := len(l) - len(strings.TrimLeft(l, " \t>"))
		rest := l[prefix:]
		switch {
		case fence != "":
			if strings.HasPrefix(rest, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(rest, "```"), strings.HasPrefix(rest, "~~~"):
			fence = rest[:3]
			continue
		case markdownRuleRE.MatchString(l):
			continue
		}
		marker := ""
		if rest == "-" || strings.HasPrefix(rest, "- ") || strings.HasPrefix(rest, "-\t") {
			marker, rest = "-", rest[1:]
		}
		lines[i] = l[:prefix] + marker + strings.ReplaceAll(rest, "-", nbHyphen)
	}
	return strings.Join(lines, "\n")
}

// unguardHyphens gives the rendered text its hyphens back.
func unguardHyphens(out string) string { return strings.ReplaceAll(out, nbHyphen, "-") }
