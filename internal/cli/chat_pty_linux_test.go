package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// `quorum chat --sim` on a real pseudo-terminal, driven like a person: a
// question (every model's pane fills, then the report), a follow-up, a
// round cancelled with Esc, a resize to 80×24, /help, the /models list
// opened and closed with Esc, Ctrl-D at the empty prompt.
// It exits 0, leaves no process of its session behind, and the
// conversation is saved (0600), listed by quorum history, printed by
// quorum show, and continued by quorum chat --resume.
func TestChatOnATerminal(t *testing.T) {
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	p := startOnTerminal(t, t.TempDir(), env, "chat", "--sim")
	at := p.answerStartupQuery()
	at = p.expect(at, "Type a question and press Enter")

	p.typeLine("Should we shard the database?")
	// Each pane shows its model's text coming in. (Its ✓ may never be
	// drawn: the next phase can start within the same frame.)
	for _, m := range []string{"sim-alpha", "sim-beta", "sim-gamma"} {
		expectRE(p, at, regexp.MustCompile(m+` · answer · [1-9][0-9]* chars`))
	}
	expectRE(p, at, regexp.MustCompile(`sim-moderator · synthesis · [1-9][0-9]* chars`))
	at = p.expect(at, "1 round(s)")
	at = p.expect(at, "USAGE")

	p.typeLine("And what about read replicas?")
	at = p.expect(at, "discuss · answer")
	at = p.expect(at, "2 round(s)")

	p.typeLine("One more thing?")
	at = p.expect(at, "discuss · answer")
	if _, err := p.master.WriteString("\x1b"); err != nil { // Esc
		t.Fatal(err)
	}
	// One frame: the title, then the hint below.
	at = p.expect(at, "3 round(s)")
	at = p.expect(at, "round interrupted")

	// A smaller terminal: the kernel sends SIGWINCH, the screen is drawn
	// again at 80 columns.
	if err := unix.IoctlSetWinsize(int(p.master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: 80, Row: 24}); err != nil {
		t.Fatal(err)
	}
	at = p.expect(at, "quorum chat · ")
	p.typeLine("/help")
	// It shows from its top.
	at = p.expect(at, "Type a question and press Enter for a discussion round")
	// /models opens the list of models over the conversation; Esc
	// closes it as it was, and the hint of the last round's panes is back.
	p.typeLine("/models")
	at = p.expect(at, "Models of the next rounds")
	if _, err := p.master.WriteString("\x1b"); err != nil { // Esc
		t.Fatal(err)
	}
	at = p.expect(at, "Ctrl-O: each model's whole text")

	if _, err := p.master.WriteString("\x04"); err != nil { // Ctrl-D at the empty prompt
		t.Fatal(err)
	}
	code, screen := p.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen[at:])
	}
	id := regexp.MustCompile(`conversation (\S+) saved; continue it with quorum chat --resume`).FindStringSubmatch(screen)
	if id == nil {
		t.Fatalf("no word of the saved conversation:\n%s", screen[at:])
	}
	// Setsid made the program the leader of its own session: nothing
	// of that session may outlive it.
	if left := sessionProcesses(t, p.cmd.Process.Pid); len(left) > 0 {
		t.Errorf("processes of the chat's session left behind: %v", left)
	}

	file := filepath.Join(state, "quorum", "chats", id[1]+".jsonl")
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the conversation's file has mode %v, want 0600", st.Mode().Perm())
	}
	bin := quorumBinary(t)
	run := func(stdin string, args ...string) procResult {
		cmd := commandFor(t, bin, env, args...)
		cmd.Stdin = strings.NewReader(stdin)
		return runBinary(t, cmd)
	}
	if r := run("", "history"); r.code != 0 || !regexp.MustCompile(`(?m)^`+id[1]+` +\S+ \S+ +3 +sim-alpha, sim-beta, sim-gamma \(simulated\) `).MatchString(r.stdout) {
		t.Errorf("quorum history: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := run("", "show", id[1])
	if r.code != 0 || !strings.Contains(r.stdout, "Round 2 · discuss: And what about read replicas?") || !strings.Contains(r.stdout, "incomplete") && !strings.Contains(r.stdout, "INCOMPLETE") {
		t.Errorf("quorum show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Off a terminal chat runs line by line; --resume goes on with round 4.
	r = run("/ask sim-beta and you?\n", "chat", "--sim", "--resume", id[1])
	if r.code != 0 || !strings.Contains(r.stdout, "3 earlier round(s)") || !strings.Contains(r.stdout, "Round 4 · ask") {
		t.Errorf("quorum chat --resume, line by line: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// expectRE waits until the terminal shows a match of re after from, and
// returns the offset just past it; it fails as expect does.
func expectRE(p *ptySession, from int, re *regexp.Regexp) int {
	p.t.Helper()
	guard := time.After(60 * time.Second)
	for {
		p.mu.Lock()
		s := p.screen.String()
		grew := p.grew
		p.mu.Unlock()
		if loc := re.FindStringIndex(s[min(from, len(s)):]); loc != nil {
			return from + loc[1]
		}
		select {
		case <-grew:
		case <-p.read:
			p.mu.Lock()
			s = p.screen.String()
			p.mu.Unlock()
			if loc := re.FindStringIndex(s[min(from, len(s)):]); loc != nil {
				return from + loc[1]
			}
			p.t.Fatalf("the program ended before showing %s:\n%s", re, s)
		case <-guard:
			p.t.Fatalf("waited for %s:\n%s", re, s)
		}
	}
}

// commandFor is the binary with args, in a clean environment plus env.
func commandFor(t *testing.T, bin string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cleanEnv(t), env...)
	cmd.Dir = t.TempDir()
	return cmd
}

// sessionProcesses lists the processes whose session id is sid.
func sessionProcesses(t *testing.T, sid int) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp session …; comm may hold spaces.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 3 && f[3] == strconv.Itoa(sid) {
			out = append(out, e.Name()+" "+s[:strings.LastIndexByte(s, ')')+1])
		}
	}
	return out
}
