package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/quorum"
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
	// base and head are review's git range; context its context files;
	// sarif where it writes SARIF.
	Base, Head string
	// pr is review's pull request (--pr), read through gh.
	PR      string
	Context []string
	SARIF   string
	// The agent's: who plans alone (solo) and who executes, the rounds of
	// plan review and of fixes, the tool-call limit, consent (yes), how
	// shell commands are decided (approve), URLs, where worktrees go.
	Solo, Executor          string
	MaxRevisions, FixRounds int
	MaxToolCalls            int
	Yes, AllowURL           bool
	Approve, WorktreeRoot   string
}

// Spec says which flags a command takes, in the one order that help,
// completion and the goldens show them in, and what its result and
// report are made of (Result, Sections).
type Spec struct {
	// Quorum: discuss, plan, debate or review (models, run limits,
	// transcript, --show); Moderated: discuss and debate (--moderator);
	// PeerReview: discuss (--no-review, --reviewers); Rounds: debate;
	// Change: review (--base, --head, --context, --fail-on, --sarif).
	// Agent: agent (--context, --solo, --executor, --yes, --approve, …,
	// --fail-on, --sarif).
	Quorum, Moderated, PeerReview, Rounds, Change, Agent bool
	// TextContext: discuss, plan and debate (--context FILE|DIR, read
	// with the question).
	TextContext bool
	// One: ask (one model).
	One bool
	// Connects: the command talks to the CLI (connection flags, --sim);
	// CLIPath: it only looks for the CLI (--cli-path).
	Connects, CLIPath bool
	// Output: the command prints a result (-o, --json).
	Output bool
	// Progress: the command reports progress on stderr (-q, --no-color).
	Progress bool
	// Timeout: the command takes --timeout.
	Timeout bool
	// Result is a zero result of the command, from which the fields that
	// --json accepts are read (with Output).
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
	case "reviewers", "concurrency", "rounds":
		n, _ := strconv.Atoi(k.Default)
		b.FS.IntP(name, short, n, usage)
	case "no-color":
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

// declare declares the flags spec asks for.
func (b FlagBuilder) declare(spec Spec) {
	fs, o := b.FS, b.o
	switch {
	case spec.Quorum:
		fs.StringSliceP("model", "m", nil, "a participant `model`; repeat, or separate with commas, for several (default: the first three the CLI offers)")
		f := fs.Lookup("model")
		Annotate(f, AnnSetting, "models")
		Group(f, GroupParticipants)
	case spec.One:
		fs.VarP(&onceValue{v: &o.Model}, "model", "m", "the `model` to ask (default: the first the CLI offers)")
		f := fs.Lookup("model")
		Annotate(f, AnnSetting, "models")
		Group(f, GroupParticipants)
	}
	if spec.Moderated {
		usage := "the `model` that writes the synthesis (default: the first participant)"
		if spec.Rounds {
			usage = "the `model` that gives the verdict (default: the first participant)"
		}
		b.Setting("moderator", "moderator", "", usage, GroupParticipants)
	}
	if spec.PeerReview {
		fs.Bool("no-review", false, "skip peer review: the synthesis works from the answers alone")
		f := fs.Lookup("no-review")
		Annotate(f, AnnSetting, "review")
		Annotate(f, AnnInvert, "true")
		Group(f, GroupParticipants)
		b.Setting("reviewers", "reviewers", "", "each reviewer scores `N` of the other answers; 0 for all of them", GroupParticipants)
	}
	if spec.Rounds {
		b.Setting("rounds", "rounds", "", "at most `N` rounds after the opening (1 to 10); the debate ends sooner once no blocking objection stands", GroupRun)
	}
	if spec.Change {
		fs.StringVar(&o.Base, "base", "", "review git diff `rev`..HEAD in the current repository (with --head, rev..head)")
		Group(fs.Lookup("base"), GroupInput)
		fs.StringVar(&o.Head, "head", "", "the end of the --base range (default HEAD)")
		Group(fs.Lookup("head"), GroupInput)
		fs.StringVar(&o.PR, "pr", "", "review pull request `N` (a number, or its URL) through the GitHub CLI, gh: its diff, with its title and description as context")
		Group(fs.Lookup("pr"), GroupInput)
		fs.StringArrayVar(&o.Context, "context", nil, "a `file` that helps to understand the change, shown to the models but not reviewed; repeat for several")
		Group(fs.Lookup("context"), GroupInput)
	}
	if spec.TextContext {
		fs.StringArrayVar(&o.Context, "context", nil, "a `file` or folder the models read with the question (text files, 256 KiB in all); repeat for several")
		Group(fs.Lookup("context"), GroupInput)
	}
	if spec.Agent {
		fs.StringArrayVar(&o.Context, "context", nil, "a `file` the models read before planning, beside what quorum reads of the repository; repeat for several")
		Group(fs.Lookup("context"), GroupInput)
		fs.StringVar(&o.Solo, "solo", "", "this `model` plans alone: no other proposals, no vote")
		Group(fs.Lookup("solo"), GroupParticipants)
		fs.StringVar(&o.Executor, "executor", "", "the `model` that carries the plan out (default: the plan's author)")
		Group(fs.Lookup("executor"), GroupParticipants)
		fs.IntVar(&o.MaxRevisions, "max-revisions", quorum.DefaultMaxRevisions, "at most `N` rounds of plan review and revision; 0 for none")
		Group(fs.Lookup("max-revisions"), GroupRun)
		fs.BoolVarP(&o.Yes, "yes", "y", false, "approve the plan without asking (off a terminal, without it, quorum agent stops after planning)")
		Group(fs.Lookup("yes"), GroupRun)
		fs.StringVar(&o.Approve, "approve", "", "how shell commands are decided: `mode` ask (you, on a terminal: the default there), quorum (the other models vote: the default elsewhere), auto (all, in the worktree) or never")
		Group(fs.Lookup("approve"), GroupRun)
		fs.BoolVar(&o.AllowURL, "allow-url", false, "let the executor fetch URLs (denied by default)")
		Group(fs.Lookup("allow-url"), GroupRun)
		fs.IntVar(&o.MaxToolCalls, "max-tool-calls", quorum.DefaultMaxToolCalls, "stop the executor after `N` tool calls")
		Group(fs.Lookup("max-tool-calls"), GroupRun)
		fs.IntVar(&o.FixRounds, "fix-rounds", quorum.DefaultFixRounds, "at most `N` rounds of fixing the final review's findings; 0 for none")
		Group(fs.Lookup("fix-rounds"), GroupRun)
		fs.StringVar(&o.WorktreeRoot, "worktree-root", "", "make the agent's worktree under `dir` (default: $XDG_STATE_HOME/quorum/worktrees)")
		Group(fs.Lookup("worktree-root"), GroupRun)
	}
	if spec.Quorum {
		b.Setting("phase-timeout", "phase-timeout", "", "time limit of each phase; a model still running then is dropped", GroupRun)
	}
	if spec.Timeout {
		b.Setting("timeout", "timeout", "", "time limit of the whole command", GroupRun)
	}
	if spec.Quorum {
		b.Setting("concurrency", "concurrency", "j", "at most `N` sessions open at once", GroupRun)
		fs.StringVar(&o.Transcript, "transcript", "", "write every prompt, reply and event as JSON lines to `file`")
		Group(fs.Lookup("transcript"), GroupRun)
	}
	if spec.Output {
		b.Setting("output", "output", "o", "result `format`: text, markdown or json", GroupOutput)
		fs.StringSliceVar(&o.JSON, "json", nil, "print these `fields` of the result as JSON (a comma-separated list; --json with no list names them)")
		Group(fs.Lookup("json"), GroupOutput)
		fs.StringVar(&o.JQ, "jq", "", "filter the JSON output with a jq `expression` (built in, as gh's --jq; strings print as text)")
		Group(fs.Lookup("jq"), GroupOutput)
		fs.StringVar(&o.Template, "template", "", "format the JSON output with a Go `template`, as gh's --template ({{.status}}, {{range .result.models}}…{{end}}, join)")
		Group(fs.Lookup("template"), GroupOutput)
	}
	if spec.Quorum {
		fs.StringSliceVar(&o.Show, "show", nil, "show only these `sections` of the report, comma-separated (default: all)")
		Group(fs.Lookup("show"), GroupOutput)
	}
	if spec.Change || spec.Agent {
		b.Setting("fail-on", "fail-on", "", "exit 1 when a finding is at least this `severity`: blocking, major, minor, or none", GroupOutput)
		fs.StringVar(&o.SARIF, "sarif", "", "also write the findings as SARIF 2.1.0 to `file`, for code scanning in CI")
		Group(fs.Lookup("sarif"), GroupOutput)
	}
	if spec.Progress {
		fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress on stderr")
		Group(fs.Lookup("quiet"), GroupOutput)
		b.Setting("no-color", "no-color", "", "no colour (also: NO_COLOR set to anything)", GroupOutput)
	}
	if spec.Connects {
		fs.BoolVar(&o.Sim, "sim", false, "run on the simulated Copilot server built into quorum: no CLI or login needed")
		Group(fs.Lookup("sim"), GroupCLI)
	}
	if spec.Connects || spec.CLIPath {
		b.Setting("cli-path", "cli-path", "", "the Copilot CLI `binary` (default: $COPILOT_CLI_PATH, then copilot on PATH)", GroupCLI)
	}
	if spec.Connects {
		b.Setting("cli-args", "cli-args", "", "extra `arguments` for the Copilot CLI, separated by spaces", GroupCLI)
		b.Setting("transport", "transport", "", "the `transport` to the CLI: stdio or tcp", GroupCLI)
		fs.BoolVarP(&o.Verbose, "verbose", "v", false, "structured logs of the connection on stderr")
		Group(fs.Lookup("verbose"), GroupCLI)
	}
	fs.StringVar(&o.ConfigPath, "config", "", "the config `file` (default: $QUORUM_CONFIG, then quorum/config.json in the user config directory)")
	Group(fs.Lookup("config"), GroupConfig)
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
