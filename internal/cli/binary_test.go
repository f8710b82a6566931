package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
)

// The quorum binary, built once for every test that runs it as a
// subprocess, in a directory that TestMain removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// quorumBinary builds cmd/quorum (once) and returns its path. It builds
// with -race when the tests run with it, which reuses the packages the
// test build compiled.
func quorumBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "quorum-cli-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "quorum")
		args := []string{"build", "-o", built.bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command(goBin, append(args, "github.com/quorum-go/quorum/cmd/quorum")...).CombinedOutput()
		if err != nil {
			built.err = errors.New(err.Error() + "\n" + string(out))
		}
	})
	if built.err != nil {
		t.Fatalf("building cmd/quorum: %v", built.err)
	}
	return built.bin
}

func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// cleanEnv is an environment for the binary that nothing of the
// developer's reaches: no QUORUM_* or NO_COLOR, a fresh config directory.
func cleanEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
}

type procResult struct {
	stdout, stderr string
	code           int
}

// runBinary runs cmd to the end and returns its output and exit status.
func runBinary(t *testing.T, cmd *exec.Cmd) procResult {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", cmd, err)
	}
	return procResult{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// The built binary: a simulated discussion in JSON (stdout parses, stderr
// has plain progress lines since it is not a terminal), a usage error,
// ask, and Ctrl-C.
func TestBinary(t *testing.T) {
	bin := quorumBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel) // after the parallel subtests
	command := func(t *testing.T, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = cleanEnv(t)
		cmd.Dir = t.TempDir()
		return cmd
	}

	t.Run("discuss-json", func(t *testing.T) {
		t.Parallel()
		r := runBinary(t, command(t, "discuss", "--sim", "-o", "json", goldenTopic))
		if r.code != cmdutil.ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var out jsonOut
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		if !out.Simulated || out.Command != "discuss" || len(out.Result.Answers) != 3 || out.Result.Synthesis == nil {
			t.Errorf("result = %+v", out)
		}
		for _, want := range []string{"quorum: discussing with sim-alpha, sim-beta, sim-gamma; moderator sim-moderator (simulated)\n",
			"quorum: answer phase started: sim-alpha, sim-beta, sim-gamma\n", "quorum: answer: ✓ sim-beta done in ", "quorum: synthesis phase finished in "} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "\x1b") {
			t.Errorf("escape sequences on a stderr that is not a terminal:\n%q", r.stderr)
		}
	})

	t.Run("usage", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"discuss", "--sim"}, {"plan", "--bogus", "x"}, {"frobnicate"}} {
			r := runBinary(t, command(t, args...))
			if r.code != cmdutil.ExitUsage || r.stdout != "" || !strings.Contains(r.stderr, "quorum") {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
			}
		}
	})

	t.Run("ask", func(t *testing.T) {
		t.Parallel()
		r := runBinary(t, command(t, "ask", "--sim", "What is a goroutine?"))
		if r.code != cmdutil.ExitOK || !strings.HasPrefix(r.stdout, "[simulated sim-alpha]") || !strings.Contains(r.stderr, "simulated") {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})

	// SIGINT (Ctrl-C) or SIGTERM in the middle of a run, once an answer
	// came in: exit 130 or 143, saying so, and the answers that came in
	// are printed, marked incomplete.
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		says string
	}{{syscall.SIGINT, cmdutil.ExitInterrupted, "interrupted by Ctrl-C"}, {syscall.SIGTERM, cmdutil.ExitTerminated, "terminated by SIGTERM"}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := command(t, "discuss", "--sim", goldenTopic)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "quorum: answer: ✓") {
					if err := cmd.Process.Signal(c.sig); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			rest, _ := io.ReadAll(stderr)
			err = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.code || !strings.Contains(string(rest), "turns were aborted, sessions destroyed and the CLI stopped") {
				t.Errorf("exit %d (%v), stderr after the signal %q", code, err, rest)
			}
			// The first Ctrl-C says what a second would do.
			if again := strings.Contains(string(rest), "press Ctrl-C again to quit at once, without it"); again != (c.sig == syscall.SIGINT) {
				t.Errorf("after %v, stderr %q", c.sig, rest)
			}
			if out := stdout.String(); !strings.Contains(flat(out), "INCOMPLETE: the discussion was "+c.says+" in the answer phase") || !strings.Contains(out, "Response A · sim-") {
				t.Errorf("stdout does not hold the answers that came in, marked incomplete:\n%s", out)
			}
		})
	}
}
