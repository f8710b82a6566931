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
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/progress"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/ptytest"
	"github.com/quorum-go/quorum/internal/testing/vtscreen"
	"github.com/quorum-go/quorum/quorum"
)

// estimateThenHeaderRE is the start of a discussion's final screen, its
// words joined by one space: what it will cost (sim-gamma costs a quarter
// of a premium request a turn) and the account's allowance, then who
// takes part, then the first finished row.
var estimateThenHeaderRE = regexp.MustCompile(`^quorum: estimate 5\.25–5\.5 premium requests \(6–7 model turns\); premium requests this month: \d+ of 300 used, [\d.]+ left, resets \d{4}-\d\d-\d\d quorum: discussing with sim-alpha, sim-beta, sim-gamma; moderator sim-moderator \(simulated\) ✓ answer`)

var spinningRE = regexp.MustCompile(`\x1b\[36m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\x1b\[0m (answer|review|synthesis) +sim-[a-z]+ +(answering|reviewing|writing the synthesis)  \d+ chars  \d+\.\ds`)

// capturePTY opens a pseudo-terminal of cols×rows for the command to
// write to in-process, and reads everything written there; finish closes
// the command's side and returns it.
func capturePTY(t *testing.T, cols, rows int) (slave *os.File, finish func() []byte) {
	t.Helper()
	master, slave, err := ptytest.Open(cols, rows)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	raw := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master) // EIO once the slave is closed
		raw <- b
	}()
	return slave, func() []byte {
		slave.Close()
		b := <-raw
		master.Close()
		return b
	}
}

// runOnTerminal runs the quorum binary with a pseudo-terminal of
// width×50 as its terminal (stdin, stdout, stderr) and returns everything
// it wrote there.
func runOnTerminal(t *testing.T, width int, args ...string) []byte {
	t.Helper()
	bin := quorumBinary(t)
	master, slave, err := ptytest.Open(width, 50)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
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
	return out
}

// `quorum discuss --sim` on terminals of two widths: live model lines
// redrawn in place, each model's line ending with ✓, then the report as
// rendered Markdown (glamour), wrapped to the terminal's width: every
// stage under its heading, the answers' text folded onto more lines on
// the narrower terminal, no line wider than the terminal.
func TestTerminalView(t *testing.T) {
	lines := map[int]int{}
	for _, width := range []int{64, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			out := runOnTerminal(t, width, "discuss", "--sim", goldenTopic)
			stream := string(out)
			if !strings.Contains(stream, "\x1b[3A") || !strings.Contains(stream, "\x1b[J") {
				t.Errorf("the live lines were not redrawn in place (no cursor up, no erase):\n%q", stream)
			}
			if !spinningRE.MatchString(stream) {
				t.Errorf("no live line with a spinner:\n%q", stream)
			}
			if !strings.Contains(stream, "\x1b[38;5;") {
				t.Errorf("the report is not rendered in colour on a terminal")
			}

			scr := &vtscreen.Screen{}
			scr.Write(out)
			screenLines := scr.Text()
			final := strings.Join(screenLines, "\n")
			for _, l := range screenLines {
				if isSpinner(l) {
					t.Errorf("a spinner line is left on the final screen: %q", l)
				}
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("a line of %d columns on a terminal of %d: %q", n, width, l)
				}
			}
			// What the run will cost comes first, then who takes part: both
			// wrapped to the width, whole, not cut.
			if !estimateThenHeaderRE.MatchString(strings.Join(strings.Fields(final), " ")) {
				t.Errorf("final screen does not start with the estimate and the whole header:\n%s", final)
			}
			for _, p := range []struct{ phase, model string }{
				{"answer   ", "sim-alpha"}, {"answer   ", "sim-beta"}, {"answer   ", "sim-gamma"},
				{"review   ", "sim-alpha"}, {"review   ", "sim-beta"}, {"review   ", "sim-gamma"}, {"synthesis", "sim-moderator"},
			} {
				if !strings.Contains(final, fmt.Sprintf("✓ %s %-14s done ", p.phase, p.model)) {
					t.Errorf("no finished ✓ line for %s in the %s phase:\n%s", p.model, p.phase, final)
				}
			}
			// The report follows the progress lines and holds every stage,
			// in order, rendered: Markdown's markers are drawn, not shown.
			i := strings.Index(final, "SIMULATED RUN (--sim)")
			if i < 0 || strings.Contains(final[i:], "✓ ") {
				t.Fatalf("the report does not follow the progress lines:\n%s", final)
			}
			report := final[i:]
			at := 0
			for _, want := range []string{"Discussion", "Question: Should we adopt Go", "ANSWERS", "Response A · sim-beta",
				"REVIEWS", "RANKING", "SYNTHESIS", "Responses: A = sim-beta, B = sim-alpha, C = sim-gamma", "Conclusion", "USAGE", "Premium requests"} {
				j := strings.Index(report[at:], want)
				if j < 0 {
					t.Fatalf("the report lacks %q after what came before:\n%s", want, report)
				}
				at += j
			}
			if m := headingMarkRE.FindString(report); m != "" {
				t.Errorf("a heading shows its Markdown marker: %q", m)
			}
			for _, raw := range []string{"**Question:**", "| Rank |", "|---:|"} {
				if strings.Contains(report, raw) {
					t.Errorf("raw Markdown %q on the terminal:\n%s", raw, report)
				}
			}
			lines[width] = len(screenLines)
		})
	}
	if lines[64] <= lines[120] {
		t.Errorf("the narrower terminal took %d lines, the wider %d: the report was not wrapped to the width", lines[64], lines[120])
	}
}

// What models write reaches the terminal inside the rendered report with
// its control sequences neutralised: an OSC 8 hyperlink, a screen clear, a
// title change and a C1 control show as text; the only escape sequences
// on stdout are the renderer's own colours (SGR); with --no-color there
// are none at all. Ordinary Unicode is kept.
func TestRenderedReportNeutralisesModelText(t *testing.T) {
	const evil = "Fine answer \x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b[2J\x1b]0;pwned\x07 \u009b31m naïve 日本語 🚀"
	for _, colour := range []bool{true, false} {
		slave, finish := capturePTY(t, 100, 40)
		var stderr strings.Builder
		e := &env{&cmdutil.Factory{
			In: strings.NewReader(""), Out: slave, ErrOut: &stderr,
			Getenv:    func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] },
			ConfigDir: func() (string, error) { return t.TempDir(), nil },
			SimModels: unpaced(simWith(simquorum.Model("sim-beta").With(sim.Rule{Name: "evil", Match: simquorum.Is(quorum.PhaseAnswer),
				Respond: sim.Always(sim.Text(evil))}))),
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		args := []string{"discuss", "--sim", "-q", goldenTopic}
		if !colour {
			args = append(args, "--no-color")
		}
		err := e.run(ctx, args, nil)
		cancel()
		out := string(finish())
		if err != nil {
			t.Fatalf("colour %v: %v\n%s", colour, err, stderr.String())
		}
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\u009b", "\x07"} {
			if strings.Contains(out, bad) {
				t.Errorf("colour %v: %q reached the terminal", colour, bad)
			}
		}
		if left := sgrRE.ReplaceAllString(out, ""); strings.Contains(left, "\x1b") {
			i := strings.Index(left, "\x1b")
			t.Errorf("colour %v: an escape sequence other than a colour: %q", colour, left[max(0, i-20):min(len(left), i+20)])
		}
		if !colour && strings.Contains(out, "\x1b") {
			t.Errorf("escape sequences despite --no-color")
		}
		plain := sgrRE.ReplaceAllString(out, "")
		for _, want := range []string{"␛]8;;https://evil.example␇click", "␛[2J", "naïve 日本語 🚀"} {
			if !strings.Contains(plain, want) {
				t.Errorf("colour %v: the terminal lacks %q", colour, want)
			}
		}
	}
}

var sgrRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// headingMarkRE matches a heading drawn with its Markdown marker ("## ").
var headingMarkRE = regexp.MustCompile(`(?m)^\s*#{1,6} \S.*$`)

// The live view in-process, with a pseudo-terminal as stderr: the spinner's
// ticker and quorum's progress calls run side by side (the race detector
// watches them), and the ticker is gone when Run returns (TestMain's leak
// check).
func TestLiveViewInProcess(t *testing.T) {
	slave, finish := capturePTY(t, 80, 40)
	var stdout strings.Builder
	e := &env{&cmdutil.Factory{
		In: strings.NewReader(""), Out: &stdout, ErrOut: slave,
		Getenv:    func(string) string { return "" },
		ConfigDir: func() (string, error) { return t.TempDir(), nil },
		// Slow enough for the spinner to turn a few times.
		SimModels: paced(pace{first: 50 * time.Millisecond, chunk: 10 * time.Millisecond}, simWith(failing("sim-gamma", quorum.PhaseReview))),
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := e.run(ctx, []string{"discuss", "--sim", "--no-color", goldenTopic}, nil)
	out := finish()
	if ExitCode(err) != cmdutil.ExitDegraded || !strings.Contains(stdout.String(), "DEGRADED") {
		t.Fatalf("exit %d (%v):\n%s", ExitCode(err), err, stdout.String())
	}
	if strings.Contains(string(out), "m✓") || strings.Contains(string(out), "\x1b[0m") {
		t.Errorf("colour despite --no-color:\n%q", out)
	}
	scr := &vtscreen.Screen{}
	scr.Write(out)
	final := strings.Join(scr.Text(), "\n")
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

// A debate on a terminal: a live line per debater and phase, the settle
// gate's line kept between the rounds and the verdict.
func TestLiveViewDebate(t *testing.T) {
	slave, finish := capturePTY(t, 100, 40)
	var stdout strings.Builder
	e := &env{&cmdutil.Factory{
		In: strings.NewReader(""), Out: &stdout, ErrOut: slave,
		Getenv:    func(string) string { return "" },
		ConfigDir: func() (string, error) { return t.TempDir(), nil },
		SimModels: paced(pace{first: 20 * time.Millisecond, chunk: 5 * time.Millisecond}, nil),
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := e.run(ctx, []string{"debate", "--sim", "--no-color", goldenClaim}, nil)
	out := finish()
	if err != nil {
		t.Fatalf("exit %d (%v)", ExitCode(err), err)
	}
	scr := &vtscreen.Screen{}
	scr.Write(out)
	final := strings.Join(scr.Text(), "\n")
	for _, want := range []string{"✓ opening   sim-beta       done ", "✓ round-2   sim-gamma      done ", "  All 2 rounds were held",
		"✓ verdict   sim-moderator  done "} {
		if !strings.Contains(final, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, final)
		}
	}
	if strings.Index(final, "All 2 rounds were held") > strings.Index(final, "verdict   sim-moderator") {
		t.Errorf("the settle line is not between the rounds and the verdict:\n%s", final)
	}
}

// isSpinner says whether s shows a frame of the live view's spinner.
func isSpinner(s string) bool {
	for _, f := range progress.Spinner {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}
