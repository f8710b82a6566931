package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/ptytest"
)

// ptySession is the quorum binary running on a pseudo-terminal, driven
// like a person: wait for a prompt, type an answer.
type ptySession struct {
	t      *testing.T
	master *os.File
	cmd    *exec.Cmd

	mu     sync.Mutex
	screen bytes.Buffer
	grew   chan struct{} // closed and replaced each time the screen grows
	read   chan struct{} // closed when the terminal closes
}

func startOnTerminal(t *testing.T, dir string, env []string, args ...string) *ptySession {
	t.Helper()
	return startOnTerminalOf(t, 100, dir, env, args...)
}

// startOnTerminalOf is startOnTerminal on a terminal cols columns wide.
func startOnTerminalOf(t *testing.T, cols int, dir string, env []string, args ...string) *ptySession {
	t.Helper()
	master, slave, err := ptytest.Open(cols, 50)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	cmd := exec.Command(quorumBinary(t), args...)
	cmd.Env = append(append(cleanEnv(t), "TERM=xterm-256color"), env...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		slave.Close()
		master.Close()
		t.Fatal(err)
	}
	slave.Close()
	p := &ptySession{t: t, master: master, cmd: cmd, grew: make(chan struct{}), read: make(chan struct{})}
	go func() {
		defer close(p.read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.screen.Write(buf[:n])
			close(p.grew)
			p.grew = make(chan struct{})
			p.mu.Unlock()
			if err != nil {
				return // EIO once the program has exited
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		master.Close()
		<-p.read
	})
	return p
}

// expect waits until the terminal shows want after from (a byte offset
// into the screen), and returns the offset just past it. It fails the
// test if the terminal closes first, or after a hang guard.
func (p *ptySession) expect(from int, want string) int {
	p.t.Helper()
	guard := time.After(60 * time.Second)
	for {
		p.mu.Lock()
		s := p.screen.String()
		grew := p.grew
		p.mu.Unlock()
		if i := strings.Index(s[min(from, len(s)):], want); i >= 0 {
			return from + i + len(want)
		}
		select {
		case <-grew:
		case <-p.read:
			p.mu.Lock()
			s = p.screen.String()
			p.mu.Unlock()
			if i := strings.Index(s[min(from, len(s)):], want); i >= 0 {
				return from + i + len(want)
			}
			p.t.Fatalf("the program ended before showing %q:\n%s", want, s)
		case <-guard:
			p.t.Fatalf("waited for %q:\n%s", want, s)
		}
	}
}

// answerStartupQuery answers, as a terminal would, the question every
// quorum command asks a terminal at start-up: bubbletea v1 has lipgloss
// ask the background colour (OSC 11, then a cursor report, which every
// terminal answers), and a terminal that does not answer costs termenv's
// 5 s timeout. It returns the offset past the question.
func (p *ptySession) answerStartupQuery() int {
	p.t.Helper()
	at := p.expect(0, "\x1b[6n")
	if _, err := p.master.WriteString("\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[1;1R"); err != nil {
		p.t.Fatal(err)
	}
	return at
}

func (p *ptySession) typeLine(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.master, s+"\r"); err != nil {
		p.t.Fatal(err)
	}
}

// wait waits for the program to exit and returns its exit status and
// everything the terminal showed.
func (p *ptySession) wait() (int, string) {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		p.t.Fatal("the program did not exit")
	}
	<-p.read
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.ProcessState.ExitCode(), p.screen.String()
}

// On a terminal the gate shows the plan and asks; edited in $EDITOR it is
// the edited plan that is carried out; --approve ask is the default there,
// and "always" is remembered for the same command. The user's repository
// is untouched.
func TestAgentGateOnATerminal(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	before := gittest.Take(t, repo)
	editor := filepath.Join(t.TempDir(), "edit.sh")
	// The editor renames the first step: proof that the edited plan runs.
	os.WriteFile(editor, []byte("#!/bin/sh\nsed -i '0,/\"goal\": \"[^\"]*\"/s//\"goal\": \"Edited at the gate\"/' \"$1\"\n"), 0o755)
	p := startOnTerminal(t, repo, []string{"EDITOR=" + editor, "XDG_STATE_HOME=" + t.TempDir(), "NO_COLOR=1"}, "agent", "--sim", "Add a --verbose flag")
	at := p.expect(p.answerStartupQuery(), "Carry out this plan? [y]es, [e]dit, [n]o: ")
	p.typeLine("e")
	at = p.expect(at, "Carry out the edited plan? [y]es, [n]o: ")
	p.typeLine("y")
	at = p.expect(at, "Allow? [y]es, [n]o, [a]lways this command: ")
	p.typeLine("a")
	code, screen := p.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	if strings.Count(screen[at:], "Allow? [y]es") != 0 {
		t.Errorf("asked again about a command allowed always:\n%s", screen[at:])
	}
	for _, want := range []string{"Edited at the gate", "allowed at the terminal, for the rest of the run"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	before.Unchanged(t)
}

// Rejected at the gate, nothing is executed: exit 0, no branch.
func TestAgentRejectedOnATerminal(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	p := startOnTerminal(t, repo, []string{"XDG_STATE_HOME=" + t.TempDir(), "NO_COLOR=1"}, "agent", "--sim", "Add a --verbose flag")
	p.expect(p.answerStartupQuery(), "Carry out this plan? [y]es, [e]dit, [n]o: ")
	p.typeLine("n")
	code, screen := p.wait()
	if code != 0 || !strings.Contains(screen, "rejected") {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	if b := gittest.Git(t, repo, "branch", "--list", "quorum/*"); b != "" {
		t.Fatalf("a branch was made for a rejected plan: %s", b)
	}
}

// SIGINT or SIGTERM while the executor works: the binary exits 130 or
// 143, prints the report so far, and the worktree and the branch keep the
// work of the steps done.
func TestAgentSignalKeepsTheWork(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, cmdutil.ExitInterrupted}, {syscall.SIGTERM, cmdutil.ExitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
			before := gittest.Take(t, repo)
			state := t.TempDir()
			cmd := exec.Command(quorumBinary(t), "agent", "--sim", "--yes", "Add a --verbose flag")
			cmd.Env = append(cleanEnv(t), "XDG_STATE_HOME="+state)
			cmd.Dir = repo
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				// Step 1 is done (and committed) once step 2's first tool call shows.
				if strings.Contains(sc.Text(), "execute: sim-") && strings.Contains(sc.Text(), "edit {") {
					if err := cmd.Process.Signal(c.sig); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			io.Copy(io.Discard, stderr)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Fatalf("exit %d, want %d:\n%s", code, c.code, stdout.String())
			}
			out := stdout.String()
			wts, _ := filepath.Glob(filepath.Join(state, "quorum", "worktrees", "*", "*"))
			if len(wts) != 1 || !strings.Contains(flat(out), "git worktree remove "+wts[0]) || !strings.Contains(out, "INCOMPLETE") {
				t.Fatalf("worktrees %v; the report:\n%s", wts, out)
			}
			branch := gittest.Git(t, repo, "branch", "--list", "quorum/*", "--format=%(refname:short)")
			if log := gittest.Git(t, repo, "log", "--oneline", branch); !strings.Contains(log, "step 1") {
				t.Fatalf("step 1 is not on %s:\n%s", branch, log)
			}
			before.Unchanged(t)
		})
	}
}
