package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTextNeutralisesTerminalControls(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"colour (CSI)", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"clear screen", "a\x1b[2J\x1b[Hb", "a␛[2J␛[Hb"},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "␛]8;;https://evil.example␇click␛]8;;␇"},
		{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", "␛]52;c;cm0gLXJmIH4=␛\\"},
		{"title change", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"C1 CSI as a rune", "x\u009b31my", "x\uFFFD31my"},
		{"C1 CSI as a raw byte", "x\x9b31my", "x\uFFFD31my"},
		{"DEL and backspace", "ab\x7f\x08c", "ab␡␈c"},
		{"CR overwrites a line", "safe\rEVIL", "safeEVIL"},
		{"CRLF line ends", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"NUL and bell", "a\x00b\x07", "a␀b␇"},
		{"newline and tab stay", "a\n\tb", "a\n\tb"},
		{"ordinary Unicode stays", "naïve café — 日本語 🚀 שלום ∑", "naïve café — 日本語 🚀 שלום ∑"},
		{"empty", "", ""},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("%s: Text(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestLineFoldsNewlines(t *testing.T) {
	if got := Line("a\nb\tc\x1b[1m"); got != "a b c␛[1m" {
		t.Errorf("Line = %q", got)
	}
}

// Whatever the input, nothing a terminal acts on survives, the result is
// UTF-8, and Text on pieces equals Text on the whole (streamed deltas are
// cleaned one by one).
func FuzzText(f *testing.F) {
	for _, s := range []string{"\x1b[31m", "a\r\nb", "\x9b", "日本\x1b]8;;x\x07", "\xff\xfe"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("Text(%q) = %q keeps control %U", s, out, r)
			}
		}
		if Text(out) != out {
			t.Fatalf("Text is not idempotent on %q", s)
		}
		// Cut at a rune boundary, as deltas are.
		if cut < 0 {
			cut = -cut
		}
		i := cut % (len(s) + 1)
		for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
			i--
		}
		if got := Text(s[:i]) + Text(s[i:]); got != out {
			t.Fatalf("pieces %q + %q give %q, whole gives %q", s[:i], s[i:], got, out)
		}
		if strings.ContainsRune(out, '\r') {
			t.Fatalf("CR left in %q", out)
		}
	})
}

func TestExactShowsWhatReordersText(t *testing.T) {
	in := "rm -rf \u202e/ \u2066x\u2069\u200f \x1b[2J"
	want := "rm -rf ⟨U+202E⟩/ ⟨U+2066⟩x⟨U+2069⟩⟨U+200F⟩ ␛[2J"
	if got := Exact(in); got != want {
		t.Errorf("Exact(%q) = %q, want %q", in, got, want)
	}
	if got := Text("שלום \u200f!"); got != "שלום \u200f!" {
		t.Errorf("Text changed right-to-left text: %q", got)
	}
}
