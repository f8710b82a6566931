package cli

import (
	"bufio"
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

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	goldenTopic = "Should we adopt Go for our CLI tools?"
	goldenTask  = "Migrate the billing service from MySQL to Postgres without downtime"
)

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

// The results of discuss and plan in every format are golden files; JSON
// with its timings zeroed.
func TestDiscussAndPlanGolden(t *testing.T) {
	for _, c := range []struct{ cmd, topic string }{{"discuss", goldenTopic}, {"plan", goldenTask}} {
		for _, format := range []string{"text", "markdown", "json"} {
			t.Run(c.cmd+"-"+format, func(t *testing.T) {
				o := newHarness(t).run(c.cmd, "--sim", "-o", format, c.topic)
				if o.code != ExitOK {
					t.Fatalf("exit %d: %s", o.code, o.stderr)
				}
				got := o.stdout
				if format == "json" {
					got = normaliseJSON(t, got)
				}
				golden(t, c.cmd+"."+format+".golden", got)
			})
		}
	}
}

// The JSON result is the wrapper {simulated, command, result} around
// quorum's result schema, every list present.
func TestQuorumJSONSchema(t *testing.T) {
	h := newHarness(t)
	o := h.run("discuss", "--sim", "-q", "--output=json", goldenTopic)
	if o.code != ExitOK || o.stderr != "" {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	var d struct {
		Simulated *bool
		Command   string
		Result    map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatal(err)
	}
	if d.Simulated == nil || !*d.Simulated || d.Command != "discuss" {
		t.Errorf("wrapper: simulated %v, command %q", d.Simulated, d.Command)
	}
	for _, k := range []string{"question", "models", "answers", "reviews", "ranking", "ranked", "synthesis", "degraded", "failures", "phases", "calls", "usage", "usageByModel", "startedAt", "elapsedMs"} {
		if _, ok := d.Result[k]; !ok {
			t.Errorf("result has no %q", k)
		}
	}
	var r quorum.Discussion
	if err := json.Unmarshal([]byte(mustField(t, o.stdout, "result")), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Answers) != 3 || len(r.Reviews) != 3 || len(r.Ranking) != 3 || r.Synthesis == nil || r.Synthesis.Conclusion == "" ||
		r.Failures == nil || len(r.Failures) != 0 || r.Degraded || r.Synthesis.Moderator != simquorum.Moderator {
		t.Errorf("discussion = %+v", r)
	}
	if string(d.Result["failures"]) != "[]" {
		t.Errorf("failures = %s, want []", d.Result["failures"])
	}

	o = h.run("plan", "--sim", "-q", "-o", "json", goldenTask)
	var p struct {
		Simulated bool
		Command   string
		Result    quorum.PlanResult
	}
	if err := json.Unmarshal([]byte(o.stdout), &p); err != nil || o.code != ExitOK {
		t.Fatalf("exit %d: %v", o.code, err)
	}
	if !p.Simulated || p.Command != "plan" || len(p.Result.Proposals) != 3 || len(p.Result.Votes) != 6 ||
		p.Result.Winner == "" || p.Result.Winner != p.Result.Standings[0].Label || p.Result.Reason == "" || p.Result.Failures == nil {
		t.Errorf("plan = %+v", p)
	}
}

func mustField(t *testing.T, s, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return string(m[key])
}

// A participant that fails to answer and a moderator that fails: the
// result is printed with a Degraded section naming each failure and the
// substitute moderator, and the exit status is 3.
func TestDegradedRunExitsThree(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-beta", quorum.PhaseAnswer), failing(simquorum.Moderator, quorum.PhaseSynthesis))
	o := h.run("discuss", "--sim", goldenTopic)
	if o.code != ExitDegraded {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	golden(t, "discuss-degraded.text.golden", o.stdout)
	for _, want := range []string{"Degraded: 2 failures", "sim-beta, answer phase (error)", "simulated outage of sim-beta",
		"in place of sim-moderator", "sim-beta (dropped out in the answer phase)"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if !strings.Contains(o.stderr, "degraded") || !strings.Contains(o.stderr, "✗ sim-beta failed") {
		t.Errorf("stderr = %s", o.stderr)
	}

	o = h.run("discuss", "--sim", "-q", "-o", "json", goldenTopic)
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != ExitDegraded {
		t.Fatalf("exit %d: %v", o.code, err)
	}
	if !r.Result.Degraded || len(r.Result.Failures) != 2 || r.Result.Failures[0].Model != "sim-beta" || !r.Result.Synthesis.Substituted {
		t.Errorf("result = %+v", r.Result.Outcome)
	}
	o = h.run("discuss", "--sim", "-q", "-o", "markdown", goldenTopic)
	if o.code != ExitDegraded || !strings.Contains(o.stdout, "## Degraded") {
		t.Errorf("markdown: exit %d\n%s", o.code, o.stdout)
	}
}

type jsonOut struct {
	Simulated bool
	Command   string
	Result    quorum.Discussion
}

// Too few models left: nothing to print but the error, which names every
// model's failure; exit status 1. With -o json the partial result is
// printed too, its error set.
func TestFailedRunExitsOne(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-alpha", quorum.PhaseAnswer), failing("sim-gamma", quorum.PhaseAnswer))
	o := h.run("discuss", "--sim", goldenTopic)
	if o.code != ExitFailure || o.stdout != "" {
		t.Fatalf("exit %d, stdout %q", o.code, o.stdout)
	}
	for _, want := range []string{"the discussion failed: too few models left after the answer phase (1 left, 2 needed)",
		"✗ sim-alpha, answer phase (error): ", "simulated outage of sim-alpha", "simulated outage of sim-gamma", "copilot login"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	o = h.run("discuss", "--sim", "-q", "-o", "json", goldenTopic)
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != ExitFailure {
		t.Fatalf("exit %d: %v\n%s", o.code, err, o.stdout)
	}
	if r.Result.Error == "" || len(r.Result.Failures) != 2 || len(r.Result.Calls) != 3 || r.Result.Calls[1].Outcome != "ok" {
		t.Errorf("result = %+v", r.Result)
	}

	// Plans fail the same way.
	h.simModels = simWith(failing("sim-beta", quorum.PhasePropose), failing("sim-gamma", quorum.PhasePropose))
	if o := h.run("plan", "--sim", "-q", goldenTask); o.code != ExitFailure || !strings.Contains(o.stderr, "the plan failed") ||
		!strings.Contains(o.stderr, "sim-gamma, propose phase") {
		t.Errorf("plan: exit %d: %s", o.code, o.stderr)
	}
}

// quorum's errors speak in Config's terms; where the command shows a
// model's failure, it adds the advice that names its flags, keyed on the
// quorum error behind the failure.
func TestFailureAdviceNamesTheFlags(t *testing.T) {
	timeout := &quorum.ModelError{Model: "m", Phase: quorum.PhaseAnswer, Err: fmt.Errorf("%w: no reply within the phase timeout", quorum.ErrTimeout)}
	failure := func(kind, err string) quorum.Failure {
		return quorum.Failure{Model: "m", Phase: quorum.PhaseReview, Kind: kind, Error: err}
	}
	for _, c := range []struct{ got, want string }{
		{modelErr(timeout), "no reply within the phase timeout; raise --phase-timeout"},
		{modelErr(fmt.Errorf("%w (no ranking found)", quorum.ErrUnparsable)), "could not be parsed (no ranking found); --transcript FILE"},
		{failureLine(failure("timeout", timeout.Err.Error())), "(timeout): time limit reached: no reply within the phase timeout; raise --phase-timeout"},
		{failureLine(failure("empty", quorum.ErrEmptyReply.Error())), "(empty): the model replied with no text; check that the model id is right (quorum models)"},
		{failureLine(failure("error", "session: boom")), "(error): session: boom"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%q lacks %q", c.got, c.want)
		}
	}
	if got := failureLine(failure("error", "session: boom")); strings.Contains(got, ";") {
		t.Errorf("a failure no flag helps with was given advice: %q", got)
	}
}

// Off a terminal, progress is plain lines on stderr, nothing redrawn;
// -q silences it; results stay on stdout.
func TestPlainProgress(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-gamma", quorum.PhaseVote))
	o := h.run("plan", "--sim", goldenTask)
	if o.code != ExitDegraded {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{
		"quorum: planning with sim-alpha, sim-beta, sim-gamma (simulated)\n",
		"quorum: propose phase started: sim-alpha, sim-beta, sim-gamma\n",
		"quorum: propose: ✓ sim-alpha done in ",
		"quorum: vote: ✗ sim-gamma on plan ",
		"quorum: vote phase finished in ",
	} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	if n := strings.Count(o.stderr, "✗ sim-gamma on plan "); n != 2 {
		t.Errorf("%d failed votes reported, want 2 (each once):\n%s", n, o.stderr)
	}
	if strings.Contains(o.stderr, "\x1b[") || strings.Contains(o.stdout, "\x1b[") {
		t.Errorf("escape sequences off a terminal")
	}
	if o := h.run("plan", "--sim", "-q", goldenTask); o.stderr != "quorum: the run was degraded: some models dropped out (see above)\n" {
		t.Errorf("-q: stderr %q", o.stderr)
	}
}

func TestNoReviewIsUnranked(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-q", "--no-review", goldenTopic)
	if o.code != ExitOK || !strings.Contains(o.stdout, "not ranked") || !strings.Contains(o.stdout, "Conclusion") {
		t.Errorf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// Flags reach quorum.Config: two participants named with -m, a moderator,
// one answer per reviewer.
func TestQuorumFlags(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-q", "-o", "json", "-m", "sim-gamma", "-m", "sim-alpha",
		"--moderator", "sim-beta", "--reviewers", "1", "-j", "1", "--phase-timeout", "1m", goldenTopic)
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != ExitOK {
		t.Fatalf("exit %d: %v %s", o.code, err, o.stderr)
	}
	d := r.Result
	if strings.Join(d.Models, ",") != "sim-gamma,sim-alpha" || d.Synthesis.Moderator != "sim-beta" || len(d.Reviews) != 2 || len(d.Reviews[0].Reviewed) != 1 {
		t.Errorf("models %v, moderator %s, reviews %+v", d.Models, d.Synthesis.Moderator, d.Reviews)
	}
}

func TestQuorumUsageErrors(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"discuss", "--sim"}, "exactly one topic"},
		{[]string{"plan", "--sim", "a", "b"}, "exactly one task"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha", "q"}, "at least 2 participant models"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha,sim-alpha", "q"}, "named twice"},
		{[]string{"discuss", "--sim", "--moderator", "gpt-99", "q"}, "unknown model gpt-99; the Copilot CLI offers: sim-alpha"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha", "-m", "nope", "q"}, "unknown model nope"},
		{[]string{"discuss", "--sim", "--reviewers", "-1", "q"}, "reviewers"},
		{[]string{"discuss", "--sim", "--transcript", filepath.Join(t.TempDir(), "no", "such", "dir", "t.jsonl"), "q"}, "cannot create the transcript"},
	} {
		o := h.run(c.args...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q", c.args, o.code, o.stderr)
		}
	}
	// Help documents the exit codes and the JSON wrapper.
	o := h.run("discuss", "--help")
	for _, want := range []string{"Exit codes", "130", `"simulated"`, "--transcript"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("discuss --help lacks %q:\n%s", want, o.stdout)
		}
	}
}

// --transcript writes JSON lines, each a quorum.TranscriptEntry.
func TestTranscript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	o := newHarness(t).run("discuss", "--sim", "-q", "--transcript", path, goldenTopic)
	if o.code != ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[quorum.EventKind]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e quorum.TranscriptEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		kinds[e.Kind]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if kinds[quorum.ModelStarted] != 7 || kinds[quorum.ModelFinished] != 7 || kinds[quorum.RunFinished] != 1 || kinds[quorum.SynthesisDone] != 1 {
		t.Errorf("transcript kinds = %v", kinds)
	}
}

// A transcript that cannot be written fails the run (exit 1) after the
// result was printed.
func TestTranscriptWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	o := newHarness(t).run("discuss", "--sim", "-q", "--transcript", "/dev/full", goldenTopic)
	if o.code != ExitFailure || !strings.Contains(o.stderr, "writing the transcript /dev/full") || !strings.Contains(o.stdout, "Conclusion") {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
}

// Cancelling mid-run (Ctrl-C) aborts the turns in flight, among them one
// that would never end, and exits 130 saying so; nothing is printed on
// stdout and no goroutine is left (TestMain's leak check).
func TestInterruptExits130(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		h := newHarness(t)
		h.simModels = simWith(simquorum.Model("sim-gamma").With(sim.Rule{Name: "hang", Match: simquorum.Is(quorum.PhaseAnswer),
			Respond: sim.Always(sim.Reply{Text: "[simulated sim-gamma] thinking…", Hang: true})}))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		interrupt, ctrlC := context.WithCancel(ctx)
		var once sync.Once
		h.onEvent = func(ev quorum.Event) {
			if ev.Kind == quorum.Delta && ev.Model == "sim-gamma" {
				once.Do(ctrlC)
			}
		}
		o := h.runContext(interrupt, "discuss", "--sim", "-o", format, goldenTopic)
		if o.code != ExitInterrupted || !strings.Contains(o.stderr, "interrupted") || o.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", format, o.code, o.stdout, o.stderr)
		}
		if ctx.Err() != nil {
			t.Errorf("%s: the interrupted run did not return before the test's deadline", format)
		}
		ctrlC()
		cancel()
	}
}
