package report

import (
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
)

// This file lays out the report's tables for a terminal. glamour gives
// every column the same share of the width whatever it holds: at 80
// columns the plan's standings came out as "Mean s…" and "Vot…", a title
// down a column three letters wide, and at 120 columns every column was
// stretched to the same width. Here a column is as wide as what it holds
// needs, no wider; when the table is wider than the terminal the text
// columns wrap at spaces, widest first, never a header cut nor a number
// split; and when even that cannot fit, each row is written as lines of
// "header: value" under one another.

// mdTable is a Markdown table as the report writes it (mdDoc.table).
type mdTable struct {
	header  []string
	numeric []bool
	rows    [][]string
}

// splitTables splits md into the Markdown between its tables and the
// tables: parts[i] is Markdown, and tables[i] the table after it.
func splitTables(md string) (parts []string, tables []mdTable) {
	lines := strings.SplitAfter(md, "\n")
	var cur strings.Builder
	for i := 0; i < len(lines); i++ {
		if i+1 < len(lines) && isRow(lines[i]) && isAlignRow(lines[i+1]) {
			t := mdTable{header: cellsOf(lines[i])}
			for _, a := range cellsOf(lines[i+1]) {
				t.numeric = append(t.numeric, strings.HasSuffix(a, ":") && !strings.HasPrefix(a, ":"))
			}
			i += 2
			for ; i < len(lines) && isRow(lines[i]); i++ {
				t.rows = append(t.rows, cellsOf(lines[i]))
			}
			i--
			parts = append(parts, cur.String())
			tables = append(tables, t)
			cur.Reset()
			continue
		}
		cur.WriteString(lines[i])
	}
	return append(parts, cur.String()), tables
}

func isRow(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|") && len(l) > 1
}

func isAlignRow(l string) bool {
	return isRow(l) && strings.Trim(strings.TrimSpace(l), "|:-") == ""
}

// cellsOf reads the cells of a table row, undoing mdDoc's escapes.
func cellsOf(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && strings.IndexByte(`|#>-+=`, l[i+1]) >= 0:
			i++
			b.WriteByte(l[i])
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// tableIndent is the left margin of a table, glamour's document margin.
const tableIndent = "  "

// gap is the space between two columns.
const gap = "  "

// layout writes t for a terminal width columns wide.
func (t mdTable) layout(width int) string {
	avail := width - len(tableIndent)
	n := len(t.header)
	natural, least := make([]int, n), make([]int, n)
	for i, h := range t.header {
		natural[i], least[i] = xansi.StringWidth(h), longestWord(h)
		for _, r := range t.rows {
			if i >= len(r) {
				continue
			}
			w := xansi.StringWidth(r[i])
			natural[i] = max(natural[i], w)
			if t.isNumeric(i) {
				least[i] = max(least[i], w) // a number is never split
			} else {
				least[i] = max(least[i], min(longestWord(r[i]), 12))
			}
		}
		least[i] = min(least[i], natural[i])
	}
	widths := append([]int(nil), natural...)
	total := func() int {
		s := len(gap) * (n - 1)
		for _, w := range widths {
			s += w
		}
		return s
	}
	for total() > avail {
		widest := -1
		for i := range widths {
			if widths[i] > least[i] && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return t.records(avail)
		}
		widths[widest]--
	}
	var b strings.Builder
	t.row(&b, t.header, widths)
	b.WriteString(tableIndent)
	for i, w := range widths {
		if i > 0 {
			b.WriteString(gap)
		}
		b.WriteString(strings.Repeat("─", w))
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		t.row(&b, r, widths)
	}
	return b.String()
}

func (t mdTable) isNumeric(i int) bool { return i < len(t.numeric) && t.numeric[i] }

// row writes one row, its cells wrapped to their columns' widths.
func (t mdTable) row(b *strings.Builder, cells []string, widths []int) {
	wrapped := make([][]string, len(widths))
	height := 1
	for i, w := range widths {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		wrapped[i] = wrapWords(c, w)
		height = max(height, len(wrapped[i]))
	}
	for l := range height {
		var line strings.Builder
		line.WriteString(tableIndent)
		for i, w := range widths {
			if i > 0 {
				line.WriteString(gap)
			}
			s := ""
			if l < len(wrapped[i]) {
				s = wrapped[i][l]
			}
			pad := strings.Repeat(" ", max(w-xansi.StringWidth(s), 0))
			if t.isNumeric(i) {
				line.WriteString(pad + s)
			} else {
				line.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// records writes each row as lines of "header: value", for a terminal
// too narrow for the table's columns side by side.
func (t mdTable) records(avail int) string {
	var b strings.Builder
	for j, r := range t.rows {
		if j > 0 {
			b.WriteString("\n")
		}
		for i, h := range t.header {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			lines := wrapWords(h+": "+c, max(avail, 10))
			for k, l := range lines {
				if k > 0 {
					l = "  " + l
				}
				b.WriteString(tableIndent + l + "\n")
			}
		}
	}
	return b.String()
}

// longestWord is the width of s's widest word.
func longestWord(s string) int {
	w := 0
	for _, f := range strings.Fields(s) {
		w = max(w, xansi.StringWidth(f))
	}
	return w
}

// wrapWords breaks s into lines of at most width columns at spaces; a
// word wider than that is broken where the line ends.
func wrapWords(s string, width int) []string {
	if width <= 0 {
		return []string{s}
	}
	var lines []string
	var cur string
	for _, w := range strings.Fields(s) {
		for xansi.StringWidth(w) > width {
			if cur != "" {
				lines = append(lines, cur)
				cur = ""
			}
			head := xansi.Truncate(w, width, "")
			lines = append(lines, head)
			w = w[len(head):]
		}
		switch {
		case cur == "":
			cur = w
		case xansi.StringWidth(cur)+1+xansi.StringWidth(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
