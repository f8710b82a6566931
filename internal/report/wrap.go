package report

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// This file wraps the plain-text report to a width (Options.Width): off
// a terminal the text goes to a pipe or a file, which has no width of its
// own, and is read in a pager or an editor 80 columns wide. Prose is
// wrapped at spaces, its further lines under the first's text; tables,
// and what models wrote as code (a fenced or indented block, a line of
// JSON, a Markdown table), are left whole.

// wrapHanging writes text after prefix in lines of at most width columns,
// the further lines after cont. A line that fits is written as it is; a
// word wider than a line stays whole. width 0 does not wrap.
func wrapHanging(prefix, text, cont string, width int) []string {
	if width <= 0 || ansi.StringWidth(prefix+text) <= width {
		return []string{strings.TrimRight(prefix+text, " ")}
	}
	var lines []string
	line, cols, empty := prefix, ansi.StringWidth(prefix), true
	for _, w := range strings.Fields(text) {
		n := ansi.StringWidth(w)
		if !empty && cols+1+n > width {
			lines = append(lines, line)
			line, cols, empty = cont, ansi.StringWidth(cont), true
		}
		if !empty {
			line += " "
			cols++
		}
		line += w
		cols += n
		empty = false
	}
	return append(lines, strings.TrimRight(line, " "))
}

// leading splits s into its indentation and the rest.
func leading(s string) (indent, rest string) {
	rest = strings.TrimLeft(s, " ")
	return s[:len(s)-len(rest)], rest
}

// listMarkerRE matches the marker of a Markdown list item: "- ", "* ",
// "+ ", "12. ".
var listMarkerRE = regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)]) `)

// keptWhole says whether a line a model wrote is one to leave whole: an
// indented code line, a table row, a line of JSON.
func keptWhole(l string) bool {
	t := strings.TrimSpace(l)
	switch {
	case strings.HasPrefix(l, "    "), strings.HasPrefix(l, "\t"):
		return true
	case strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|"):
		return true
	case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}"), strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]"):
		return true
	}
	return false
}

// isFence says whether a line opens or closes a fenced code block.
func isFence(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}
