package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quorum-go/quorum/internal/config"
	"github.com/spf13/pflag"
)

// Flag annotations: what the rest of the command needs to know about a
// flag beyond pflag's own fields.
const (
	// AnnSetting names the setting (package config) a flag sets: its value
	// goes on top of the file and the environment.
	AnnSetting = "quorum-setting"
	// AnnInvert marks a boolean flag that sets its setting to the
	// opposite of its value (--no-review sets review=false).
	AnnInvert = "quorum-invert"
	// AnnGroup is the help section a flag is listed under.
	AnnGroup = "quorum-group"
)

// The help sections of flags, in the order help shows them.
const (
	GroupInput        = "INPUT"
	GroupParticipants = "PARTICIPANTS"
	GroupRun          = "RUN"
	GroupOutput       = "OUTPUT"
	GroupCLI          = "COPILOT CLI"
	GroupConfig       = "CONFIGURATION"
)

var FlagGroups = []string{GroupInput, GroupParticipants, GroupRun, GroupOutput, GroupCLI, GroupConfig}

// Options are the command-line options that are not settings.
type Options struct {
	ConfigPath string
	// Sim: the run is on the simulator (the sim setting, of a command
	// that connects).
	Sim        bool
	Quiet      bool
	Verbose    bool
	Transcript string
	Show       []string
	JSON       []string
	// jq is --jq's expression over the JSON output; template is
	// --template's Go template.
	JQ, Template string
	// model is ask's one model (-m once).
	Model string
	// Context are the context files of the commands that take them;
	// SARIF where review and agent write SARIF.
	Context []string
	SARIF   string
	// DryRun prints the run's estimate of premium requests and exits.
	DryRun bool
}

// Spec is what NewCommand needs to know of a command beyond cobra's: its
// flags (Flags declares them, in the order help and completion show them),
// and what its result and report are made of (Result, Sections).
type Spec struct {
	// Flags declares the command's flags; nil for none but --config.
	Flags func(FlagBuilder)
	// Result is a zero result of the command, from which the fields that
	// --json accepts are read; nil for a command that prints none.
	Result any
	// Sections are the sections of the command's report, for --show.
	Sections []string
}

// FlagBuilder declares a command's flags.
type FlagBuilder struct {
	FS *pflag.FlagSet
	o  *Options
}

// Setting declares the flag of setting key, in help group group.
func (b FlagBuilder) Setting(key, name, short, usage, group string) *pflag.Flag {
	k, ok := config.Lookup(key)
	if !ok {
		panic("cli: no setting " + key)
	}
	switch key {
	case "phase-timeout", "timeout":
		d, _ := time.ParseDuration(k.Default)
		b.FS.DurationP(name, short, d, usage)
	case "max-premium":
		x, _ := strconv.ParseFloat(k.Default, 64)
		b.FS.Float64P(name, short, x, usage)
	case "reviewers", "concurrency", "rounds":
		n, _ := strconv.Atoi(k.Default)
		b.FS.IntP(name, short, n, usage)
	case "no-color", "sim":
		b.FS.BoolP(name, short, false, usage)
	default:
		b.FS.StringP(name, short, k.Default, usage)
	}
	f := b.FS.Lookup(name)
	Annotate(f, AnnSetting, key)
	Annotate(f, AnnGroup, group)
	return f
}

func Annotate(f *pflag.Flag, key, value string) {
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[key] = []string{value}
}

func Group(f *pflag.Flag, g string) { Annotate(f, AnnGroup, g) }

// The flags a command may take, each family a method, so that a command
// declares its own in its NewCmd function. A command calls them in the
// order they are declared here, which is the order help and completion
// list them in; NewCommand adds --config last.

// Models declares -m for several participants.
func (b FlagBuilder) Models() {
	b.FS.StringSliceP("model", "m", nil, "a participant `model`; repeat, or separate with commas, for several (default: the first three the CLI offers)")
	f := b.FS.Lookup("model")
	Annotate(f, AnnSetting, "models")
	Group(f, GroupParticipants)
}

// OneModel declares -m for the one model asked, given once.
func (b FlagBuilder) OneModel() {
	b.FS.VarP(&onceValue{v: &b.o.Model}, "model", "m", "the `model` to ask (default: the first the CLI offers)")
	f := b.FS.Lookup("model")
	Annotate(f, AnnSetting, "models")
	Group(f, GroupParticipants)
}

// Moderator declares --moderator, whose usage says what the moderator
// writes.
func (b FlagBuilder) Moderator(usage string) {
	b.Setting("moderator", "moderator", "", usage, GroupParticipants)
}

// PeerReview declares --no-review and --reviewers.
func (b FlagBuilder) PeerReview() {
	b.FS.Bool("no-review", false, "skip peer review: the synthesis works from the answers alone")
	f := b.FS.Lookup("no-review")
	Annotate(f, AnnSetting, "review")
	Annotate(f, AnnInvert, "true")
	Group(f, GroupParticipants)
	b.Setting("reviewers", "reviewers", "", "each reviewer scores `N` of the other answers; 0 for all of them", GroupParticipants)
}

// Rounds declares --rounds.
func (b FlagBuilder) Rounds() {
	b.Setting("rounds", "rounds", "", "at most `N` rounds after the opening (1 to 10); the debate ends sooner once no blocking objection stands", GroupRun)
}

// ChangeContext declares quorum review's --context: files that help to
// understand the change. (The change's own flags are review's.)
func (b FlagBuilder) ChangeContext() {
	b.FS.StringArrayVar(&b.o.Context, "context", nil, "a `file` that helps to understand the change, shown to the models but not reviewed; repeat for several")
	Group(b.FS.Lookup("context"), GroupInput)
}

// TextContext declares --context, files and folders read with a question.
func (b FlagBuilder) TextContext() {
	b.FS.StringArrayVar(&b.o.Context, "context", nil, "a `file` or folder the models read with the question (text files, 256 KiB in all); repeat for several")
	Group(b.FS.Lookup("context"), GroupInput)
}

// AgentContext declares quorum agent's --context: files the models read
// before planning, beside what quorum reads of the repository. (The
// agent's own flags are its package's.)
func (b FlagBuilder) AgentContext() {
	b.FS.StringArrayVar(&b.o.Context, "context", nil, "a `file` the models read before planning, beside what quorum reads of the repository; repeat for several")
	Group(b.FS.Lookup("context"), GroupInput)
}

// PhaseTimeout declares --phase-timeout.
func (b FlagBuilder) PhaseTimeout() {
	b.Setting("phase-timeout", "phase-timeout", "", "time limit of each phase; a model still running then is dropped", GroupRun)
}

// Timeout declares --timeout.
func (b FlagBuilder) Timeout() {
	b.Setting("timeout", "timeout", "", "time limit of the whole command", GroupRun)
}

// Sessions declares -j and --transcript: how many sessions a run opens
// at once, and where it writes every prompt and reply.
func (b FlagBuilder) Sessions() {
	b.Setting("concurrency", "concurrency", "j", "at most `N` sessions open at once", GroupRun)
	b.FS.StringVar(&b.o.Transcript, "transcript", "", "write every prompt, reply and event as JSON lines to `file`")
	Group(b.FS.Lookup("transcript"), GroupRun)
}

// Premium declares --max-premium and --dry-run, and with earlyStop
// --no-early-stop (discuss, plan, agent: whose reviews or votes early stop
// skips).
func (b FlagBuilder) Premium(earlyStop bool) {
	b.Setting("max-premium", "max-premium", "", "spend at most `N` premium requests: the run shrinks to fit and stops with what it has at the cap (0: no cap)", GroupRun)
	if earlyStop {
		b.FS.Bool("no-early-stop", false, "start every review and vote, even those that can no longer change the winner")
		f := b.FS.Lookup("no-early-stop")
		Annotate(f, AnnSetting, "early-stop")
		Annotate(f, AnnInvert, "true")
		Group(f, GroupRun)
	}
	b.FS.BoolVar(&b.o.DryRun, "dry-run", false, "print what the run would cost in premium requests, with the account's allowance, and exit without asking a model")
	Group(b.FS.Lookup("dry-run"), GroupRun)
}

// Output declares the result's format: -o, --json, --jq, --template.
func (b FlagBuilder) Output() {
	fs, o := b.FS, b.o
	b.Setting("output", "output", "o", "result `format`: text, markdown or json", GroupOutput)
	fs.StringSliceVar(&o.JSON, "json", nil, "print these `fields` of the result as JSON (a comma-separated list; --json with no list names them)")
	Group(fs.Lookup("json"), GroupOutput)
	fs.StringVar(&o.JQ, "jq", "", "filter the JSON output with a jq `expression` (built in, as gh's --jq; strings print as text)")
	Group(fs.Lookup("jq"), GroupOutput)
	fs.StringVar(&o.Template, "template", "", "format the JSON output with a Go `template`, as gh's --template ({{.status}}, {{range .result.models}}…{{end}}, join)")
	Group(fs.Lookup("template"), GroupOutput)
}

// Show declares --show, the report's sections.
func (b FlagBuilder) Show() {
	b.FS.StringSliceVar(&b.o.Show, "show", nil, "show only these `sections` of the report, comma-separated (default: all)")
	Group(b.FS.Lookup("show"), GroupOutput)
}

// Findings declares --fail-on and --sarif: the gate on findings and
// their SARIF file.
func (b FlagBuilder) Findings() {
	b.Setting("fail-on", "fail-on", "", "exit 1 when a finding is at least this `severity`: blocking, major, minor, or none", GroupOutput)
	b.FS.StringVar(&b.o.SARIF, "sarif", "", "also write the findings as SARIF 2.1.0 to `file`, for code scanning in CI")
	Group(b.FS.Lookup("sarif"), GroupOutput)
}

// Progress declares -q and --no-color, for progress on stderr.
func (b FlagBuilder) Progress() {
	b.FS.BoolVarP(&b.o.Quiet, "quiet", "q", false, "no progress on stderr")
	Group(b.FS.Lookup("quiet"), GroupOutput)
	b.Setting("no-color", "no-color", "", "no colour (also: NO_COLOR set to anything)", GroupOutput)
}

// Sim declares --sim, which sets the sim setting: quorum config set sim
// true and QUORUM_SIM=1 choose the simulator too, and --sim=false leaves
// it for one run.
func (b FlagBuilder) Sim() {
	b.Setting("sim", "sim", "", "run on the simulated Copilot server built into quorum: no CLI or login needed (also: quorum config set sim true, or QUORUM_SIM=1)", GroupCLI)
}

// CLIPath declares --cli-path.
func (b FlagBuilder) CLIPath() {
	b.Setting("cli-path", "cli-path", "", "the Copilot CLI `binary` (default: $COPILOT_CLI_PATH, then copilot on PATH)", GroupCLI)
}

// Connection declares how the CLI is started and talked to: --cli-args,
// --transport, -v.
func (b FlagBuilder) Connection() {
	b.Setting("cli-args", "cli-args", "", "extra `arguments` for the Copilot CLI, separated by spaces", GroupCLI)
	b.Setting("transport", "transport", "", "the `transport` to the CLI: stdio or tcp", GroupCLI)
	b.FS.BoolVarP(&b.o.Verbose, "verbose", "v", false, "structured logs of the connection on stderr")
	Group(b.FS.Lookup("verbose"), GroupCLI)
}

// Connects declares what a command that talks to the CLI takes: --sim,
// --cli-path and the connection's flags.
func (b FlagBuilder) Connects() {
	b.Sim()
	b.CLIPath()
	b.Connection()
}

// config declares --config, which every command takes, last.
func (b FlagBuilder) config() {
	b.FS.StringVar(&b.o.ConfigPath, "config", "", "the config `file` (default: $QUORUM_CONFIG, then quorum/config.json in the user config directory)")
	Group(b.FS.Lookup("config"), GroupConfig)
}

// flagValues are the settings given as flags on cmd's command line.
func FlagValues(fs *pflag.FlagSet) []config.FlagValue {
	var out []config.FlagValue
	fs.Visit(func(f *pflag.Flag) {
		key := First(f.Annotations[AnnSetting])
		if key == "" {
			return
		}
		v := f.Value.String()
		switch val := f.Value.(type) {
		case pflag.SliceValue:
			v = strings.Join(val.GetSlice(), ",")
		}
		if First(f.Annotations[AnnInvert]) != "" {
			b, _ := strconv.ParseBool(v)
			v = strconv.FormatBool(!b)
		}
		out = append(out, config.FlagValue{Key: key, Value: v, Flag: "--" + f.Name})
	})
	return out
}

func First(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

// onceValue is a flag that may be given once: ask asks one model, so a
// second -m is a mistake, not a choice between two.
type onceValue struct {
	v   *string
	set bool
}

func (o *onceValue) Set(s string) error {
	if o.set {
		return fmt.Errorf("given twice (%s, then %s): quorum ask asks one model; for several, use quorum discuss", *o.v, s)
	}
	if strings.Contains(s, ",") {
		return fmt.Errorf("quorum ask asks one model; for several, use quorum discuss")
	}
	*o.v, o.set = s, true
	return nil
}

func (o *onceValue) String() string { return *o.v }
func (o *onceValue) Type() string   { return "string" }
