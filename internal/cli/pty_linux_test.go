package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/quorum"
	"golang.org/x/sys/unix"
)

var spinningRE = regexp.MustCompile(`\x1b\[36m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\x1b\[0m (answer|review|synthesis) +sim-[a-z]+ +(answering|reviewing|writing the synthesis)  \d+ chars  \d+\.\ds`)

// openPTY opens a pseudo-terminal of cols×rows: the master, which the test
// reads the screen from, and the slave, which the program gets as its
// terminal.
func openPTY(cols, rows int) (master, slave *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	fail := func(err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
		return fail(fmt.Errorf("unlockpt: %w", err))
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN) // ptsname
	if err != nil {
		return fail(fmt.Errorf("ptsname: %w", err))
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}); err != nil {
		return fail(fmt.Errorf("set the window size: %w", err))
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return fail(err)
	}
	return master, slave, nil
}

// `quorum discuss --sim` on a terminal: live model lines redrawn in place,
// each model's line ending with ✓, and a final screen that holds the
// header, the finished lines and the result, with no spinner left over.
func TestTerminalView(t *testing.T) {
	bin := quorumBinary(t)
	const width = 100
	master, slave, err := openPTY(width, 50)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "discuss", "--sim", goldenTopic)
	cmd.Env = append(cleanEnv(t), "TERM=xterm-256color")
	cmd.Dir = t.TempDir()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		slave.Close()
		t.Fatal(err)
	}
	slave.Close() // the child holds it now: reads end (EIO) when it exits
	raw := make(chan []byte, 1)
	go func() {
		b, err := io.ReadAll(master)
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Errorf("reading the terminal: %v", err)
		}
		raw <- b
	}()
	werr := cmd.Wait()
	var out []byte
	select {
	case out = <-raw:
	case <-ctx.Done():
		master.Close()
		<-raw
		t.Fatal("the terminal did not close")
	}
	if werr != nil {
		t.Fatalf("%v:\n%s", werr, out)
	}

	stream := string(out)
	if !strings.Contains(stream, "\x1b[3A") || !strings.Contains(stream, "\x1b[J") {
		t.Errorf("the live lines were not redrawn in place (no cursor up, no erase):\n%q", stream)
	}
	// A live line: spinner, phase, model, what it does, characters, time.
	if !spinningRE.MatchString(stream) {
		t.Errorf("no live line with a spinner:\n%q", stream)
	}

	scr := &screen{}
	scr.Write(out)
	lines := scr.text()
	final := strings.Join(lines, "\n")
	for _, l := range lines {
		if isSpinner(l) {
			t.Errorf("a spinner line is left on the final screen: %q\n%s", l, final)
		}
		if strings.Contains(l, "waiting") {
			t.Errorf("a waiting line is left on the final screen: %q", l)
		}
	}
	if !strings.HasPrefix(final, "quorum: discussing with sim-alpha, sim-beta, sim-gamma; moderator sim-moderator (simulated)\n") {
		t.Errorf("final screen does not start with the header:\n%s", final)
	}
	for _, p := range []struct{ phase, model string }{
		{"answer   ", "sim-alpha"}, {"answer   ", "sim-beta"}, {"answer   ", "sim-gamma"},
		{"review   ", "sim-alpha"}, {"review   ", "sim-beta"}, {"review   ", "sim-gamma"}, {"synthesis", "sim-moderator"},
	} {
		if !strings.Contains(final, fmt.Sprintf("✓ %s %-14s done ", p.phase, p.model)) {
			t.Errorf("no finished ✓ line for %s in the %s phase:\n%s", p.model, p.phase, final)
		}
	}
	// The result follows the progress lines, after a blank line, and ends
	// the screen.
	i := strings.Index(final, "SIMULATED RUN (--sim)")
	if i < 0 || !strings.HasPrefix(final[strings.LastIndex(final[:i-1], "\n")+1:], "\n") ||
		!strings.HasPrefix(final[strings.LastIndex(final[:i-2], "\n")+1:], "✓ synthesis sim-moderator  done ") ||
		!strings.Contains(final[i:], "\nConclusion\n") || !strings.HasPrefix(lines[len(lines)-1], "Usage:") {
		t.Errorf("the screen does not end with the result:\n%s", final)
	}
	if strings.Contains(final[max(i, 0):], "✓") {
		t.Errorf("progress drawn inside the result:\n%s", final)
	}
}

// The live view in-process, with a pseudo-terminal as stderr: the spinner's
// ticker and quorum's progress calls run side by side (the race detector
// watches them), and the ticker is gone when Run returns (TestMain's leak
// check).
func TestLiveViewInProcess(t *testing.T) {
	master, slave, err := openPTY(80, 40)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	defer master.Close()
	raw := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master) // EIO once the slave is closed
		raw <- b
	}()
	var stdout strings.Builder
	e := &env{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: slave,
		getenv:    func(string) string { return "" },
		configDir: func() (string, error) { return t.TempDir(), nil },
		// Slow enough for the spinner to turn a few times.
		simPace:   &pace{first: 50 * time.Millisecond, chunk: 10 * time.Millisecond},
		simModels: simWith(failing("sim-gamma", quorum.PhaseReview)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = e.run(ctx, []string{"discuss", "--sim", "--no-color", goldenTopic})
	slave.Close()
	out := <-raw
	if ExitCode(err) != ExitDegraded || !strings.Contains(stdout.String(), "Degraded: 1 failure") {
		t.Fatalf("exit %d (%v):\n%s", ExitCode(err), err, stdout.String())
	}
	if strings.Contains(string(out), "m✓") || strings.Contains(string(out), "\x1b[0m") {
		t.Errorf("colour despite --no-color:\n%q", out)
	}
	scr := &screen{}
	scr.Write(out)
	final := strings.Join(scr.text(), "\n")
	for _, want := range []string{"✓ answer    sim-alpha      done ", "✗ review    sim-gamma      failed after ",
		"✓ synthesis sim-moderator  done ", "quorum: the run was degraded"} {
		if !strings.Contains(final, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, final)
		}
	}
	if isSpinner(final) {
		t.Errorf("a spinner is left on the terminal:\n%s", final)
	}
}
