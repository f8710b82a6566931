package cli

import (
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// Three attempts on a terminal with --approve ask: each attempt's shell
// question says which attempt asks, one question at a time, and "always"
// holds for that attempt alone; all three branches are made, the user's
// repository untouched.
func TestAgentAttemptsAskOnATerminal(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	before := gittest.Take(t, repo)
	p := startOnTerminal(t, repo, []string{"XDG_STATE_HOME=" + t.TempDir(), "NO_COLOR=1"}, "agent", "--sim", "--attempts", "3", "--approve", "ask", "Add a --verbose flag")
	at := p.expect(p.answerStartupQuery(), "Carry out this plan? [y]es, [e]dit, [n]o: ")
	p.typeLine("y")
	for range 3 {
		at = p.expect(at, "Allow? [y]es, [n]o, [a]lways this command: ")
		p.typeLine("a")
	}
	code, screen := p.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	for _, l := range []string{"A", "B", "C"} {
		if n := strings.Count(screen, "Attempt "+l+"'s executor asks to run:"); n != 1 {
			t.Errorf("attempt %s asked %d times; want once, then always:\n%s", l, n, screen)
		}
	}
	if strings.Contains(screen, "The executor asks to run:") {
		t.Errorf("a question did not say which attempt asks:\n%s", screen)
	}
	if b := strings.Fields(gittest.Git(t, repo, "branch", "--list", "quorum/*", "--format=%(refname:short)")); len(b) != 3 {
		t.Fatalf("branches %v; want one per attempt", b)
	}
	before.Unchanged(t)
}
