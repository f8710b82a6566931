package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// quorum chat off a terminal runs line by line; history lists what it
// saved, show prints it, completion offers its id; bad ids are refused.
func TestChatHistoryShowInProcess(t *testing.T) {
	h := newHarness(t)
	h.env["XDG_STATE_HOME"] = t.TempDir()
	h.stdin = "Should we adopt Go?\n/ask sim-beta why?\n"
	o := h.run("chat", "--sim")
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Round 1 · discuss: Should we adopt Go?") || !strings.Contains(o.stdout, "Round 2 · ask: why?") {
		t.Fatalf("chat: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	m := regexp.MustCompile(`conversation (\S+) saved; continue it with quorum chat --resume`).FindStringSubmatch(o.stderr)
	if m == nil {
		t.Fatalf("no id on stderr:\n%s", o.stderr)
	}
	id := m[1]
	h.stdin = ""
	if o := h.run("history"); o.code != cmdutil.ExitOK || !regexp.MustCompile(`(?m)^`+id+` +\S+ \S+ +2 +sim-alpha, sim-beta, sim-gamma \(simulated\) +Should we adopt Go\?$`).MatchString(o.stdout) {
		t.Errorf("history: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := h.run("show", id); o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Conversation "+id) || !strings.Contains(o.stdout, "SYNTHESIS") {
		t.Errorf("show: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := h.run("__complete", "show", ""); !strings.Contains(o.stdout, id+"\tShould we adopt Go?") {
		t.Errorf("completion of show's id:\n%s", o.stdout)
	}
	if o := h.run("__complete", "chat", "--resume", id[:4]); !strings.Contains(o.stdout, id) {
		t.Errorf("completion of --resume:\n%s", o.stdout)
	}
	if o := h.run("show", "nope"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "no saved chat of that id") {
		t.Errorf("show of an unknown id: exit %d\n%s", o.code, o.stderr)
	}
	if o := h.run("show", "../etc"); o.code != cmdutil.ExitUsage {
		t.Errorf("show of a path: exit %d\n%s", o.code, o.stderr)
	}
	if o := h.run("chat", "--sim", "--resume", "nope"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "--resume") {
		t.Errorf("chat --resume of an unknown id: exit %d\n%s", o.code, o.stderr)
	}
	h.env["XDG_STATE_HOME"], h.env["HOME"] = "", ""
	if o := h.run("history"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "XDG_STATE_HOME") {
		t.Errorf("history without a state directory: exit %d\n%s", o.code, o.stderr)
	}
}

// quorum chat's /agent through the command, line by line: the answers on
// the input's lines (yes to the plan; shell commands by --approve quorum
// here, so no more lines are needed), the work on a branch in a worktree
// under the state directory, the user's repository unchanged; --approve
// refuses what it does not know, and auto says what it means.
func TestChatAgentInProcess(t *testing.T) {
	h := newHarness(t)
	state := t.TempDir()
	h.env["XDG_STATE_HOME"] = state
	h.dir = gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	gittest.Write(t, h.dir, map[string]string{"README.md": "# demo, uncommitted\n"})
	before := gittest.Take(t, h.dir)
	h.stdin = "/agent Document the release process\ny\n"
	o := h.run("chat", "--sim", "--approve", "quorum")
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Carry out this plan?") || !strings.Contains(o.stdout, "Round 1 · agent: Document the release process") {
		t.Fatalf("chat: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "allowed shell git status (quorum") {
		t.Errorf("the shell command was not decided by the quorum:\n%s", o.stdout)
	}
	branches := strings.Fields(gittest.Git(t, h.dir, "branch", "--list", "--format=%(refname:short)", "quorum/*"))
	if len(branches) != 1 {
		t.Fatalf("branches %v, want the agent's", branches)
	}
	wt := strings.TrimSpace(gittest.Git(t, h.dir, "worktree", "list", "--porcelain"))
	if !strings.Contains(wt, filepath.Join(state, "quorum", "worktrees")) {
		t.Errorf("the worktree is not under the state directory:\n%s", wt)
	}
	// The executor ran confined, and the report says how: the worktree
	// alone writable, the network blocked.
	if !regexp.MustCompile(`(?m)^SANDBOX\n\n  Read-write: `+regexp.QuoteMeta(filepath.Join(state, "quorum", "worktrees"))).MatchString(o.stdout) ||
		!regexp.MustCompile(`(?m)^  Network: +blocked$`).MatchString(o.stdout) || strings.Contains(o.stdout, "Unconfined") {
		t.Errorf("the /agent report does not show the sandbox in force:\n%s", o.stdout)
	}
	before.Unchanged(t)

	// --no-sandbox: said on the chat's own screen before anything else, and
	// recorded in the round's report.
	h.stdin = "/agent Document the release process\ny\n"
	o = h.run("chat", "--sim", "--approve", "quorum", "--no-sandbox")
	if o.code != cmdutil.ExitOK || !strings.HasPrefix(o.stdout, "warning: --no-sandbox: the executor's commands run unconfined") ||
		!strings.Contains(o.stdout, "Unconfined (--no-sandbox)") {
		t.Errorf("chat --no-sandbox: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	before.Unchanged(t)

	h.stdin = ""
	if o := h.run("chat", "--sim", "--approve", "sometimes"); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "--approve takes ask, quorum, auto or never") {
		t.Errorf("--approve sometimes: exit %d\n%s", o.code, o.stderr)
	}
	if o := h.run("chat", "--sim", "--approve", "auto"); o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "will run without asking") {
		t.Errorf("--approve auto: exit %d\n%s", o.code, o.stderr)
	}
}
