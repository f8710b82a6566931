package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// `quorum chat --sim` on a real pseudo-terminal, /agent: the plan shown
// full screen, edited in $EDITOR (the edited step is what runs), approved
// with y, the shell command allowed with a (always: not asked again), the
// round's report; Ctrl-D leaves with exit 0 and nothing of the session
// left. The work is on the agent's branch; the user's tree, index and
// HEAD are as they were.
func TestChatAgentOnATerminal(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	gittest.Write(t, repo, map[string]string{"README.md": "# demo, uncommitted\n"})
	before := gittest.Take(t, repo)
	editor := filepath.Join(t.TempDir(), "edit.sh")
	// The editor renames the first step: proof that the edited plan runs.
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i '0,/\"goal\": \"[^\"]*\"/s//\"goal\": \"Edited at the gate\"/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"EDITOR=" + editor, "XDG_STATE_HOME=" + t.TempDir(), "NO_COLOR=1"}
	p := startOnTerminal(t, repo, env, "chat", "--sim")
	at := p.expect(p.answerStartupQuery(), "Type a question and press Enter")
	p.typeLine("/agent Add a --verbose flag")
	at = p.expect(at, "y carry out · e edit") // the gate armed
	keys := func(s string) {
		t.Helper()
		if _, err := p.master.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	keys("e")
	at = p.expect(at, "Edited at the gate")
	at = p.expect(at, "y carry out the edited plan")
	keys("y")
	at = p.expect(at, "y allow · n deny")
	keys("a")
	at = p.expect(at, "1 round(s)")
	keys("\x04") // Ctrl-D at the empty prompt
	code, screen := p.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen[at:])
	}
	if n := strings.Count(screen[at:], "y allow · n deny"); n != 0 {
		t.Errorf("asked %d more times about a command allowed always", n)
	}
	if left := sessionProcesses(t, p.cmd.Process.Pid); len(left) > 0 {
		t.Errorf("processes of the chat's session left behind: %v", left)
	}
	branches := strings.Fields(gittest.Git(t, repo, "branch", "--list", "--format=%(refname:short)", "quorum/*"))
	if len(branches) != 1 {
		t.Fatalf("the agent's branches: %v, want one", branches)
	}
	if notes := gittest.Git(t, repo, "show", branches[0]+":QUORUM_SIM_NOTES.md"); !strings.Contains(notes, "Edited at the gate") {
		t.Errorf("the branch's notes %q lack the edited step", notes)
	}
	before.Unchanged(t)
}
