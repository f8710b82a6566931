package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(cleanupAfter{m}) }

// cleanupAfter runs the tests, then removes the binary built for the
// subprocess tests.
type cleanupAfter struct{ m *testing.M }

func (c cleanupAfter) Run() int {
	defer removeBuilt()
	return c.m.Run()
}

// harness runs the command in-process with its own streams, environment
// and config directory.
type harness struct {
	t      *testing.T
	env    map[string]string
	cfgDir string
	stdin  string
	// simModels replaces the models --sim serves; onEvent sees every quorum
	// event.
	simModels func(pace) []sim.Model
	onEvent   func(quorum.Event)
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, env: map[string]string{}, cfgDir: t.TempDir()}
}

type outcome struct {
	stdout, stderr string
	code           int
	err            error
}

func (h *harness) run(args ...string) outcome {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.runContext(ctx, args...)
}

func (h *harness) runContext(ctx context.Context, args ...string) outcome {
	h.t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		stdin: strings.NewReader(h.stdin), stdout: &out, stderr: &errb,
		getenv:    func(k string) string { return h.env[k] },
		configDir: func() (string, error) { return h.cfgDir, nil },
		simPace:   &pace{},
		simModels: h.simModels,
		onEvent:   h.onEvent,
	}
	err := e.run(ctx, args)
	return outcome{out.String(), errb.String(), ExitCode(err), err}
}

func (h *harness) writeConfig(body string) {
	dir := filepath.Join(h.cfgDir, "quorum")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(body), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	h := newHarness(t)
	for _, args := range [][]string{
		{},
		{"bogus"},
		{"ask", "--sim"},                    // no question
		{"ask", "--sim", "a", "b"},          // two
		{"ask", "--sim", "-o", "yaml", "q"}, // bad output
		{"ask", "--sim", "--nope", "q"},     // unknown flag
		{"completion", "tcsh"},
	} {
		o := h.run(args...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, "quorum") {
			t.Errorf("%q: code %d, stderr %q", args, o.code, o.stderr)
		}
	}
}

func TestAskSimStreamsToStdout(t *testing.T) {
	h := newHarness(t)
	o := h.run("ask", "--sim", "What is a goroutine?")
	if o.code != ExitOK {
		t.Fatalf("code %d: %s", o.code, o.stderr)
	}
	if !strings.HasPrefix(o.stdout, "[simulated sim-alpha]") || !strings.Contains(o.stdout, "goroutine") || !strings.HasSuffix(o.stdout, "\n") {
		t.Errorf("stdout = %q", o.stdout)
	}
	if !strings.Contains(o.stderr, "simulated") {
		t.Errorf("stderr does not say the answer is simulated: %q", o.stderr)
	}
	// -q: nothing on stderr; the result alone on stdout.
	if o := h.run("ask", "-q", "--sim", "x"); o.stderr != "" || o.stdout == "" {
		t.Errorf("quiet: stderr %q", o.stderr)
	}
}

func TestAskJSONAndStdinTopic(t *testing.T) {
	h := newHarness(t)
	h.stdin = "  Why test?\n"
	o := h.run("ask", "--sim", "-m", "sim-beta", "-o", "json", "-")
	if o.code != ExitOK {
		t.Fatalf("code %d: %s", o.code, o.stderr)
	}
	var r askResult
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatalf("%v: %s", err, o.stdout)
	}
	if !r.Simulated || r.Model != "sim-beta" || r.Question != "Why test?" || !strings.Contains(r.Answer, "[simulated sim-beta]") {
		t.Errorf("result = %+v", r)
	}
	h.stdin = "   "
	if o := h.run("ask", "--sim", "-"); o.code != ExitUsage {
		t.Errorf("empty stdin topic: code %d", o.code)
	}
}

func TestUnknownModelListsAvailable(t *testing.T) {
	o := newHarness(t).run("ask", "--sim", "-m", "gpt-99", "q")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "gpt-99") || !strings.Contains(o.stderr, "sim-alpha") {
		t.Fatalf("code %d: %s", o.code, o.stderr)
	}
}

func TestModels(t *testing.T) {
	h := newHarness(t)
	o := h.run("models", "--sim")
	if o.code != ExitOK || !strings.Contains(o.stdout, "simulated") || !strings.Contains(o.stdout, "sim-moderator") {
		t.Fatalf("%d %q %q", o.code, o.stdout, o.stderr)
	}
	o = h.run("models", "--sim", "--output=json")
	var r struct {
		Simulated bool
		Models    []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || !r.Simulated || len(r.Models) != 4 {
		t.Fatalf("%v %s", err, o.stdout)
	}
}

func TestMissingCLISaysHowToInstallAndMentionsSim(t *testing.T) {
	h := newHarness(t)
	h.env["PATH"] = t.TempDir()
	t.Setenv("PATH", t.TempDir())
	t.Setenv("COPILOT_CLI_PATH", "")
	o := h.run("ask", "q")
	if o.code != ExitFailure || !strings.Contains(o.stderr, "npm install -g @github/copilot") || !strings.Contains(o.stderr, "--sim") {
		t.Fatalf("%d %q", o.code, o.stderr)
	}
}

// Flags beat the environment, which beats the file, which beats defaults;
// `quorum config` says where each value came from.
func TestConfigPrecedence(t *testing.T) {
	h := newHarness(t)
	h.writeConfig(`{"models": ["file-a", "file-b"], "moderator": "file-mod", "timeout": "20m", "review": false}`)
	h.env["QUORUM_MODERATOR"] = "env-mod"
	h.env["QUORUM_TIMEOUT"] = "30m"
	o := h.run("config", "-o", "json", "--timeout", "40m")
	if o.code != ExitOK {
		t.Fatalf("%d %s", o.code, o.stderr)
	}
	var r struct {
		File     string
		Settings []setting
	}
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]setting{}
	for _, s := range r.Settings {
		got[s.Key] = s
	}
	want := map[string][2]string{
		"models":      {"file-a,file-b", sourceFile},
		"moderator":   {"env-mod", sourceEnv},
		"timeout":     {"40m", sourceFlag},
		"review":      {"false", sourceFile},
		"concurrency": {"8", sourceDefault},
	}
	for k, w := range want {
		if got[k].Value != w[0] || got[k].Source != w[1] {
			t.Errorf("%s = %+v, want %s from %s", k, got[k], w[0], w[1])
		}
	}
	if !strings.HasSuffix(r.File, filepath.Join("quorum", "config.json")) {
		t.Errorf("file = %s", r.File)
	}
	// Text form names the source too.
	if o := h.run("config", "-m", "x"); !strings.Contains(o.stdout, "env QUORUM_MODERATOR") || !strings.Contains(o.stdout, "flag --model") {
		t.Errorf("config text: %s", o.stdout)
	}
}

func TestBadConfigIsAUsageError(t *testing.T) {
	h := newHarness(t)
	h.writeConfig(`{"concurrency": "lots"}`)
	if o := h.run("config"); o.code != ExitUsage || !strings.Contains(o.stderr, "concurrency") {
		t.Errorf("%d %s", o.code, o.stderr)
	}
	h.writeConfig(`{"colour": "yes"}`)
	if o := h.run("config"); o.code != ExitUsage || !strings.Contains(o.stderr, "unknown setting") {
		t.Errorf("%d %s", o.code, o.stderr)
	}
	h.writeConfig(`not json`)
	if o := h.run("config"); o.code != ExitUsage {
		t.Errorf("%d %s", o.code, o.stderr)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	h := newHarness(t)
	if o := h.run("version"); o.code != 0 || !strings.HasPrefix(o.stdout, "quorum ") {
		t.Errorf("%q", o.stdout)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		o := h.run("completion", sh)
		if o.code != 0 || !strings.Contains(o.stdout, "discuss") || !strings.Contains(o.stdout, "quorum") {
			t.Errorf("%s: %q", sh, o.stdout)
		}
	}
}

func TestInterspersedFlags(t *testing.T) {
	fs := commandFlags("x", &bytes.Buffer{}, &opts{}, &[]flagValue{}, true)
	pos, err := parseInterspersed(fs, []string{"topic one", "-q", "--", "-not-a-flag"})
	if err != nil || len(pos) != 2 || pos[0] != "topic one" || pos[1] != "-not-a-flag" {
		t.Fatalf("%q %v", pos, err)
	}
}

func TestExitCodes(t *testing.T) {
	cases := map[error]int{
		nil:              ExitOK,
		usagef("x"):      ExitUsage,
		ErrDegraded:      ExitDegraded,
		errInterrupted:   ExitInterrupted,
		context.Canceled: ExitInterrupted,
		os.ErrNotExist:   ExitFailure,
	}
	for err, want := range cases {
		if got := ExitCode(err); got != want {
			t.Errorf("ExitCode(%v) = %d, want %d", err, got, want)
		}
	}
}
