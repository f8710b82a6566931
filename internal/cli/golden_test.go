package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	goldenTopic = "Should we adopt Go for our CLI tools?"
	goldenTask  = "Migrate the billing service from MySQL to Postgres without downtime"
	goldenClaim = "A small team should adopt microservices instead of a monolith."
	// goldenDiff is a change with something for every simulated
	// reviewer's check.
	goldenDiff = "testdata/review.diff"
)

// goldenRuns are the strategies' golden runs: the command and its
// arguments. The review's gate is off (--fail-on none) so that each
// exits 0; the gate has tests of its own.
var goldenRuns = []struct {
	cmd  string
	args []string
}{
	{"discuss", []string{goldenTopic}},
	{"plan", []string{goldenTask}},
	{"debate", []string{goldenClaim}},
	{"review", []string{"--fail-on", "none", goldenDiff}},
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (rerun with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// normaliseJSON zeroes what varies from run to run (timings and the start
// time), keeping the output's order, so that a JSON result can be compared
// with a golden file.
func normaliseJSON(t *testing.T, s string) string {
	t.Helper()
	if !json.Valid([]byte(s)) {
		t.Fatalf("stdout is not JSON:\n%s", s)
	}
	s = msRE.ReplaceAllString(s, `"${1}Ms": 0`)
	return startedRE.ReplaceAllString(s, `"startedAt": "2000-01-01T00:00:00Z"`)
}

var (
	msRE      = regexp.MustCompile(`"(\w+)Ms": \d+`)
	startedRE = regexp.MustCompile(`"startedAt": "[^"]*"`)
)

// simWith serves simquorum's models with some replaced by scripted ones.
func simWith(replace ...sim.Model) func(pace) []sim.Model {
	return func(p pace) []sim.Model {
		ms := simquorum.Models()
		for i := range ms {
			for _, r := range replace {
				if ms[i].ID == r.ID {
					ms[i] = r
				}
			}
		}
		return sim.Paced(ms, p.first, p.chunk)
	}
}

// failing is a simulated participant whose turns in phase fail.
func failing(id string, phase quorum.Phase) sim.Model {
	return simquorum.Model(id).With(sim.Rule{Name: "fail", Match: simquorum.Is(phase),
		Respond: sim.Always(sim.Fail("rate_limit", "simulated outage of "+id))})
}

// hanging is a simulated participant whose turns in phase never end,
// after streaming a text that ends in hangingText.
func hanging(id string, phase quorum.Phase) sim.Model {
	return simquorum.Model(id).With(sim.Rule{Name: "hang", Match: simquorum.Is(phase),
		Respond: sim.Always(sim.Response{Text: "[simulated " + id + "] " + hangingText, Hang: true})})
}

const hangingText = "thinking…"

var formats = []string{"text", "markdown", "json"}

// goldenOutput is a run's stdout as its golden file holds it: JSON with
// its timings zeroed.
func goldenOutput(t *testing.T, format, stdout string) string {
	if format == "json" {
		return normaliseJSON(t, stdout)
	}
	return stdout
}

// The full reports of every runquorum.Strategy in every format are golden files:
// every answer, plan, turn or inspection under its model, every review,
// vote, ruling or finding, the ranking, ledger or merged findings, the
// synthesis, winner or verdict, usage per model.
func TestFullReportGolden(t *testing.T) {
	for _, c := range goldenRuns {
		for _, format := range formats {
			t.Run(c.cmd+"-"+format, func(t *testing.T) {
				o := newHarness(t).run(append([]string{c.cmd, "--sim", "-o", format}, c.args...)...)
				if o.code != cmdutil.ExitOK {
					t.Fatalf("exit %d: %s", o.code, o.stderr)
				}
				golden(t, c.cmd+"."+format+".golden", goldenOutput(t, format, o.stdout))
			})
		}
	}
}

// A run that fails (too few models left) prints what it collected, in
// every format, marked incomplete with the reason; the exit status is 1.
func TestFailedRunPrintsWhatItCollected(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h := newHarness(t)
			h.simModels = simWith(failing("sim-alpha", quorum.PhaseAnswer), failing("sim-gamma", quorum.PhaseAnswer))
			o := h.run("discuss", "--sim", "-q", "-o", format, goldenTopic)
			if o.code != cmdutil.ExitFailure {
				t.Fatalf("exit %d: %s", o.code, o.stderr)
			}
			golden(t, "discuss-failed."+format+".golden", goldenOutput(t, format, o.stdout))
			if !strings.Contains(o.stdout, "sim-beta") || !strings.Contains(o.stdout, "simulated outage of sim-alpha") {
				t.Errorf("stdout lacks the answer that came in or the failures:\n%s", o.stdout)
			}
		})
	}
}

// Ctrl-C in a later phase, when all but one of its turns came in (the
// review phase of a discussion, the vote of a plan, the first round of a
// debate, a review's only phase): what was collected is printed in every
// format, marked interrupted; the exit status is 130.
func TestInterruptedRunPrintsWhatItCollected(t *testing.T) {
	for _, c := range goldenRuns {
		for _, format := range formats {
			t.Run(c.cmd+"-"+format, func(t *testing.T) {
				h := newHarness(t)
				phase, before := map[string]quorum.Phase{
					"discuss": quorum.PhaseReview, "plan": quorum.PhaseVote, "debate": quorum.PhaseRound(1), "review": quorum.PhaseInspect,
				}[c.cmd], 2
				if c.cmd == "plan" {
					before = 4
				}
				h.simModels = simWith(hanging("sim-gamma", phase))
				args := []string{c.cmd, "--sim", "-q", "-o", format}
				if c.cmd == "discuss" || c.cmd == "plan" {
					// Every turn of the phase at once, the hanging one
					// among them: early stop would start it in a later wave,
					// or not at all.
					args = append(args, "--no-early-stop")
				}
				o := interruptAfter(h, phase, before, append(args, c.args...)...)
				if o.code != cmdutil.ExitInterrupted || !strings.Contains(o.stderr, "interrupted (Ctrl-C)") {
					t.Fatalf("exit %d: %s", o.code, o.stderr)
				}
				golden(t, c.cmd+"-interrupted."+format+".golden", goldenOutput(t, format, o.stdout))
			})
		}
	}
}

// interruptAfter runs the command and cancels it, as Ctrl-C does, once n
// turns of phase have finished and every other turn of phase that started
// has streamed all of a hanging participant's text. Without the second
// condition the golden files were flaky: a hanging turn cancelled before
// its text arrived has an empty raw reply (about 1 run in 50 under -race).
func interruptAfter(h *harness, phase quorum.Phase, n int, args ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	interrupt, ctrlC := context.WithCancel(ctx)
	defer ctrlC()
	type turn struct{ model, target string }
	var mu sync.Mutex
	done := 0
	started := map[turn]bool{}
	streamed := map[turn]string{}
	h.onEvent = func(ev quorum.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Phase != phase {
			return
		}
		t := turn{ev.Model, ev.Target}
		switch ev.Kind {
		case quorum.ModelStarted:
			started[t] = true
		case quorum.Delta:
			streamed[t] += ev.Text
		case quorum.ModelFinished:
			delete(started, t)
			if ev.Err == nil {
				done++
			}
		}
		if done < n {
			return
		}
		for t := range started {
			if !strings.HasSuffix(streamed[t], hangingText) {
				return
			}
		}
		ctrlC()
	}
	o := h.runContext(interrupt, args...)
	if ctx.Err() != nil {
		h.t.Errorf("%q did not return before the test's deadline", args)
	}
	return o
}

// The reports as a terminal shows them, at 80 and 120 columns, are golden
// files: tables as wide as what they hold (not stretched to the width),
// headers whole, a long title wrapped inside its column. At 50 columns,
// and at every width, no line is wider than the terminal.
func TestTerminalReportGolden(t *testing.T) {
	for _, c := range goldenRuns {
		t.Run(c.cmd, func(t *testing.T) {
			o := newHarness(t).run(append([]string{c.cmd, "--sim", "-o", "markdown"}, c.args...)...)
			if o.code != cmdutil.ExitOK {
				t.Fatalf("exit %d: %s", o.code, o.stderr)
			}
			for _, width := range []int{50, 80, 120} {
				out, err := report.Terminal(o.stdout, width, false)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(strings.TrimRight(l, " ")); w > width {
						t.Errorf("%d columns: a line of %d: %q", width, w, l)
					}
				}
				if width != 50 {
					golden(t, fmt.Sprintf("%s.terminal-%d.golden", c.cmd, width), out)
				}
			}
		})
	}
}
