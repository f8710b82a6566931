package cli

import (
	"regexp"
	"strings"
	"testing"
)

// quorum chat off a terminal runs line by line; history lists what it
// saved, show prints it, completion offers its id; bad ids are refused.
func TestChatHistoryShowInProcess(t *testing.T) {
	h := newHarness(t)
	h.env["XDG_STATE_HOME"] = t.TempDir()
	h.stdin = "Should we adopt Go?\n/ask sim-beta why?\n"
	o := h.run("chat", "--sim")
	if o.code != ExitOK || !strings.Contains(o.stdout, "Round 1 · discuss: Should we adopt Go?") || !strings.Contains(o.stdout, "Round 2 · ask: why?") {
		t.Fatalf("chat: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	m := regexp.MustCompile(`conversation (\S+) saved; continue it with quorum chat --resume`).FindStringSubmatch(o.stderr)
	if m == nil {
		t.Fatalf("no id on stderr:\n%s", o.stderr)
	}
	id := m[1]
	h.stdin = ""
	if o := h.run("history"); o.code != ExitOK || !strings.Contains(o.stdout, id) || !strings.Contains(o.stdout, "2 round(s)") {
		t.Errorf("history: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := h.run("show", id); o.code != ExitOK || !strings.Contains(o.stdout, "Conversation "+id) || !strings.Contains(o.stdout, "SYNTHESIS") {
		t.Errorf("show: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := h.run("__complete", "show", ""); !strings.Contains(o.stdout, id+"\tShould we adopt Go?") {
		t.Errorf("completion of show's id:\n%s", o.stdout)
	}
	if o := h.run("__complete", "chat", "--resume", id[:4]); !strings.Contains(o.stdout, id) {
		t.Errorf("completion of --resume:\n%s", o.stdout)
	}
	if o := h.run("show", "nope"); o.code != ExitFailure || !strings.Contains(o.stderr, "no saved chat of that id") {
		t.Errorf("show of an unknown id: exit %d\n%s", o.code, o.stderr)
	}
	if o := h.run("show", "../etc"); o.code != ExitUsage {
		t.Errorf("show of a path: exit %d\n%s", o.code, o.stderr)
	}
	if o := h.run("chat", "--sim", "--resume", "nope"); o.code != ExitFailure || !strings.Contains(o.stderr, "--resume") {
		t.Errorf("chat --resume of an unknown id: exit %d\n%s", o.code, o.stderr)
	}
	h.env["XDG_STATE_HOME"], h.env["HOME"] = "", ""
	if o := h.run("history"); o.code != ExitFailure || !strings.Contains(o.stderr, "XDG_STATE_HOME") {
		t.Errorf("history without a state directory: exit %d\n%s", o.code, o.stderr)
	}
}
