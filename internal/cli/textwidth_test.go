package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// flat is s with every run of white space one space: the words of a
// report whatever its width, for a test that looks for a sentence in it.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// Text sent to a pipe or a file is wrapped at 80 columns, or at $COLUMNS
// when it is set: every line of prose fits, its words all there; tables
// are left whole (they are laid out in columns), and JSON is not touched.
func TestTextOffATerminalIsWrapped(t *testing.T) {
	for _, c := range []struct {
		columns string
		width   int
	}{{"", 80}, {"60", 60}, {"120", 120}, {"nonsense", 80}} {
		h := newHarness(t)
		if c.columns != "" {
			h.env["COLUMNS"] = c.columns
		}
		for _, args := range [][]string{{"discuss", goldenTopic}, {"plan", goldenTask}, {"debate", goldenClaim}} {
			o := h.run(append([]string{args[0], "--sim", "-q"}, args[1:]...)...)
			if o.code != cmdutil.ExitOK {
				t.Fatalf("%s: exit %d: %s", args[0], o.code, o.stderr)
			}
			wide := 0
			for _, l := range strings.Split(o.stdout, "\n") {
				if utf8.RuneCountInString(l) > c.width && !tableRow(l) {
					t.Errorf("COLUMNS=%q, %s: a line of %d columns: %q", c.columns, args[0], utf8.RuneCountInString(l), l)
				}
				wide = max(wide, utf8.RuneCountInString(l))
			}
			if c.width == 120 && wide <= 80 {
				t.Errorf("COLUMNS=120, %s: no line is wider than 80: $COLUMNS was not used", args[0])
			}
			if !strings.Contains(flat(o.stdout), "SIMULATED RUN (--sim): every answer below comes from quorum's built-in simulator, not from a real model.") {
				t.Errorf("COLUMNS=%q, %s: the banner's words are not all there:\n%.400s", c.columns, args[0], o.stdout)
			}
		}
	}
	h := newHarness(t)
	o := h.run("discuss", "--sim", "-q", "-o", "json", goldenTopic)
	if !strings.Contains(o.stdout, `"text": "[simulated sim-beta] There are two sides to adopt and tools, and the answer follows from which constraint binds first.`) {
		t.Errorf("the JSON's text was wrapped:\n%.600s", o.stdout)
	}
}

// tableRow says whether l is a row of a plain-text table: cells
// separated by two spaces or more (tabwriter's padding), never wrapped.
func tableRow(l string) bool { return strings.Count(strings.TrimSpace(l), "  ") >= 2 }
