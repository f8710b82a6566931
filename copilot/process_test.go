package copilot

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// startSim starts the copilot-sim program as the CLI child.
func startSim(t *testing.T, o Options) *Client {
	t.Helper()
	o.CLIPath = simBinary
	o.Args = append(o.Args, "--sim-pace", "0")
	c, err := Start(testutil.Context(t, hangGuard), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestStartStdioAndTCP(t *testing.T) {
	for _, tr := range []Transport{Stdio, TCP} {
		t.Run(tr.String(), func(t *testing.T) {
			c := startSim(t, Options{Transport: tr})
			ctx := testutil.Context(t, hangGuard)
			ms, err := c.Models(ctx)
			if err != nil || len(ms) == 0 {
				t.Fatalf("%v %v", ms, err)
			}
			s, err := c.NewSession(ctx, SessionConfig{Model: ms[0].ID})
			if err != nil {
				t.Fatal(err)
			}
			a, err := s.Ask(ctx, "Is the simulator alive?")
			if err != nil || !strings.Contains(a, "[simulated") {
				t.Fatalf("%q %v", a, err)
			}
			pid := childPID(c)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if alive(pid) {
				t.Fatalf("child %d still alive after Close", pid)
			}
		})
	}
}

func TestMissingCLISaysHowToInstall(t *testing.T) {
	t.Setenv(EnvCLIPath, "")
	t.Setenv("PATH", t.TempDir())
	_, err := Start(testutil.Context(t, hangGuard), Options{})
	if !errors.Is(err, ErrCLINotFound) || !strings.Contains(err.Error(), "npm install -g @github/copilot") {
		t.Fatalf("err = %v", err)
	}
	_, err = Start(testutil.Context(t, hangGuard), Options{CLIPath: "/no/such/copilot"})
	if !errors.Is(err, ErrCLINotFound) || !strings.Contains(err.Error(), "/no/such/copilot") {
		t.Fatalf("err = %v", err)
	}
}

// script writes an executable shell script standing in for a broken CLI.
func script(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "fake-copilot")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A CLI that never answers: the start-up timeout fires although nothing is
// ever read, and the child is gone afterwards.
func TestStartTimeoutFires(t *testing.T) {
	for _, tr := range []Transport{Stdio, TCP} {
		t.Run(tr.String(), func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			bin := script(t, "echo $$ > "+pidFile+"\nexec sleep 60")
			_, err := Start(testutil.Context(t, hangGuard), Options{CLIPath: bin, Transport: tr, StartTimeout: 300 * time.Millisecond})
			if !errors.Is(err, ErrStartTimeout) {
				t.Fatalf("err = %v", err)
			}
			// No pid file means the child was stopped before its first line
			// ran (a loaded machine): nothing can be left running then.
			b, _ := os.ReadFile(pidFile)
			var pid int
			for _, ch := range strings.TrimSpace(string(b)) {
				pid = pid*10 + int(ch-'0')
			}
			if pid != 0 && alive(pid) {
				t.Fatalf("child %d left running after a failed start", pid)
			}
		})
	}
}

func TestEarlyExitReportsStderr(t *testing.T) {
	bin := script(t, "echo 'fatal: no licence for this machine' >&2\nexit 3")
	_, err := Start(testutil.Context(t, hangGuard), Options{CLIPath: bin})
	if err == nil || !strings.Contains(err.Error(), "no licence") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("err = %v", err)
	}
}

// Killing the child mid-stream fails every waiter at once with the stop
// error; with supervision, a new session works after the restart.
func TestChildKilledMidStreamAndRestart(t *testing.T) {
	c := startSim(t, Options{Restart: &RestartPolicy{InitialInterval: 10 * time.Millisecond}})
	ctx := testutil.Context(t, hangGuard)
	ms, _ := c.Models(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	started := make(chan struct{}, 4)
	for i := 0; i < 4; i++ {
		s, err := c.NewSession(ctx, SessionConfig{Model: ms[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A long prompt keeps the simulated reply streaming for a while.
			_, err := s.Stream(ctx, strings.Repeat("please go on and on ", 2000), TurnHandlers{
				OnDelta: func(string) {
					select {
					case started <- struct{}{}:
					default:
					}
				},
			})
			errs <- err
		}()
	}
	<-started
	old := childPID(c)
	syscall.Kill(old, syscall.SIGKILL)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			continue // that turn finished before the kill
		}
		if !errors.Is(err, ErrStopped) || !errors.Is(err, ErrCLIExited) {
			t.Errorf("err = %v, want ErrStopped and ErrCLIExited", err)
		}
	}
	// A new session works once the supervisor has restarted the child.
	s, err := c.NewSession(ctx, SessionConfig{Model: ms[0].ID})
	for err != nil && errors.Is(err, ErrStopped) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond) // the restart may not have begun yet
		s, err = c.NewSession(ctx, SessionConfig{Model: ms[0].ID})
	}
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Ask(ctx, "back?"); err != nil || a == "" {
		t.Fatalf("%q %v", a, err)
	}
	if c.Restarts() != 1 || childPID(c) == old {
		t.Fatalf("restarts = %d", c.Restarts())
	}
}

func TestCloseIsIdempotentAndFailsWaiters(t *testing.T) {
	c := startSim(t, Options{})
	ctx := testutil.Context(t, hangGuard)
	ms, _ := c.Models(ctx)
	s, _ := c.NewSession(ctx, SessionConfig{Model: ms[0].ID})
	c.Close()
	c.Close()
	if _, err := s.Ask(ctx, "x"); !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.NewSession(context.Background(), SessionConfig{Model: "m"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v", err)
	}
}

// A grandchild that left the process group and holds stderr open does not
// hold up stopping the child.
func TestStopDoesNotWaitForADetachedGrandchild(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Fatalf("setsid is needed: %v", err)
	}
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	bin := script(t, "setsid sh -c 'echo $$ > "+pidFile+"; exec sleep 30' &\nexec sleep 60")
	ch, err := startChild(testutil.Context(t, hangGuard), Options{CLIPath: bin, StartTimeout: time.Second}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { ch.stop(100 * time.Millisecond); close(done) }()
	testutil.Receive(t, "stop waited for the detached grandchild", hangGuard, done)
	if b, err := os.ReadFile(pidFile); err == nil {
		exec.Command("kill", strings.TrimSpace(string(b))).Run()
	}
}

// The caller's Options.Env is copied, not appended to: a backing array
// with room to spare does not receive the token (issue: Start appended it
// into the caller's array).
func TestChildCommandLeavesTheCallersEnvAlone(t *testing.T) {
	env := make([]string, 1, 8)
	env[0] = "A=1"
	cmd := childCommand("/bin/copilot", Options{Env: env, AuthToken: "secret"})
	if spare := env[:2]; spare[1] != "" {
		t.Fatalf("the caller's array was written: %q", spare)
	}
	if !slices.Contains(cmd.Env, "COPILOT_SDK_AUTH_TOKEN=secret") || !slices.Contains(cmd.Env, "A=1") {
		t.Fatalf("child env %q", cmd.Env)
	}
	if slices.ContainsFunc(cmd.Args, func(a string) bool { return strings.Contains(a, "secret") }) {
		t.Fatalf("the token is on the command line: %q", cmd.Args)
	}
}

// childPID is the pid of the client's current child, read under the lock
// a restart takes to replace it.
func childPID(c *Client) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.child.cmd.Process.Pid
}
