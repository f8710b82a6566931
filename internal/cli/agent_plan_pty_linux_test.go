package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// On a terminal a plan given with --plan meets the gate as usual: shown
// and asked about, then carried out, with no planning phase; the shell
// is asked about too (--approve ask, the default there). The user's
// repository is untouched.
func TestAgentGivenPlanOnATerminal(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	before := gittest.Take(t, repo)
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"title":"Release notes","author":"sim-beta","steps":[{"goal":"Write the release notes down","files":["NOTES.md"],"check":"cat NOTES.md"}],"risks":[]}`), 0o600)
	p := startOnTerminal(t, repo, []string{"XDG_STATE_HOME=" + t.TempDir(), "NO_COLOR=1"}, "agent", "--sim", "--plan", plan, "Write release notes")
	at := p.expect(p.answerStartupQuery(), "Write the release notes down")
	at = p.expect(at, "Carry out this plan? [y]es, [e]dit, [n]o: ")
	p.typeLine("y")
	p.expect(at, "Allow? [y]es, [n]o, [a]lways this command: ")
	p.typeLine("a")
	code, screen := p.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	for _, want := range []string{"carrying out a saved plan", "given (from " + plan + ")", "Executor: sim-beta"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	for _, phase := range []string{"propose", "plan-review", "revise"} {
		if strings.Contains(screen, phase) {
			t.Errorf("the terminal shows a %s phase:\n%s", phase, screen)
		}
	}
	before.Unchanged(t)
}
