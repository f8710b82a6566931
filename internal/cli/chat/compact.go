package chat

import (
	"strings"
	"unicode/utf8"
)

// compact returns s, text rendered for the terminal (glamour's report),
// drawn the same with far fewer bytes: one SGR sequence where the style
// changes, none around blanks that show nothing, and no invisible blanks
// at the ends of lines. Each line ends with the style reset, so a line
// shown without the ones above it (the viewport scrolled) is styled the
// same.
//
// Why: glamour pads every line to the wrap width, each padding blank
// wrapped in its own pair of sequences ("\x1b[38;5;252m \x1b[0m", 16 bytes
// a column), and styles each word apart. A simulated discussion round's
// report, 4.3 KB of Markdown, rendered in colour at 120 columns came to
// 157 KB, kept for every round of the chat (the conversation view scrolls
// back through all of them): with the copy in the view's content, 350 KB
// of heap a round, more on a wider terminal. Compacted it is 6.3 KB
// (TestCompactShrinksAReport, TestReportsAreKeptCompacted).
//
// Anything compact does not understand (an escape sequence other than
// SGR, an SGR parameter it does not model, a control character) leaves s
// as it is: it never changes what is drawn.
func compact(s string) string {
	var (
		b     strings.Builder
		cells []styled
		cur   sgr // the style s has set so far, across lines
		ok    bool
	)
	b.Grow(len(s) / 4)
	for rest, more := s, true; more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		if cells, cur, ok = styledCells(line, cur, cells[:0]); !ok {
			return s
		}
		writeLine(&b, cells)
		if more {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// styled is one character of a line with the style it is drawn in.
type styled struct {
	r  rune
	st sgr
}

// sgr is the part of a terminal's state that SGR sequences set: what a
// character is drawn with. Colours are kept as their parameters
// ("38;5;252"), "" for the default.
type sgr struct {
	fg, bg, ul string
	attrs      uint16 // bit n: attribute n (1 bold … 9 strike) is on
}

const (
	attrUnderline = 1 << 4
	attrReverse   = 1 << 7
	attrStrike    = 1 << 9
)

// showsBlank tells whether a blank drawn in st is visible: a background,
// a line through or under it, or colours swapped.
func (st sgr) showsBlank() bool {
	return st.bg != "" || st.attrs&(attrUnderline|attrReverse|attrStrike) != 0
}

// params is the SGR parameters that set st from the default, "" for none.
func (st sgr) params() string {
	var p []string
	for a := 1; a <= 9; a++ {
		if st.attrs&(1<<a) != 0 {
			p = append(p, string(rune('0'+a)))
		}
	}
	for _, c := range []string{st.fg, st.bg, st.ul} {
		if c != "" {
			p = append(p, c)
		}
	}
	return strings.Join(p, ";")
}

// styledCells appends line's characters to cells, each with its style,
// starting in style cur; it returns the style at the line's end, and false
// when the line holds something compact does not model.
func styledCells(line string, cur sgr, cells []styled) ([]styled, sgr, bool) {
	for i := 0; i < len(line); {
		c := line[i]
		if c == '\x1b' {
			if i+1 >= len(line) || line[i+1] != '[' {
				return nil, cur, false
			}
			end := strings.IndexByte(line[i+2:], 'm')
			if end < 0 {
				return nil, cur, false
			}
			params := line[i+2 : i+2+end]
			for j := 0; j < len(params); j++ {
				if (params[j] < '0' || params[j] > '9') && params[j] != ';' {
					return nil, cur, false // another final byte, ':' sub-parameters
				}
			}
			var ok bool
			if cur, ok = cur.apply(params); !ok {
				return nil, cur, false
			}
			i += 2 + end + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
			return nil, cur, false
		}
		cells = append(cells, styled{r: r, st: cur})
		i += size
	}
	return cells, cur, true
}

// apply returns st changed by the SGR parameters params (as they stand
// between "\x1b[" and "m"), and false for a parameter it does not model.
func (st sgr) apply(params string) (sgr, bool) {
	if params == "" {
		return sgr{}, true
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		switch p := ps[i]; p {
		case "", "0":
			st = sgr{}
		case "1", "2", "3", "4", "5", "7", "8", "9":
			st.attrs |= 1 << (p[0] - '0')
		case "22":
			st.attrs &^= 1<<1 | 1<<2
		case "23", "24", "25", "27", "28", "29":
			st.attrs &^= 1 << (p[1] - '0')
		case "39":
			st.fg = ""
		case "49":
			st.bg = ""
		case "59":
			st.ul = ""
		case "38", "48", "58":
			n := 0
			switch {
			case i+2 < len(ps) && ps[i+1] == "5":
				n = 2
			case i+4 < len(ps) && ps[i+1] == "2":
				n = 4
			default:
				return st, false
			}
			c := strings.Join(ps[i:i+n+1], ";")
			switch p {
			case "38":
				st.fg = c
			case "48":
				st.bg = c
			default:
				st.ul = c
			}
			i += n
		default:
			if len(p) == 2 && (p[0] == '3' || p[0] == '4') && p[1] >= '0' && p[1] <= '7' {
				if p[0] == '3' {
					st.fg = p
				} else {
					st.bg = p
				}
				continue
			}
			if len(p) == 2 && p[0] == '9' && p[1] >= '0' && p[1] <= '7' {
				st.fg = p
				continue
			}
			if len(p) == 3 && p[:2] == "10" && p[2] >= '0' && p[2] <= '7' {
				st.bg = p
				continue
			}
			return st, false
		}
	}
	return st, true
}

// writeLine writes cells without the blanks at the end that show nothing,
// changing the style only where a character's look depends on it, and
// resets the style at the end.
func writeLine(b *strings.Builder, cells []styled) {
	n := len(cells)
	for n > 0 && cells[n-1].r == ' ' && !cells[n-1].st.showsBlank() {
		n--
	}
	var on sgr // the style the terminal draws in now
	for _, c := range cells[:n] {
		want := c.st
		if c.r == ' ' && !want.showsBlank() {
			if !on.showsBlank() {
				want = on // a blank looks the same in either
			}
		}
		if want != on {
			if p := want.params(); p == "" {
				b.WriteString("\x1b[0m")
			} else {
				b.WriteString("\x1b[0;" + p + "m")
			}
			on = want
		}
		b.WriteRune(c.r)
	}
	if on != (sgr{}) {
		b.WriteString("\x1b[0m")
	}
}
