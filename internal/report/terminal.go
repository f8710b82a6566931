package report

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/muesli/termenv"
)

// Terminal renders Markdown for a terminal width columns wide with glamour
// (the renderer the GitHub CLI uses): wrapped to the width, with colour or
// without. The style is fixed, glamour's dark one (without colour, its
// layout alone): the automatic style would ask the terminal for its
// background colour, an escape sequence whose answer arrives on stdin.
// The Markdown must already be clean (Markdown cleans what it writes):
// glamour adds its own styling sequences and passes text through as it is.
func Terminal(md string, width int, colour bool) (string, error) {
	r, err := glamour.NewTermRenderer(
		glamour.WithStyles(unmarkedHeadings(indentedQuotes(styles.DarkStyleConfig))),
		glamour.WithColorProfile(termenv.ANSI256),
		glamour.WithWordWrap(max(width, 20)),
	)
	if err != nil {
		return "", err
	}
	// Tables are laid out here (table.go), the rest by glamour.
	parts, tables := splitTables(md)
	var b strings.Builder
	for i, p := range parts {
		if strings.TrimSpace(p) != "" {
			guarded := guardHyphens(p)
			out, err := r.Render(guarded)
			if err != nil {
				return "", err
			}
			if guarded != p {
				out = unguardHyphens(out)
			}
			if i > 0 { // after a table, one blank line
				out = trimBlankStart(out)
			}
			if i < len(tables) {
				out = trimBlankEnd(out) + "\n"
			}
			b.WriteString(out)
		}
		if i < len(tables) {
			b.WriteString(tables[i].layout(max(width, 20)) + "\n")
		}
	}
	out := b.String()
	if !colour {
		// Even without colours glamour styles text bold or italic with
		// escape sequences; the Markdown had none (it is clean), so every
		// one is glamour's and goes.
		out = sgrRE.ReplaceAllString(out, "")
	}
	return out, err
}

// trimBlankEnd is out without its last lines that show nothing (glamour
// pads them with spaces and styling), ending in a newline.
func trimBlankEnd(out string) string {
	lines := strings.Split(out, "\n")
	for len(lines) > 0 && strings.TrimSpace(sgrRE.ReplaceAllString(lines[len(lines)-1], "")) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n") + "\n"
}

// trimBlankStart is out without its first lines that show nothing.
func trimBlankStart(out string) string {
	lines := strings.Split(out, "\n")
	for len(lines) > 0 && strings.TrimSpace(sgrRE.ReplaceAllString(lines[0], "")) == "" {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// sgrRE matches a Select Graphic Rendition sequence: colour, bold, italic.
var sgrRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// unmarkedHeadings draws headings without the "## " that glamour's dark
// style puts before them, which reads as Markdown left unrendered: a
// section's heading (level 2) is in capitals, as in the plain-text report,
// so that it stands out without colour too; the others are bold.
func unmarkedHeadings(s ansi.StyleConfig) ansi.StyleConfig {
	upper := true
	s.H2.Prefix, s.H2.Upper = "", &upper
	for _, h := range []*ansi.StyleBlock{&s.H3, &s.H4, &s.H5, &s.H6} {
		h.Prefix = ""
	}
	return s
}

// indentedQuotes draws block quotes (the models' answers) as text
// indented by two columns instead of behind glamour's "│ " bar: glamour
// budgets one column for that two-column bar, so quoted lines come out
// one column too long and a word falls out of the quote onto a line of
// its own (charmbracelet/glamour#172). A plain indent is budgeted right.
func indentedQuotes(s ansi.StyleConfig) ansi.StyleConfig {
	indent, token := uint(2), " "
	s.BlockQuote.Indent, s.BlockQuote.IndentToken = &indent, &token
	return s
}
