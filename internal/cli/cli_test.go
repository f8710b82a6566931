package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
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
	// simModels replaces the models --sim serves, at the pace it is given;
	// onEvent sees every quorum event, through the run function the
	// harness injects.
	simModels func(pace) []sim.Model
	onEvent   func(quorum.Progress)
	// dir is where review runs git.
	dir string
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
	e := &env{&cmdutil.Factory{
		In: strings.NewReader(h.stdin), Out: &out, ErrOut: &errb,
		Getenv:    func(k string) string { return h.env[k] },
		ConfigDir: func() (string, error) { return h.cfgDir, nil },
		SimModels: unpaced(h.simModels),
		Dir:       h.dir,
	}}
	err := e.run(ctx, args, h.runF())
	return outcome{out.String(), errb.String(), ExitCode(err), err}
}

// unpaced are the models --sim serves in tests, streaming at once:
// models's, or simquorum's when models is nil.
func unpaced(models func(pace) []sim.Model) func() []sim.Model {
	return paced(pace{}, models)
}

// paced are the models --sim serves at pace p: models's, or simquorum's
// when models is nil.
func paced(p pace, models func(pace) []sim.Model) func() []sim.Model {
	if models == nil {
		models = simModels
	}
	return func() []sim.Model { return models(p) }
}

// runF is the run function the harness injects: each command's own, its
// events seen by onEvent when set.
func (h *harness) runF() runWrapper {
	if h.onEvent == nil {
		return nil
	}
	return func(inv *cmdutil.Invocation, run modelRun) error { return run(inv, h.onEvent) }
}

// configFile is where the harness's config file is.
func (h *harness) configFile() string { return filepath.Join(h.cfgDir, "quorum", "config.json") }

func (h *harness) writeConfig(body string) {
	os.MkdirAll(filepath.Dir(h.configFile()), 0o755)
	if err := os.WriteFile(h.configFile(), []byte(body), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// Mistakes on the command line exit 2 with one line saying what is wrong
// and where help is, never a dump of every flag.
func TestUsageErrors(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "quorum" (commands: agent, ask, chat, completion, config, debate, discuss, history,`},
		{[]string{"dicsuss", "x"}, `unknown command "dicsuss" for "quorum"; did you mean discuss?`},
		{[]string{"help", "foo"}, `unknown command "foo" for "quorum"`},
		{[]string{"ask", "--sim"}, "quorum ask needs a question"},
		{[]string{"ask", "--sim", "a", "b"}, `quorum ask takes a question (quote it; - reads it from stdin), got 2 arguments ("a" "b")`},
		{[]string{"ask", "--sim", "-o", "yaml", "q"}, `invalid argument "yaml" for --output: must be one of text, markdown, json`},
		{[]string{"ask", "--sim", "--modle", "x", "q"}, "unknown flag: --modle; did you mean --model?"},
		{[]string{"ask", "--sim", "--nope", "q"}, "unknown flag: --nope"},
		{[]string{"ask", "--sim", "-m", "sim-alpha", "-m", "sim-beta", "q"}, "given twice (sim-alpha, then sim-beta): quorum ask asks one model"},
		{[]string{"ask", "--sim", "-m", "sim-alpha,sim-beta", "q"}, "quorum ask asks one model"},
		{[]string{"plan", "--sim", "--moderator", "sim-beta", "t"}, "quorum plan does not take --moderator (quorum chat and quorum debate and quorum discuss"},
		{[]string{"plan", "--sim", "--no-review", "t"}, "quorum plan does not take --no-review (quorum chat and quorum discuss"},
		{[]string{"plan", "--sim", "--reviewers", "1", "t"}, "quorum plan does not take --reviewers"},
		{[]string{"discuss", "--sim", "--timeout", "soon", "q"}, `invalid argument "soon" for "--timeout" flag`},
		{[]string{"discuss", "--sim", "-j", "0", "q"}, `invalid argument "0" for --concurrency: must be at least 1`},
		{[]string{"discuss", "--sim", "--show", "everything", "q"}, `--show: no section "everything" in the discuss report (sections: answers, reviews, ranking, synthesis, usage)`},
		{[]string{"discuss", "--sim", "-o", "json", "--show", "ranking", "q"}, "--show picks sections of the text and markdown reports"},
		{[]string{"discuss", "--sim", "--json", "nope", "q"}, `--json: discuss has no field "nope" (fields: answers, calls,`},
		{[]string{"discuss", "--sim", "--json"}, "--json needs the fields to print, comma-separated; quorum discuss has: answers, calls,"},
		{[]string{"discuss", "--sim", "-o", "markdown", "--json", "answers", "q"}, "if any flags in the group [output json] are set none of the others can be"},
		{[]string{"version", "extra"}, `quorum version takes no arguments, got "extra"`},
		{[]string{"models", "--sim", "extra"}, `quorum models takes no arguments`},
		{[]string{"config", "frob"}, `unknown command "frob" for "quorum config"`},
		{[]string{"config", "get"}, "quorum config get needs a setting's name"},
		{[]string{"config", "get", "timout"}, `unknown setting "timout"; did you mean timeout?`},
		{[]string{"config", "get", "colour"}, `unknown setting "colour" (settings: models, moderator,`},
		{[]string{"config", "set", "timeout", "soon"}, `timeout="soon": must be a duration such as "90s", "5m" or "1h30m"`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "quorum completion"`},
	} {
		o := h.run(c.args...)
		if o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant it to contain %q", c.args, o.code, o.stderr, c.want)
		}
		if lines := strings.Count(o.stderr, "\n"); len(c.args) > 0 && lines > 3 {
			t.Errorf("%q: %d lines on stderr for a usage error:\n%s", c.args, lines, o.stderr)
		}
		if o.stdout != "" {
			t.Errorf("%q: stdout %q", c.args, o.stdout)
		}
	}
	// The pointer to help names the command that went wrong.
	if o := h.run("plan", "--sim", "--bogus", "t"); !strings.HasSuffix(o.stderr, "Run 'quorum plan --help' for usage.\n") {
		t.Errorf("stderr = %q", o.stderr)
	}
}

// `quorum help discuss` and `quorum discuss --help` print the same help
// on stdout: usage, the command's own flags in sections with defaults,
// examples; a command does not list flags it does not take.
func TestHelp(t *testing.T) {
	h := newHarness(t)
	a, b, c := h.run("help", "discuss"), h.run("discuss", "--help"), h.run("discuss", "-h")
	if a.code != 0 || a.stdout != b.stdout || b.stdout != c.stdout || a.stderr != "" {
		t.Fatalf("help discuss (exit %d) and discuss --help differ:\n%s\n---\n%s", a.code, a.stdout, b.stdout)
	}
	for _, want := range []string{"USAGE\n  quorum discuss <topic> [flags]", "PARTICIPANTS FLAGS\n  -m, --model model", "--moderator model",
		"RUN FLAGS", "(default 5m0s)", "OUTPUT FLAGS", "-o, --output format", `result format: text, markdown or json (default "text")`,
		"COPILOT CLI FLAGS", "--sim", "EXAMPLES\n  $ quorum discuss", "Exit codes", "130", "143", `"status"`} {
		if !strings.Contains(a.stdout, want) {
			t.Errorf("discuss help lacks %q:\n%s", want, a.stdout)
		}
	}
	plan := h.run("plan", "--help").stdout
	for _, absent := range []string{"--moderator", "--no-review", "--reviewers"} {
		if strings.Contains(plan, absent) {
			t.Errorf("plan's help lists %s, which plan does not take", absent)
		}
	}
	version := h.run("help", "version").stdout
	for _, absent := range []string{"--sim", "--model", "--transcript", "--quiet"} {
		if strings.Contains(version, absent) {
			t.Errorf("version's help lists %s", absent)
		}
	}
	root := h.run("--help")
	for _, want := range []string{"COMMANDS", "discuss:", "plan:", "config:", "completion:", "Exit codes"} {
		if !strings.Contains(root.stdout, want) {
			t.Errorf("root help lacks %q:\n%s", want, root.stdout)
		}
	}
	if o := h.run("--version"); o.code != cmdutil.ExitOK || o.stdout != "quorum devel\n" {
		t.Errorf("--version: exit %d, %q", o.code, o.stdout)
	}
	if o := h.run(); o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "COMMANDS") || o.stderr != "" {
		t.Errorf("quorum alone: exit %d, stdout %.80q, stderr %q; want its help on stdout, exit 0", o.code, o.stdout, o.stderr)
	}
}

// Short flags bundle, as with every pflag command: -qj1 is -q -j 1.
func TestBundledShortFlags(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-qj1", "-o", "json", goldenTopic)
	if o.code != cmdutil.ExitOK || o.stderr != "" {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, `"status": "ok"`) {
		t.Errorf("stdout = %.200s", o.stdout)
	}
}

// Cancelling Run's context with an *cmdutil.Interrupted cause (what WithSignals
// does on SIGTERM) gives that signal's exit status.
func TestCancelCauseNamesTheSignal(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	h.onEvent = func(ev quorum.Progress) {
		if ev.Kind == quorum.PhaseStarted {
			cancel(&cmdutil.Interrupted{Signal: syscall.SIGTERM})
		}
	}
	o := h.runContext(ctx, "discuss", "--sim", "-q", goldenTopic)
	if o.code != cmdutil.ExitTerminated || !strings.Contains(o.stderr, "quorum: terminated (SIGTERM); turns were aborted") {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
	cancel(nil)
}

// The small mistakes of a new user's first hour: each gets a message that
// says what is wrong and what to type.
func TestFirstHourMistakes(t *testing.T) {
	h := newHarness(t)
	blob := writeFile(t, "blob.bin", "\x00\x01\x02")
	diff := writeFile(t, "c.diff", minorDiff)
	for _, c := range []struct {
		args    []string
		want    string
		without string
	}{
		// A mistyped command followed by flags is still a mistyped command.
		{[]string{"discus", "--sim", "t"}, `unknown command "discus" for "quorum"; did you mean discuss?`, "does not take"},
		{[]string{"discus", "-q", "t"}, `unknown command "discus" for "quorum"; did you mean discuss?`, "shorthand"},
		// -v is --verbose in the commands; the root says where the version is.
		{[]string{"-v"}, "for the version, quorum --version or quorum version", ""},
		// --json= is not --json with no fields printing text.
		{[]string{"discuss", "--sim", "--json=", "t"}, "--json needs the fields to print, comma-separated; quorum discuss has: answers,", ""},
		// A context file is named as such, not blamed on the diff.
		{[]string{"review", "--sim", "--context", blob, diff}, "the context file " + blob + " is binary", diff + ":"},
		// Every shell completion knows, PowerShell too.
		{[]string{"completion", "tcsh"}, "bash, fish, powershell, zsh", "did you mean"},
	} {
		o := h.run(c.args...)
		if o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) || c.without != "" && strings.Contains(o.stderr, c.without) || o.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant %q", c.args, o.code, o.stdout, o.stderr, c.want)
		}
	}
	if o := h.run("--version"); o.code != cmdutil.ExitOK || o.stdout != "quorum devel\n" {
		t.Errorf("--version: exit %d, %q", o.code, o.stdout)
	}
	o := h.run("models", "--sim", "-o", "markdown")
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "| ID | Name | Premium requests per request |\n|---|---|---:|\n| sim-alpha | Simulated sim-alpha | 1 |\n| sim-beta | Simulated sim-beta | 1 |\n| sim-gamma | Simulated sim-gamma | 0.25 |") {
		t.Errorf("models -o markdown: exit %d:\n%s", o.code, o.stdout)
	}
}
