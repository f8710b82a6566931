package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// reviewOut is the envelope of review -o json.
type reviewOut struct {
	cmdutil.Envelope
	Result quorum.ReviewResult `json:"result"`
}

// minorDiff adds only a TODO: the simulated reviewers find minor things.
const minorDiff = "--- a/notes.go\n+++ b/notes.go\n@@ -1,2 +1,3 @@\n package notes\n+// TODO: say more\n var x = 1\n"

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The exit status is the CI gate: 1 when a finding reaches --fail-on
// (from the flag or the settings), 0 below it, 3 when models dropped out
// and nothing reached it.
func TestReviewExitCodes(t *testing.T) {
	minor := writeFile(t, "minor.diff", minorDiff)
	for _, c := range []struct {
		name    string
		args    []string
		env     string
		failing bool
		code    int
		stderr  string
	}{
		{"blocking findings", []string{goldenDiff}, "", false, cmdutil.ExitFailure, "quorum: the review found 3 findings at or above blocking (--fail-on blocking): F1, F2, F3\n"},
		{"gate off", []string{"--fail-on", "none", goldenDiff}, "", false, cmdutil.ExitOK, ""},
		{"gate from the settings", []string{minor}, "minor", false, cmdutil.ExitFailure, "at or above minor (--fail-on minor): F1"},
		{"minor findings only", []string{minor}, "", false, cmdutil.ExitOK, ""},
		{"degraded, nothing at the gate", []string{minor}, "", true, cmdutil.ExitDegraded, cmdutil.ErrDegraded.Error()},
		{"degraded with blocking findings", []string{goldenDiff}, "", true, cmdutil.ExitFailure, "at or above blocking"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			if c.env != "" {
				h.env["QUORUM_FAIL_ON"] = c.env
			}
			if c.failing {
				h.simModels = simWith(failing("sim-gamma", quorum.PhaseInspect))
			}
			o := h.run(append([]string{"review", "--sim", "-q"}, c.args...)...)
			if o.code != c.code || !strings.Contains(o.stderr, c.stderr) || o.stdout == "" {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", o.code, c.code, o.stderr, c.stderr)
			}
		})
	}
}

// The change comes from a file, stdin, or a git range in the repository
// the command runs in; context files come along.
func TestReviewInputs(t *testing.T) {
	h := newHarness(t)
	diff, err := os.ReadFile(goldenDiff)
	if err != nil {
		t.Fatal(err)
	}
	h.stdin = string(diff)
	ctxFile := writeFile(t, "design.md", "The store wraps database/sql.")
	o := h.run("review", "--sim", "-o", "json", "--fail-on", "none", "--context", ctxFile, "-")
	var r reviewOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitOK {
		t.Fatalf("stdin: exit %d: %v\n%s", o.code, err, o.stderr)
	}
	if r.Command != "review" || len(r.Result.Change.Files) != 2 || !slices.Equal(r.Result.Change.Context, []string{ctxFile}) || len(r.Result.Findings) == 0 {
		t.Errorf("stdin: %+v", r.Result.Change)
	}
	if !strings.Contains(o.stderr, "quorum: reviewing 2 files (+18 −1) with sim-alpha, sim-beta, sim-gamma (simulated)\n") {
		t.Errorf("stdin: stderr %q", o.stderr)
	}

	h.dir = gitRepo(t)
	h.stdin = ""
	o = h.run("review", "--sim", "-q", "-o", "json", "--fail-on", "none", "--base", "HEAD~1")
	r = reviewOut{}
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitOK {
		t.Fatalf("git: exit %d: %v\n%s", o.code, err, o.stderr)
	}
	if c := r.Result.Change; len(c.Files) != 1 || c.Files[0].Path != "app/db.go" || c.Added != 3 || len(r.Result.Findings) == 0 || r.Result.Findings[0].File != "app/db.go" {
		t.Errorf("git: change %+v, findings %+v", c, r.Result.Findings)
	}
	if o := h.run("review", "--sim", "-q", "--base", "HEAD", "--head", "HEAD"); o.code != cmdutil.ExitOK || o.stderr != "quorum: nothing to review: git diff HEAD..HEAD is empty\n" || o.stdout != "" {
		t.Errorf("an empty range: exit %d, stderr %q, stdout %q", o.code, o.stderr, o.stdout)
	}
}

// gitRepo makes a repository of two commits, the second adding a
// hard-coded password and a TODO to app/db.go.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(text string) {
		os.MkdirAll(filepath.Join(dir, "app"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "app", "db.go"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("package app\n\nfunc Open() {}\n")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	write("package app\n\nfunc Open() {}\n\nvar password = \"hunter2\"\n// TODO: remove\n")
	git("commit", "-q", "-am", "two")
	return dir
}

// What cannot be reviewed is refused before anything starts, saying why
// and where it came from (exit 2).
func TestReviewRefusesBadInput(t *testing.T) {
	h := newHarness(t)
	h.dir = t.TempDir() // not a repository
	big := writeFile(t, "big.diff", strings.Repeat("+", quorum.MaxChangeBytes+1))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"review", "--sim"}, "quorum review needs a change: a diff file, - to read it from stdin, --base REV to review git diff REV..HEAD, or --pr N"},
		{[]string{"review", "--sim", "a.diff", "b.diff"}, "quorum review takes at most a diff file (- reads it from stdin), got 2 arguments"},
		{[]string{"review", "--sim", "--base", "main", goldenDiff}, "give the change as a diff file or as --base, not both"},
		{[]string{"review", "--sim", "--head", "HEAD"}, "--head needs --base"},
		{[]string{"review", "--sim", "--base", "--cached"}, `"--cached" is not one`},
		{[]string{"review", "--sim", "testdata/nope.diff"}, "cannot read the diff file testdata/nope.diff: no such file or directory"},
		{[]string{"review", "--sim", writeFile(t, "bin.diff", minorDiff+"\x00\x01")}, "is binary (it holds a NUL byte at offset"},
		{[]string{"review", "--sim", writeFile(t, "binfiles.diff", "diff --git a/a.png b/a.png\nindex 1..2 100644\nBinary files a/a.png and b/a.png differ\n")}, "every file the diff changes is binary (a.png)"},
		{[]string{"review", "--sim", writeFile(t, "latin1.diff", minorDiff+"caf\xe9\n")}, "is not UTF-8 text"},
		{[]string{"review", "--sim", writeFile(t, "prose.txt", "just some words\n")}, "prose.txt: the diff is not a unified diff"},
		{[]string{"review", "--sim", big}, "big.diff is more than 1048576 bytes (1 MiB), the most a review takes"},
		{[]string{"review", "--sim", "--context", "testdata/nope.md", goldenDiff}, "cannot read the context file testdata/nope.md"},
		// In quorum's words, whatever git's version said ("fatal: not a
		// git repository" or "warning: Not a git repository").
		{[]string{"review", "--sim", "--base", "main"}, "is not in a git repository; run quorum review inside one, or give the change as a diff file or on stdin"},
		{[]string{"review", "--sim", "--fail-on", "severe", goldenDiff}, `invalid argument "severe" for --fail-on: must be one of blocking, major, minor, none`},
	} {
		o := h.run(c.args...)
		if o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) || o.stdout != "" {
			t.Errorf("%.80q: exit %d, stderr %q, want %q", c.args, o.code, o.stderr, c.want)
		}
	}
	h.dir = gitRepo(t)
	if o := h.run("review", "--sim", "--base", "nosuchbranch"); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "git knows no such revision in nosuchbranch..HEAD here; give --base") ||
		strings.Contains(o.stderr, "fatal:") {
		t.Errorf("unknown revision: exit %d, stderr %q", o.code, o.stderr)
	}
}

// sarifOut is the part of a SARIF 2.1.0 log that code scanning needs.
type sarifOut struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful *bool `json:"executionSuccessful"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex *int   `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine int `json:"startLine"`
						EndLine   int `json:"endLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, path string) sarifOut {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s sarifOut
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if s.Version != "2.1.0" || !strings.Contains(s.Schema, "sarif-2.1.0") || len(s.Runs) != 1 || s.Runs[0].Tool.Driver.Name != "quorum" ||
		len(s.Runs[0].Invocations) != 1 || s.Runs[0].Invocations[0].ExecutionSuccessful == nil {
		t.Fatalf("not a SARIF 2.1.0 log of one quorum run:\n%s", b)
	}
	return s
}

// --sarif writes what code scanning needs: the version, the tool, a rule
// per category, and per finding its rule, level, message and location on
// a changed line.
func TestReviewSARIF(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "review.sarif")
	o := h.run("review", "--sim", "-q", "-o", "json", "--sarif", path, goldenDiff)
	var r reviewOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitFailure {
		t.Fatalf("exit %d: %v\n%s", o.code, err, o.stderr)
	}
	s := readSARIF(t, path)
	run := s.Runs[0]
	if !*run.Invocations[0].ExecutionSuccessful || len(run.Results) != len(r.Result.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(r.Result.Findings))
	}
	changed := map[string]bool{}
	for _, f := range r.Result.Change.Files {
		changed[f.Path] = true
	}
	levels := map[quorum.Severity]string{quorum.SeverityBlocking: "error", quorum.SeverityMajor: "warning", quorum.SeverityMinor: "note"}
	for i, res := range run.Results {
		f := r.Result.Findings[i]
		if res.RuleIndex == nil || *res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[*res.RuleIndex].ID != res.RuleID || res.RuleID != "quorum/"+f.Category {
			t.Errorf("result %d: rule %q (index %v)", i, res.RuleID, res.RuleIndex)
		}
		if res.Level != levels[f.Severity] || !strings.Contains(res.Message.Text, f.Explanation) || !strings.Contains(res.Message.Text, "Suggested fix: "+f.Suggestion) {
			t.Errorf("result %d: level %q, message %q", i, res.Level, res.Message.Text)
		}
		if len(res.Locations) != 1 || !changed[res.Locations[0].PhysicalLocation.ArtifactLocation.URI] || res.Locations[0].PhysicalLocation.Region == nil ||
			res.Locations[0].PhysicalLocation.Region.StartLine != f.StartLine || res.Locations[0].PhysicalLocation.Region.EndLine != f.EndLine {
			t.Errorf("result %d: locations %+v for %s", i, res.Locations, f.File)
		}
		if res.PartialFingerprints["quorumFinding/v1"] == "" {
			t.Errorf("result %d has no fingerprint", i)
		}
	}

	// An interrupted review writes what it found, marked unsuccessful.
	h.simModels = simWith(hanging("sim-gamma", quorum.PhaseInspect))
	o = interruptAfter(h, quorum.PhaseInspect, 2, "review", "--sim", "-q", "--sarif", path, goldenDiff)
	if s := readSARIF(t, path); o.code != cmdutil.ExitInterrupted || *s.Runs[0].Invocations[0].ExecutionSuccessful || len(s.Runs[0].Results) == 0 {
		t.Errorf("interrupted: exit %d, %+v", o.code, s.Runs[0].Invocations)
	}

	// Nothing to review: exit 0, an empty but valid log.
	h.simModels = nil
	h.stdin = " \n"
	o = h.run("review", "--sim", "--sarif", path, "-")
	if s := readSARIF(t, path); o.code != cmdutil.ExitOK || len(s.Runs[0].Results) != 0 || o.stderr != "quorum: nothing to review: the diff on stdin is empty\n" {
		t.Errorf("empty: exit %d, stderr %q, %d results", o.code, o.stderr, len(s.Runs[0].Results))
	}
}

// A remark on the change as a whole is located at the change's first
// file (code scanning refuses a result without a location).
func TestSARIFGeneralFinding(t *testing.T) {
	r := &quorum.ReviewResult{
		Change: quorum.ChangeSummary{Files: []quorum.ChangedFile{{Path: "dir/a b.go"}}},
		Findings: []quorum.MergedFinding{{ID: "F1", Finding: quorum.Finding{Severity: quorum.SeverityMinor, Category: "docs", Explanation: "Needs a changelog entry."},
			Agreement: 1, Models: []string{"m"}}},
	}
	res := runquorum.BuildSARIF("v-test", r, true).Runs[0].Results[0]
	if loc := res.Locations[0].PhysicalLocation; loc.ArtifactLocation.URI != "dir/a%20b.go" || loc.Region != nil || res.Properties.Scope != "change" || res.Level != "note" {
		t.Errorf("result = %+v", res)
	}
}

// review's help says what it reviews and how it ends, with its own flags
// in sections and none of the other strategies'.
func TestReviewAndDebateHelp(t *testing.T) {
	h := newHarness(t)
	review := h.run("review", "--help").stdout
	for _, want := range []string{"USAGE\n  quorum review [diff-file] [flags]", "INPUT FLAGS\n      --base rev", "--context file", "--fail-on severity",
		"--sarif file", "SARIF 2.1.0", "Exit codes, for CI: 0 no finding at or above --fail-on", "ReviewResult"} {
		if !strings.Contains(review, want) {
			t.Errorf("review help lacks %q:\n%s", want, review)
		}
	}
	debate := h.run("help", "debate").stdout
	for _, want := range []string{"USAGE\n  quorum debate <claim> [flags]", "--rounds N", "(default 2)", "--moderator model   the model that gives the verdict", "DebateResult"} {
		if !strings.Contains(debate, want) {
			t.Errorf("debate help lacks %q:\n%s", want, debate)
		}
	}
	for name, help := range map[string]string{"review": review, "debate": debate} {
		for _, absent := range []string{"--no-review", "--reviewers"} {
			if strings.Contains(help, absent) {
				t.Errorf("%s's help lists %s", name, absent)
			}
		}
	}
	if strings.Contains(review, "--moderator") || strings.Contains(debate, "--base") {
		t.Error("a flag of one command is in the other's help")
	}
}

// A review that cannot be read fails its model, said on the progress
// lines; the others' findings make the result (degraded).
func TestReviewUnreadableReply(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(simquorum.Model("sim-gamma").With(sim.Rule{Name: "junk", Match: simquorum.Is(quorum.PhaseInspect), Respond: sim.Always(sim.Text("I would rather not."))}))
	o := h.run("review", "--sim", "--fail-on", "none", minorDiffFile(t))
	if o.code != cmdutil.ExitDegraded || !strings.Contains(o.stderr, "quorum: inspect: ✗ sim-gamma: the reply could not be parsed") ||
		!strings.Contains(o.stdout, "Nothing in this review could be read, so it did not count") {
		t.Errorf("exit %d\n%s\n%s", o.code, o.stderr, o.stdout)
	}
}

func minorDiffFile(t *testing.T) string { return writeFile(t, "minor.diff", minorDiff) }

// Models' text reaches the terminal without its control sequences, in a
// finding, a debate's argument and its objections alike.
func TestModelTextIsSanitised(t *testing.T) {
	const evil = "x \x1b[2J\x1b]0;owned\x07 y"
	quoted, _ := json.Marshal(evil)
	h := newHarness(t)
	h.simModels = simWith(simquorum.Model("sim-alpha").With(
		sim.Rule{Name: "evil finding", Match: simquorum.Is(quorum.PhaseInspect), Respond: sim.Always(sim.Text(
			`{"findings": [{"file": "notes.go", "line": 2, "severity": "minor", "explanation": ` + string(quoted) + `}]}`))},
		sim.Rule{Name: "evil argument", Match: simquorum.Is(quorum.PhaseOpening), Respond: sim.Always(sim.Text("## Argument\n" + evil + "\n## Objections\n- [blocking] " + evil))},
	))
	for _, args := range [][]string{{"review", "--sim", "-q", "--fail-on", "none", minorDiffFile(t)}, {"debate", "--sim", "-q", "-m", "sim-beta,sim-alpha", goldenClaim}} {
		o := h.run(args...)
		if strings.ContainsAny(o.stdout+o.stderr, "\x1b\x07") || !strings.Contains(o.stdout, "x ␛[2J") {
			t.Errorf("%s: exit %d, control characters reached the terminal or the text is gone:\n%q", args[0], o.code, o.stdout)
		}
	}
}

// SIGTERM stops a review as it stops the other commands: what came in is
// printed, marked terminated, and the exit status is 143, not the gate's.
func TestReviewTerminated(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	h.onEvent = func(ev quorum.Progress) {
		if ev.Kind == quorum.PhaseStarted {
			cancel(&cmdutil.Interrupted{Signal: syscall.SIGTERM})
		}
	}
	o := h.runContext(ctx, "review", "--sim", "-q", goldenDiff)
	if o.code != cmdutil.ExitTerminated || !strings.Contains(o.stdout, "the review was terminated by SIGTERM in the inspect phase") || strings.Contains(o.stderr, "--fail-on") {
		t.Errorf("exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
}
