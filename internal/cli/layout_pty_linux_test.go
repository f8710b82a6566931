package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/vtscreen"
)

// progressRowRE is a finished row of the live view: glyph, phase, model.
var progressRowRE = regexp.MustCompile(`^[✓✗] (\S+) +(sim-\S+) `)

// brokenLines are the lines of a paragraph that hold one word between
// two lines of text: a wrapper that misjudged the width pushed it out of
// the line before ("…not from a / real / model.").
func brokenLines(lines []string) []string {
	var out []string
	for i := 1; i+1 < len(lines); i++ {
		if len(strings.Fields(lines[i])) == 1 && strings.TrimSpace(lines[i-1]) != "" && strings.TrimSpace(lines[i+1]) != "" {
			out = append(out, fmt.Sprintf("%q / %q / %q", lines[i-1], lines[i], lines[i+1]))
		}
	}
	return out
}

// The agent on terminals of 80 and 100 columns: the first progress line
// (the header) is wrapped whole, not cut; every phase's rows, plan-review's
// too, have the model in the same column; the rendered report's simulated
// banner is not broken a word a line, and its headings show no "## ".
func TestAgentOnATerminalAt80And100Columns(t *testing.T) {
	for _, width := range []int{80, 100} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
			p := startOnTerminalOf(t, width, repo, []string{"XDG_STATE_HOME=" + t.TempDir(), "NO_COLOR=1"},
				"agent", "--sim", "--yes", "--approve", "auto", "Add a --verbose flag")
			p.answerStartupQuery()
			code, out := p.wait()
			scr := &vtscreen.Screen{}
			scr.Write([]byte(out))
			lines := scr.Text()
			final := strings.Join(lines, "\n")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, final)
			}
			flat := strings.Join(strings.Fields(final), " ")
			header := flat[max(strings.Index(flat, "quorum: planning"), 0):]
			if !strings.HasPrefix(header, "quorum: planning a change in "+repo+" (") ||
				!strings.Contains(header[:strings.Index(header, "✓")], " with sim-alpha, sim-beta, sim-gamma (simulated) ") {
				t.Errorf("the header is not on the terminal whole:\n%s", final)
			}
			column, phases := -1, map[string]bool{}
			for _, l := range lines {
				m := progressRowRE.FindStringSubmatchIndex(l)
				if m == nil {
					continue
				}
				phases[l[m[2]:m[3]]] = true
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("a row of %d columns on a terminal of %d: %q", n, width, l)
				}
				at := utf8.RuneCountInString(l[:m[4]])
				if column < 0 {
					column = at
				}
				if at != column {
					t.Errorf("the model is in column %d, not %d as above: %q", at, column, l)
				}
			}
			if !phases["plan-review"] || !phases["execute"] || !phases["propose"] {
				t.Errorf("the rows of the agent's phases are not all there (%v):\n%s", phases, final)
			}
			start := strings.Index(final, "SIMULATED RUN (--sim)")
			if start < 0 {
				t.Fatalf("no rendered report:\n%s", final)
			}
			report := strings.Split(final[start:], "\n")
			end := 0
			for end < len(report) && strings.TrimSpace(report[end]) != "" {
				end++
			}
			banner := report[:end]
			if got := strings.Join(strings.Fields(strings.Join(banner, " ")), " "); got != "SIMULATED RUN (--sim): every answer below comes from quorum's built-in simulator, not from a real model." || len(banner) > 2 {
				t.Errorf("the banner is laid out on %d lines:\n%s", len(banner), strings.Join(banner, "\n"))
			}
			if broken := brokenLines(append([]string{"x"}, banner...)); len(broken) > 0 {
				t.Errorf("the banner is broken a word a line: %s", broken)
			}
			if m := headingMarkRE.FindString(final[start:]); m != "" {
				t.Errorf("a heading shows its Markdown marker: %q", m)
			}
		})
	}
}
