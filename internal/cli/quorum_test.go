package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// jsonOut is the envelope of discuss -o json.
type jsonOut struct {
	cmdutil.Envelope
	Result quorum.DiscussResult `json:"result"`
}

// The JSON result is the envelope around quorum's result schema, every
// list present.
func TestQuorumJSONSchema(t *testing.T) {
	h := newHarness(t)
	o := h.run("discuss", "--sim", "-q", "--output=json", goldenTopic)
	if o.code != cmdutil.ExitOK || o.stderr != "" {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	var d struct {
		Simulated *bool
		Command   string
		Status    string
		Result    map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatal(err)
	}
	if d.Simulated == nil || !*d.Simulated || d.Command != "discuss" || d.Status != "ok" {
		t.Errorf("envelope: simulated %v, command %q, status %q", d.Simulated, d.Command, d.Status)
	}
	for _, k := range []string{"question", "models", "answers", "reviews", "ranking", "ranked", "synthesis", "degraded", "failures", "phases", "calls", "usage", "usageByModel", "startedAt", "elapsedMs"} {
		if _, ok := d.Result[k]; !ok {
			t.Errorf("result has no %q", k)
		}
	}
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatal(err)
	}
	x := r.Result
	if len(x.Answers) != 3 || len(x.Reviews) != 3 || len(x.Standings) != 3 || x.Synthesis == nil || x.Synthesis.Conclusion == "" ||
		x.Failures == nil || len(x.Failures) != 0 || x.Degraded || x.Synthesis.Moderator != simquorum.Moderator {
		t.Errorf("discussion = %+v", x)
	}
	if string(d.Result["failures"]) != "[]" {
		t.Errorf("failures = %s, want []", d.Result["failures"])
	}

	o = h.run("plan", "--sim", "-q", "-o", "json", goldenTask)
	var p struct {
		cmdutil.Envelope
		Result quorum.PlanResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &p); err != nil || o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %v", o.code, err)
	}
	if !p.Simulated || p.Command != "plan" || len(p.Result.Proposals) != 3 || len(p.Result.Votes) != 6 ||
		p.Result.Winner == "" || p.Result.Winner != p.Result.Standings[0].Label || p.Result.Reason == "" || p.Result.Failures == nil {
		t.Errorf("plan = %+v", p)
	}
}

// A participant that fails to answer and a moderator that fails: the
// result is printed with a Degraded section naming each failure and the
// substitute moderator, and the exit status is 3.
func TestDegradedRunExitsThree(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-beta", quorum.PhaseAnswer), failing(simquorum.Moderator, quorum.PhaseSynthesis))
	o := h.run("discuss", "--sim", goldenTopic)
	if o.code != cmdutil.ExitDegraded {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	golden(t, "discuss-degraded.text.golden", o.stdout)
	for _, want := range []string{"DEGRADED", "2 failures; the result comes from the models that remained", "sim-beta, answer phase (error)",
		"simulated outage of sim-beta", "in place of sim-moderator", "sim-beta (dropped out in the answer phase)"} {
		if !strings.Contains(flat(o.stdout), want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if !strings.Contains(o.stderr, "degraded") || !strings.Contains(o.stderr, "✗ sim-beta failed") {
		t.Errorf("stderr = %s", o.stderr)
	}

	o = h.run("discuss", "--sim", "-q", "-o", "json", goldenTopic)
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitDegraded {
		t.Fatalf("exit %d: %v", o.code, err)
	}
	if r.Status != "degraded" || !r.Result.Degraded || len(r.Result.Failures) != 2 || r.Result.Failures[0].Model != "sim-beta" || !r.Result.Synthesis.Substituted {
		t.Errorf("result = %+v", r.Result.Outcome)
	}
	o = h.run("discuss", "--sim", "-q", "-o", "markdown", goldenTopic)
	if o.code != cmdutil.ExitDegraded || !strings.Contains(o.stdout, "## Degraded") {
		t.Errorf("markdown: exit %d\n%s", o.code, o.stdout)
	}
}

// Too few models left: the run fails (exit 1), its error names every
// model's failure once; the partial result is printed (see
// TestFailedRunPrintsWhatItCollected) with status "failed" in JSON.
func TestFailedRunExitsOne(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-alpha", quorum.PhaseAnswer), failing("sim-gamma", quorum.PhaseAnswer))
	o := h.run("discuss", "--sim", goldenTopic)
	if o.code != cmdutil.ExitFailure {
		t.Fatalf("exit %d", o.code)
	}
	for _, want := range []string{"quorum: the discussion failed: too few models left after the answer phase (1 left, 2 needed)",
		"✗ sim-alpha, answer phase (error): ", "simulated outage of sim-alpha", "simulated outage of sim-gamma", "Add models with -m."} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	if strings.Contains(o.stderr, "copilot login") { // a simulated run has no login
		t.Errorf("stderr blames the login:\n%s", o.stderr)
	}
	o = h.run("discuss", "--sim", "-q", "-o", "json", goldenTopic)
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitFailure {
		t.Fatalf("exit %d: %v\n%s", o.code, err, o.stdout)
	}
	if r.Status != "failed" || r.Error == nil || *r.Error != "the discussion failed: too few models left after the answer phase (1 left, 2 needed)." ||
		r.Result.Error == "" || len(r.Result.Failures) != 2 || len(r.Result.Answers) != 1 || len(r.Result.Calls) != 3 {
		t.Errorf("envelope %+v, result %+v", r.Envelope, r.Result)
	}

	// Plans fail the same way.
	h.simModels = simWith(failing("sim-beta", quorum.PhasePropose), failing("sim-gamma", quorum.PhasePropose))
	if o := h.run("plan", "--sim", "-q", goldenTask); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the plan failed") ||
		!strings.Contains(o.stderr, "sim-gamma, propose phase") || !strings.Contains(o.stdout, "INCOMPLETE") {
		t.Errorf("plan: exit %d: %s", o.code, o.stderr)
	}
}

// When every model fails with the same error (the CLI died), the message
// is shown once with every model it hit, on stdout and on stderr.
func TestRepeatedFailureShownOnce(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(sameFailure("sim-alpha"), sameFailure("sim-beta"), sameFailure("sim-gamma"))
	o := h.run("discuss", "--sim", goldenTopic)
	if o.code != cmdutil.ExitFailure {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	const msg = "the CLI went away"
	for name, s := range map[string]string{"stdout": o.stdout, "stderr (final error)": o.stderr[strings.Index(o.stderr, "quorum: the discussion failed"):]} {
		if n := strings.Count(s, msg); n != 1 {
			t.Errorf("%s has the message %d times:\n%s", name, n, s)
		}
		if !strings.Contains(s, "sim-alpha, sim-beta, sim-gamma, answer phase (error)") {
			t.Errorf("%s does not name the three models on one line:\n%s", name, s)
		}
	}
	// The progress lines name each model, the message once.
	if n := strings.Count(o.stderr, msg); n != 2 || strings.Count(o.stderr, "the same error as sim-") != 2 {
		t.Errorf("stderr has the message %d times:\n%s", n, o.stderr)
	}
}

// sameFailure is a participant that fails to answer with the error every
// other one gets.
func sameFailure(id string) sim.Model {
	return simquorum.Model(id).With(sim.Rule{Name: "fail", Match: simquorum.Is(quorum.PhaseAnswer),
		Respond: sim.Always(sim.Fail("connection", "the CLI went away"))})
}

// quorum's errors speak in Config's terms; where the command shows a
// model's failure, it adds the advice that names its flags, keyed on the
// quorum error behind the failure.
func TestFailureAdviceNamesTheFlags(t *testing.T) {
	timeout := &quorum.ModelError{Model: "m", Phase: quorum.PhaseAnswer, Err: fmt.Errorf("%w: no reply within the phase timeout", quorum.ErrTimeout)}
	failure := func(kind, err string) []quorum.Failure {
		return []quorum.Failure{{Model: "m", Phase: quorum.PhaseReview, Kind: kind, Error: err}}
	}
	for _, c := range []struct{ got, want string }{
		{report.ModelError(timeout), "no reply within the phase timeout; raise --phase-timeout"},
		{report.ModelError(fmt.Errorf("%w (no ranking found)", quorum.ErrUnparsable)), "could not be parsed (no ranking found); --transcript FILE"},
		{report.FailureLines(failure("timeout", timeout.Err.Error()))[0], "(timeout): time limit reached: no reply within the phase timeout; raise --phase-timeout"},
		{report.FailureLines(failure("empty", quorum.ErrEmptyReply.Error()))[0], "(empty): the model replied with no text; check that the model id is right (quorum models)"},
		{report.FailureLines(failure("error", "session: boom"))[0], "(error): session: boom"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%q lacks %q", c.got, c.want)
		}
	}
	if got := report.FailureLines(failure("error", "session: boom"))[0]; strings.Contains(got, ";") {
		t.Errorf("a failure no flag helps with was given advice: %q", got)
	}
}

// Off a terminal, progress is plain lines on stderr, nothing redrawn;
// -q silences it; results stay on stdout.
func TestPlainProgress(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-gamma", quorum.PhaseVote))
	o := h.run("plan", "--sim", goldenTask)
	if o.code != cmdutil.ExitDegraded {
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
	if o := h.run("plan", "--sim", "-q", goldenTask); o.stderr != "quorum: "+cmdutil.ErrDegraded.Error()+"\n" {
		t.Errorf("-q: stderr %q", o.stderr)
	}
}

func TestNoReviewIsUnranked(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-q", "--no-review", goldenTopic)
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Not ranked") || !strings.Contains(o.stdout, "Conclusion") || strings.Contains(o.stdout, "REVIEWS") {
		t.Errorf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// --show picks the report's sections, in the report's order.
func TestShowSections(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-q", "--show", "synthesis,answers", goldenTopic)
	if o.code != cmdutil.ExitOK {
		t.Fatal(o.stderr)
	}
	a, s := strings.Index(o.stdout, "\nANSWERS\n"), strings.Index(o.stdout, "\nSYNTHESIS\n")
	if a < 0 || s < a || strings.Contains(o.stdout, "REVIEWS") || strings.Contains(o.stdout, "RANKING") || strings.Contains(o.stdout, "USAGE") {
		t.Errorf("--show synthesis,answers:\n%s", o.stdout)
	}
}

// Flags reach quorum.Config: two participants named with -m, a moderator,
// one answer per reviewer.
func TestQuorumFlags(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-q", "-o", "json", "-m", "sim-gamma", "-m", "sim-alpha",
		"--moderator", "sim-beta", "--reviewers", "1", "-j", "1", "--phase-timeout", "1m", goldenTopic)
	var r jsonOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitOK {
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
		{[]string{"discuss", "--sim"}, "quorum discuss needs a topic"},
		{[]string{"plan", "--sim", "a", "b"}, "quorum plan takes a task"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha", "q"}, "at least 2 participant models"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha,sim-alpha", "q"}, "names sim-alpha twice"},
		{[]string{"discuss", "--sim", "--moderator", "gpt-99", "q"}, "unknown model gpt-99; the simulator offers: sim-alpha"},
		{[]string{"discuss", "--sim", "-m", "sim-alpha", "-m", "nope", "q"}, "unknown model nope"},
		{[]string{"discuss", "--sim", "--reviewers", "-1", "q"}, "reviewers"},
	} {
		o := h.run(c.args...)
		if o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q", c.args, o.code, o.stderr)
		}
	}
}

// --transcript writes JSON lines, each a quorum.TranscriptEntry.
func TestTranscript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	o := newHarness(t).run("discuss", "--sim", "-q", "--transcript", path, goldenTopic)
	if o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[quorum.ProgressKind]int{}
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
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "writing the transcript /dev/full") || !strings.Contains(o.stdout, "Conclusion") {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
}

// Cancelling mid-run (Ctrl-C) aborts the turns in flight, among them one
// that would never end, prints what came in, and exits 130 saying so; no
// goroutine is left (TestMain's leak check).
func TestInterruptExits130(t *testing.T) {
	for _, format := range formats {
		h := newHarness(t)
		h.simModels = simWith(hanging("sim-gamma", quorum.PhaseAnswer))
		o := interruptAfter(h, quorum.PhaseAnswer, 2, "discuss", "--sim", "-o", format, goldenTopic)
		if o.code != cmdutil.ExitInterrupted || !strings.Contains(o.stderr, "quorum: interrupted (Ctrl-C); turns were aborted, sessions destroyed and the CLI stopped") {
			t.Errorf("%s: exit %d, stderr %q", format, o.code, o.stderr)
		}
		if !strings.Contains(o.stdout, "sim-alpha") || !strings.Contains(strings.ToLower(o.stdout), "interrupted") {
			t.Errorf("%s: stdout does not hold the answers that came in, marked interrupted:\n%s", format, o.stdout)
		}
	}
}

// Timeout messages agree with each other (the whole run's limit: raise
// --timeout; a phase's: raise --phase-timeout; never lower one), name
// flags rather than the quorum package's fields, and a simulated run or
// an unreadable reply is not blamed on the CLI's login.
func TestRunErrorsSayOneThingInFlags(t *testing.T) {
	h := newHarness(t)
	h.simModels = func(p pace) []sim.Model {
		ms := simModels(p)
		ms[1] = hanging("sim-beta", quorum.PhaseAnswer)
		ms[2] = hanging("sim-gamma", quorum.PhaseAnswer)
		return ms
	}
	// A limit reached before the run begins says so, in every command.
	// (A limit of 1ns, not 1ms: the unpaced simulator can finish a whole
	// discussion within a millisecond, so 1ms made the outcome a race.)
	for _, args := range [][]string{{"discuss", "--sim", "-q", "t"}, {"ask", "--sim", "q"}, {"models", "--sim"}, {"plan", "--sim", "t"}} {
		o := h.run(append(args, "--timeout", "1ns")...)
		if o.code != cmdutil.ExitFailure || !strings.Contains(strings.ToLower(o.stderr), "raise --timeout") || strings.Contains(o.stderr, "handshake") ||
			strings.Contains(o.stderr, "lower") || strings.Contains(o.stderr, "phase-timeout") || strings.Contains(o.stderr, "login") {
			t.Errorf("%q --timeout 1ns: exit %d, stderr %q", args, o.code, o.stderr)
		}
	}

	// Every participant hangs: the whole run's limit stops them all.
	o := h.run("discuss", "--sim", "-m", "sim-beta,sim-gamma", "--timeout", "300ms", "t")
	if o.code != cmdutil.ExitFailure || !strings.Contains(strings.ToLower(o.stderr), "raise --timeout") || strings.Contains(o.stderr, "lower") ||
		strings.Contains(o.stderr, "phase-timeout") || strings.Contains(o.stderr, "login") {
		t.Errorf("--timeout with hanging models: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	o = h.run("discuss", "--sim", "--phase-timeout", "50ms", "t")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "raise --phase-timeout") || strings.Contains(o.stderr, "Config.") ||
		strings.Contains(o.stderr, "lower") || strings.Contains(o.stderr, "login") || !strings.Contains(o.stdout, "(--phase-timeout, 50ms)") {
		t.Errorf("--phase-timeout: exit %d, stdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}

	h.simModels = func(p pace) []sim.Model {
		ms := simModels(p)
		ms[1] = failing("sim-beta", quorum.PhaseAnswer)
		ms[2] = failing("sim-gamma", quorum.PhaseAnswer)
		return ms
	}
	o = h.run("discuss", "--sim", "-q", "t")
	if o.code != cmdutil.ExitFailure || strings.Contains(o.stderr, "login") || !strings.Contains(o.stderr, "Add models with -m") {
		t.Errorf("a simulated failure: exit %d, stderr:\n%s", o.code, o.stderr)
	}
}

// The report says what was asked for: --no-review is not a failure to
// rank, and --reviewers 1 is one of the others' answers, not all of them.
func TestDiscussWordingFollowsTheFlags(t *testing.T) {
	h := newHarness(t)
	o := h.run("discuss", "--sim", "-q", "--no-review", goldenTopic)
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Not ranked: peer review was skipped (--no-review), as asked") || strings.Contains(o.stdout, "no usable review") {
		t.Errorf("--no-review: exit %d:\n%s", o.code, o.stdout)
	}
	o = h.run("discuss", "--sim", "-q", "--reviewers", "1", goldenTopic)
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Each participant scored one of the others' answers") {
		t.Errorf("--reviewers 1: exit %d:\n%s", o.code, o.stdout)
	}
	o = h.run("discuss", "--sim", "-q", goldenTopic)
	if !strings.Contains(o.stdout, "Each participant scored the others' answers") {
		t.Errorf("default:\n%s", o.stdout)
	}
}
