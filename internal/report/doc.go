package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/quorum-go/quorum/internal/sanitize"
)

// doc is where a report is written. The report makes the same calls for
// plain text and for Markdown, so the two forms cannot drift apart, and
// every string passes through the doc, which cleans it (package sanitize):
// models' text can never reach the terminal with its control characters,
// whichever part of the report shows it.
type doc interface {
	// banner is a line that must stand out, before everything else.
	banner(text string)
	// title is the report's title and its subject ("Question", the text).
	title(title, label, subject string)
	// heading opens a section: level 1 for the report's parts, 2 within.
	heading(level int, text string)
	para(text string)
	// note is an aside about what follows (how it was computed).
	note(text string)
	// fields are "name: value" lines.
	fields(kv [][2]string)
	list(xs []item)
	numbered(xs []string)
	// table has a header; numeric columns are right-aligned in Markdown.
	table(header []string, numeric []bool, rows [][]string)
	// quote is text a model wrote, its lines and Markdown kept.
	quote(text string)
}

// item is a list item, with lines under it.
type item struct {
	text string
	sub  []string
}

// items makes list items of texts.
func items(texts []string) []item {
	out := make([]item, len(texts))
	for i, t := range texts {
		out[i] = item{text: t}
	}
	return out
}

// blocks separates the blocks of a document by blank lines.
type blocks struct {
	w     io.Writer
	wrote bool
}

// gap starts a block: a blank line after the one before.
func (b *blocks) gap() {
	if b.wrote {
		fmt.Fprintln(b.w)
	}
	b.wrote = true
}

// textDoc writes plain text: level-1 headings in capitals, everything in
// a section indented under its heading, tables aligned with spaces.
type textDoc struct {
	blocks
	indent string // of the current section's content
	// width is what lines are wrapped at (Options.Width); 0: not wrapped.
	width int
}

// line writes s under the section's indent, its further lines, if it is
// wrapped, under its first.
func (d *textDoc) line(s string) {
	lead, rest := leading(s)
	d.hang(lead, rest, len(lead))
}

// hang writes text after prefix under the section's indent; if it is
// wrapped, its further lines are indented by hang columns.
func (d *textDoc) hang(prefix, text string, hang int) {
	for _, l := range wrapHanging(d.indent+prefix, text, d.indent+strings.Repeat(" ", hang), d.width) {
		fmt.Fprintln(d.w, l)
	}
}

func (d *textDoc) banner(text string) {
	d.gap()
	for _, l := range wrapHanging("", sanitize.Line(text), "", d.width) {
		fmt.Fprintln(d.w, l)
	}
}

func (d *textDoc) title(_, label, subject string) {
	d.gap()
	d.indent = ""
	lines := strings.Split(sanitize.Text(subject), "\n")
	d.hang(label+": ", lines[0], len(label)+2)
	for _, l := range lines[1:] {
		d.line(strings.Repeat(" ", len(label)+2) + l)
	}
}

func (d *textDoc) heading(level int, text string) {
	d.gap()
	text = sanitize.Line(text)
	if level == 1 {
		d.indent = ""
		text = strings.ToUpper(text)
	} else {
		d.indent = "  "
	}
	d.line(text)
	d.indent += "  "
}

func (d *textDoc) para(text string) {
	d.gap()
	d.line(sanitize.Line(text))
}

func (d *textDoc) note(text string) { d.para("(" + text + ")") }

func (d *textDoc) fields(kv [][2]string) {
	d.gap()
	width := 0
	for _, f := range kv {
		width = max(width, len(f[0]))
	}
	for _, f := range kv {
		d.hang(fmt.Sprintf("%-*s ", width+1, f[0]+":"), sanitize.Line(f[1]), width+2)
	}
}

func (d *textDoc) list(xs []item) {
	d.gap()
	for _, it := range xs {
		d.hanging("- ", it.text)
		for _, s := range it.sub {
			d.line("    " + sanitize.Line(s))
		}
	}
}

func (d *textDoc) numbered(xs []string) {
	d.gap()
	for i, it := range xs {
		d.hanging(fmt.Sprintf("%d. ", i+1), it)
	}
}

// hanging writes a list item whose further lines sit under its text.
func (d *textDoc) hanging(marker, text string) {
	lines := strings.Split(strings.TrimSpace(sanitize.Text(text)), "\n")
	d.hang(marker, lines[0], len(marker))
	for _, l := range lines[1:] {
		d.hang(strings.Repeat(" ", len(marker)), strings.TrimSpace(l), len(marker))
	}
}

func (d *textDoc) table(header []string, _ []bool, rows [][]string) {
	d.gap()
	tw := tabwriter.NewWriter(d.w, 0, 4, 2, ' ', tabwriter.TabIndent)
	row := func(cells []string) {
		clean := make([]string, len(cells))
		for i, c := range cells {
			clean[i] = sanitize.Line(c)
		}
		fmt.Fprintln(tw, d.indent+strings.Join(clean, "\t"))
	}
	upper := make([]string, len(header))
	for i, h := range header {
		upper[i] = strings.ToUpper(h)
	}
	row(upper)
	for _, r := range rows {
		row(r)
	}
	tw.Flush()
}

// quote writes what a model wrote, indented: its prose wrapped, each
// line's further lines under its text (a list item's under the item's),
// its code and tables whole.
func (d *textDoc) quote(text string) {
	d.gap()
	fenced := false
	for _, l := range strings.Split(strings.TrimSpace(sanitize.Text(text)), "\n") {
		if isFence(l) {
			fenced = !fenced
		}
		if fenced || isFence(l) || keptWhole(l) {
			fmt.Fprintln(d.w, strings.TrimRight(d.indent+"  "+l, " "))
			continue
		}
		lead, rest := leading(l)
		d.hang("  "+lead, rest, 2+len(lead)+len(listMarkerRE.FindString(rest)))
	}
}

// mdDoc writes GitHub-flavoured Markdown, for files and for glamour.
type mdDoc struct{ blocks }

func (d *mdDoc) banner(text string) {
	d.gap()
	fmt.Fprintf(d.w, "> **%s**\n", mdInline(text))
}

func (d *mdDoc) title(title, label, subject string) {
	d.gap()
	fmt.Fprintf(d.w, "# %s\n\n**%s:** %s\n", mdInline(title), label, mdInline(subject))
}

func (d *mdDoc) heading(level int, text string) {
	d.gap()
	fmt.Fprintf(d.w, "%s %s\n", strings.Repeat("#", level+1), mdInline(text))
}

func (d *mdDoc) para(text string) {
	d.gap()
	fmt.Fprintln(d.w, mdInline(text))
}

func (d *mdDoc) note(text string) {
	d.gap()
	fmt.Fprintf(d.w, "*%s*\n", mdInline(text))
}

// fields are paragraphs of their own: a hard line break (two trailing
// spaces) is lost on the way through glamour.
func (d *mdDoc) fields(kv [][2]string) {
	for _, f := range kv {
		d.gap()
		fmt.Fprintf(d.w, "**%s:** %s\n", f[0], mdInline(f[1]))
	}
}

func (d *mdDoc) list(xs []item) {
	d.gap()
	for _, it := range xs {
		fmt.Fprintf(d.w, "- %s\n", mdInline(it.text))
		for _, s := range it.sub {
			fmt.Fprintf(d.w, "  - %s\n", mdInline(s))
		}
	}
}

func (d *mdDoc) numbered(xs []string) {
	d.gap()
	for i, it := range xs {
		fmt.Fprintf(d.w, "%d. %s\n", i+1, mdInline(it))
	}
}

func (d *mdDoc) table(header []string, numeric []bool, rows [][]string) {
	d.gap()
	cells := func(cs []string) string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = strings.ReplaceAll(mdInline(c), "|", `\|`)
		}
		return "| " + strings.Join(out, " | ") + " |"
	}
	fmt.Fprintln(d.w, cells(header))
	align := make([]string, len(header))
	for i := range header {
		align[i] = ":---"
		if i < len(numeric) && numeric[i] {
			align[i] = "---:"
		}
	}
	fmt.Fprintln(d.w, "|"+strings.Join(align, "|")+"|")
	for _, r := range rows {
		fmt.Fprintln(d.w, cells(r))
	}
}

// quote keeps the model's Markdown, inside a blockquote: every line is
// prefixed, so nothing it writes (a heading, a fence) can leave the quote
// and pass for the report's own structure.
func (d *mdDoc) quote(text string) {
	d.gap()
	for _, l := range strings.Split(strings.TrimSpace(sanitize.Text(text)), "\n") {
		if strings.TrimSpace(l) == "" {
			fmt.Fprintln(d.w, ">")
			continue
		}
		fmt.Fprintf(d.w, "> %s\n", l)
	}
}

// mdInline makes s one line of Markdown: control characters cleaned,
// lines joined, a leading character that would open a block (a heading, a
// quote, a list) escaped, and so is what would start HTML (a comment, a
// tag) or an entity: a renderer hides the one and turns the other into
// what it names, so text a model wrote could otherwise hide part of
// itself from the reader (a plan's step at the approval gate, a finding).
func mdInline(s string) string {
	s = strings.Join(strings.Fields(sanitize.Line(s)), " ")
	s = htmlStartRE.ReplaceAllStringFunc(s, func(m string) string {
		if m[0] == '&' {
			return "&amp;" + m[1:] // glamour decodes \&lt; as <: the entity of & itself is kept
		}
		return `\` + m
	})
	if s != "" && strings.ContainsRune("#>-+=|", rune(s[0])) {
		s = `\` + s
	}
	return s
}

// htmlStartRE matches the < of a tag, a comment or a processing
// instruction, and the & of an entity; "a < b" and "&&" stay as they are.
var htmlStartRE = regexp.MustCompile(`<[A-Za-z/!?]|&#?[A-Za-z0-9]+;`)
