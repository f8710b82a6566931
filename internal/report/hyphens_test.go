package report

import (
	"strings"
	"testing"
)

// A quoted paragraph with hyphens, rendered at every width from 40 to
// 140 columns: no line holds one word between two lines of text, as
// glamour's miscount of hyphens made it ("…not from a / real / model."),
// and the hyphens come back as they were.
func TestTerminalWrapsHyphenatedQuotes(t *testing.T) {
	md := "> **SIMULATED RUN (--sim): every answer below comes from quorum's built-in simulator, not from a real model.**\n\n" +
		"> [simulated sim-gamma] Looking at adopt, the deciding factor is what you can least afford to get wrong. A small experiment on adopt will settle more than a long debate. Most trouble with adopt comes from the edges: error-handling, rate-limits and long-term upkeep.\n"
	for width := 40; width <= 140; width++ {
		out, err := Terminal(md, width, false)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out, "\n")
		for i := 1; i+1 < len(lines); i++ {
			if len(strings.Fields(lines[i])) == 1 && strings.TrimSpace(lines[i-1]) != "" && strings.TrimSpace(lines[i+1]) != "" {
				t.Errorf("%d columns: a word alone on its line: %q / %q / %q", width, lines[i-1], lines[i], lines[i+1])
			}
		}
		flat := strings.Join(strings.Fields(out), " ")
		for _, want := range []string{"SIMULATED RUN (--sim):", "built-in simulator", "[simulated sim-gamma]", "error-handling, rate-limits and long-term upkeep."} {
			if !strings.Contains(flat, want) {
				t.Errorf("%d columns: the text lacks %q:\n%s", width, want, out)
			}
		}
		if strings.Contains(out, nbHyphen) {
			t.Errorf("%d columns: a guarded hyphen is left in the output", width)
		}
	}
}

// Headings are drawn without their Markdown markers: a section's in
// capitals, the others as they are.
func TestTerminalHeadingsHaveNoMarkers(t *testing.T) {
	out, err := Terminal("# Discussion\n\n## Answers\n\n### Response A · m\n\ntext\n", 80, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "#") || !strings.Contains(out, "ANSWERS") || !strings.Contains(out, "Response A · m") {
		t.Errorf("headings:\n%s", out)
	}
}

// What is Markdown keeps its hyphens while the text's are guarded: list
// markers, thematic breaks, table delimiter rows, fenced code, in a quote
// or not.
func TestGuardHyphens(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a built-in (--sim)", "a built‑in (‑‑sim)"},
		{"- an item, well-known", "- an item, well‑known"},
		{"> - a quoted item -x", "> - a quoted item ‑x"},
		{"  - a nested item", "  - a nested item"},
		{"---", "---"},
		{"> - - -", "> - - -"},
		{"| a-b | c |\n|:---|---:|", "| a‑b | c |\n|:---|---:|"},
		{"> ```go\n> x--\n> ```\n> y-z", "> ```go\n> x--\n> ```\n> y‑z"},
		{"already \u2011 guarded -", "already \u2011 guarded -"},
	} {
		if got := guardHyphens(c.in); got != c.want {
			t.Errorf("guardHyphens(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := unguardHyphens(guardHyphens(c.in)); got != c.in && !strings.Contains(c.in, nbHyphen) {
			t.Errorf("unguard(guard(%q)) = %q", c.in, got)
		}
	}
}
