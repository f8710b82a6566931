// Package sanitize makes untrusted text (what models write, what the
// Copilot CLI says) safe to print on a terminal; it is production code of
// the quorum command.
//
// A terminal acts on control characters: ESC starts cursor movement,
// colour, title changes and OSC hyperlinks or clipboard writes; CR
// overwrites a line; the 8-bit C1 codes (U+0080–U+009F, and the raw bytes
// 0x80–0x9F of invalid UTF-8) are the same commands in one byte. Text
// replaces each of them by a visible stand-in, so an injected sequence
// shows up as text ("␛[2J") instead of running, and leaves every other
// character, all of ordinary Unicode, as it was. Because it works rune by
// rune with no state, text cut into pieces (streamed deltas) comes out the
// same as the whole.
package sanitize

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text returns s with every terminal control character made visible: C0
// controls other than newline, tab and CR become their Control Pictures
// (ESC → ␛, U+2400 + code), DEL becomes ␡, C1 controls and bytes that are
// not UTF-8 become U+FFFD. CR is dropped: before a newline it is only a
// CRLF line end, and alone it would move the cursor back over the line
// (a way to overwrite what was printed); dropping it in both cases keeps
// Text free of state.
func Text(s string) string {
	if clean(s) {
		return s // the common case costs no allocation
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r':
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Line is Text for a place that holds one line (a table cell, a list
// item, a progress line): newlines and tabs become spaces as well.
func Line(s string) string {
	s = Text(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// clean reports whether s has nothing Text would change.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || r >= 0x80 && r <= 0x9f {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// Exact is Text for what a person approves (a command to run): the
// Unicode controls that reorder text (bidirectional embeddings,
// overrides, isolates and marks) are shown as their code points too
// (U+202E → ⟨U+202E⟩), so that it cannot read as something other than
// what runs. Elsewhere they stay: right-to-left text needs them.
func Exact(s string) string { return bidiRevealer.Replace(Text(s)) }

var bidiRevealer = func() *strings.Replacer {
	var pairs []string
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069} {
		pairs = append(pairs, string(r), "⟨U+"+strings.ToUpper(strconv.FormatInt(int64(r), 16))+"⟩")
	}
	return strings.NewReplacer(pairs...)
}()
