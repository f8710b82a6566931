package cli

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
	// annSetting names the setting (package config) a flag sets: its value
	// goes on top of the file and the environment.
	annSetting = "quorum-setting"
	// annInvert marks a boolean flag that sets its setting to the
	// opposite of its value (--no-review sets review=false).
	annInvert = "quorum-invert"
	// annGroup is the help section a flag is listed under.
	annGroup = "quorum-group"
)

// The help sections of flags, in the order help shows them.
const (
	groupInput        = "INPUT"
	groupParticipants = "PARTICIPANTS"
	groupRun          = "RUN"
	groupOutput       = "OUTPUT"
	groupCLI          = "COPILOT CLI"
	groupConfig       = "CONFIGURATION"
)

var flagGroups = []string{groupInput, groupParticipants, groupRun, groupOutput, groupCLI, groupConfig}

// opts are the command-line options that are not settings.
type opts struct {
	configPath string
	sim        bool
	quiet      bool
	verbose    bool
	transcript string
	show       []string
	json       []string
	// jq is --jq's expression over the JSON output; template is
	// --template's Go template.
	jq, template string
	// model is ask's one model (-m once).
	model string
	// base and head are review's git range; context its context files;
	// sarif where it writes SARIF.
	base, head string
	// pr is review's pull request (--pr), read through gh.
	pr      string
	context []string
	sarif   string
	// The agent's: who plans alone (solo) and who executes, the rounds of
	// plan review and of fixes, the tool-call limit, consent (yes), how
	// shell commands are decided (approve), URLs, where worktrees go.
	solo, executor          string
	maxRevisions, fixRounds int
	maxToolCalls            int
	yes, allowURL           bool
	approve, worktreeRoot   string
}

// cmdSpec says which flags a command takes.
type cmdSpec struct {
	// quorum: discuss, plan, debate or review (models, run limits,
	// transcript, --show); moderated: discuss and debate (--moderator);
	// peerReview: discuss (--no-review, --reviewers); rounds: debate;
	// change: review (--base, --head, --context, --fail-on, --sarif).
	// agent: agent (--context, --solo, --executor, --yes, --approve, …,
	// --fail-on, --sarif).
	quorum, moderated, peerReview, rounds, change, agent bool
	// textContext: discuss, plan and debate (--context FILE|DIR, read
	// with the question).
	textContext bool
	// one: ask (one model).
	one bool
	// connects: the command talks to the CLI (connection flags, --sim);
	// cliPath: it only looks for the CLI (--cli-path).
	connects, cliPath bool
	// output: the command prints a result (-o, --json).
	output bool
	// progress: the command reports progress on stderr (-q, --no-color).
	progress bool
	// timeout: the command takes --timeout.
	timeout bool
}

// flagBuilder declares a command's flags.
type flagBuilder struct {
	fs *pflag.FlagSet
	o  *opts
}

// setting declares the flag of setting key, in help group group.
func (b flagBuilder) setting(key, name, short, usage, group string) *pflag.Flag {
	k, ok := config.Lookup(key)
	if !ok {
		panic("cli: no setting " + key)
	}
	switch key {
	case "phase-timeout", "timeout":
		d, _ := time.ParseDuration(k.Default)
		b.fs.DurationP(name, short, d, usage)
	case "reviewers", "concurrency", "rounds":
		n, _ := strconv.Atoi(k.Default)
		b.fs.IntP(name, short, n, usage)
	case "no-color":
		b.fs.BoolP(name, short, false, usage)
	default:
		b.fs.StringP(name, short, k.Default, usage)
	}
	f := b.fs.Lookup(name)
	annotate(f, annSetting, key)
	annotate(f, annGroup, group)
	return f
}

func annotate(f *pflag.Flag, key, value string) {
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[key] = []string{value}
}

func group(f *pflag.Flag, g string) { annotate(f, annGroup, g) }

// declare declares the flags spec asks for.
func (b flagBuilder) declare(spec cmdSpec) {
	fs, o := b.fs, b.o
	switch {
	case spec.quorum:
		fs.StringSliceP("model", "m", nil, "a participant `model`; repeat, or separate with commas, for several (default: the first three the CLI offers)")
		f := fs.Lookup("model")
		annotate(f, annSetting, "models")
		group(f, groupParticipants)
	case spec.one:
		fs.VarP(&onceValue{v: &o.model}, "model", "m", "the `model` to ask (default: the first the CLI offers)")
		f := fs.Lookup("model")
		annotate(f, annSetting, "models")
		group(f, groupParticipants)
	}
	if spec.moderated {
		usage := "the `model` that writes the synthesis (default: the first participant)"
		if spec.rounds {
			usage = "the `model` that gives the verdict (default: the first participant)"
		}
		b.setting("moderator", "moderator", "", usage, groupParticipants)
	}
	if spec.peerReview {
		fs.Bool("no-review", false, "skip peer review: the synthesis works from the answers alone")
		f := fs.Lookup("no-review")
		annotate(f, annSetting, "review")
		annotate(f, annInvert, "true")
		group(f, groupParticipants)
		b.setting("reviewers", "reviewers", "", "each reviewer scores `N` of the other answers; 0 for all of them", groupParticipants)
	}
	if spec.rounds {
		b.setting("rounds", "rounds", "", "at most `N` rounds after the opening (1 to 10); the debate ends sooner once no blocking objection stands", groupRun)
	}
	if spec.change {
		fs.StringVar(&o.base, "base", "", "review git diff `rev`..HEAD in the current repository (with --head, rev..head)")
		group(fs.Lookup("base"), groupInput)
		fs.StringVar(&o.head, "head", "", "the end of the --base range (default HEAD)")
		group(fs.Lookup("head"), groupInput)
		fs.StringVar(&o.pr, "pr", "", "review pull request `N` (a number, or its URL) through the GitHub CLI, gh: its diff, with its title and description as context")
		group(fs.Lookup("pr"), groupInput)
		fs.StringArrayVar(&o.context, "context", nil, "a `file` that helps to understand the change, shown to the models but not reviewed; repeat for several")
		group(fs.Lookup("context"), groupInput)
	}
	if spec.textContext {
		fs.StringArrayVar(&o.context, "context", nil, "a `file` or folder the models read with the question (text files, 256 KiB in all); repeat for several")
		group(fs.Lookup("context"), groupInput)
	}
	if spec.agent {
		fs.StringArrayVar(&o.context, "context", nil, "a `file` the models read before planning, beside what quorum reads of the repository; repeat for several")
		group(fs.Lookup("context"), groupInput)
		fs.StringVar(&o.solo, "solo", "", "this `model` plans alone: no other proposals, no vote")
		group(fs.Lookup("solo"), groupParticipants)
		fs.StringVar(&o.executor, "executor", "", "the `model` that carries the plan out (default: the plan's author)")
		group(fs.Lookup("executor"), groupParticipants)
		fs.IntVar(&o.maxRevisions, "max-revisions", quorum.DefaultMaxRevisions, "at most `N` rounds of plan review and revision; 0 for none")
		group(fs.Lookup("max-revisions"), groupRun)
		fs.BoolVarP(&o.yes, "yes", "y", false, "approve the plan without asking (off a terminal, without it, quorum agent stops after planning)")
		group(fs.Lookup("yes"), groupRun)
		fs.StringVar(&o.approve, "approve", "", "how shell commands are decided: `mode` ask (you, on a terminal: the default there), quorum (the other models vote: the default elsewhere), auto (all, in the worktree) or never")
		group(fs.Lookup("approve"), groupRun)
		fs.BoolVar(&o.allowURL, "allow-url", false, "let the executor fetch URLs (denied by default)")
		group(fs.Lookup("allow-url"), groupRun)
		fs.IntVar(&o.maxToolCalls, "max-tool-calls", quorum.DefaultMaxToolCalls, "stop the executor after `N` tool calls")
		group(fs.Lookup("max-tool-calls"), groupRun)
		fs.IntVar(&o.fixRounds, "fix-rounds", quorum.DefaultFixRounds, "at most `N` rounds of fixing the final review's findings; 0 for none")
		group(fs.Lookup("fix-rounds"), groupRun)
		fs.StringVar(&o.worktreeRoot, "worktree-root", "", "make the agent's worktree under `dir` (default: $XDG_STATE_HOME/quorum/worktrees)")
		group(fs.Lookup("worktree-root"), groupRun)
	}
	if spec.quorum {
		b.setting("phase-timeout", "phase-timeout", "", "time limit of each phase; a model still running then is dropped", groupRun)
	}
	if spec.timeout {
		b.setting("timeout", "timeout", "", "time limit of the whole command", groupRun)
	}
	if spec.quorum {
		b.setting("concurrency", "concurrency", "j", "at most `N` sessions open at once", groupRun)
		fs.StringVar(&o.transcript, "transcript", "", "write every prompt, reply and event as JSON lines to `file`")
		group(fs.Lookup("transcript"), groupRun)
	}
	if spec.output {
		b.setting("output", "output", "o", "result `format`: text, markdown or json", groupOutput)
		fs.StringSliceVar(&o.json, "json", nil, "print these `fields` of the result as JSON (a comma-separated list; --json with no list names them)")
		group(fs.Lookup("json"), groupOutput)
		fs.StringVar(&o.jq, "jq", "", "filter the JSON output with a jq `expression` (built in, as gh's --jq; strings print as text)")
		group(fs.Lookup("jq"), groupOutput)
		fs.StringVar(&o.template, "template", "", "format the JSON output with a Go `template`, as gh's --template ({{.status}}, {{range .result.models}}…{{end}}, join)")
		group(fs.Lookup("template"), groupOutput)
	}
	if spec.quorum {
		fs.StringSliceVar(&o.show, "show", nil, "show only these `sections` of the report, comma-separated (default: all)")
		group(fs.Lookup("show"), groupOutput)
	}
	if spec.change || spec.agent {
		b.setting("fail-on", "fail-on", "", "exit 1 when a finding is at least this `severity`: blocking, major, minor, or none", groupOutput)
		fs.StringVar(&o.sarif, "sarif", "", "also write the findings as SARIF 2.1.0 to `file`, for code scanning in CI")
		group(fs.Lookup("sarif"), groupOutput)
	}
	if spec.progress {
		fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
		group(fs.Lookup("quiet"), groupOutput)
		b.setting("no-color", "no-color", "", "no colour (also: NO_COLOR set to anything)", groupOutput)
	}
	if spec.connects {
		fs.BoolVar(&o.sim, "sim", false, "run on the simulated Copilot server built into quorum: no CLI or login needed")
		group(fs.Lookup("sim"), groupCLI)
	}
	if spec.connects || spec.cliPath {
		b.setting("cli-path", "cli-path", "", "the Copilot CLI `binary` (default: $COPILOT_CLI_PATH, then copilot on PATH)", groupCLI)
	}
	if spec.connects {
		b.setting("cli-args", "cli-args", "", "extra `arguments` for the Copilot CLI, separated by spaces", groupCLI)
		b.setting("transport", "transport", "", "the `transport` to the CLI: stdio or tcp", groupCLI)
		fs.BoolVarP(&o.verbose, "verbose", "v", false, "structured logs of the connection on stderr")
		group(fs.Lookup("verbose"), groupCLI)
	}
	fs.StringVar(&o.configPath, "config", "", "the config `file` (default: $QUORUM_CONFIG, then quorum/config.json in the user config directory)")
	group(fs.Lookup("config"), groupConfig)
}

// flagValues are the settings given as flags on cmd's command line.
func flagValues(fs *pflag.FlagSet) []config.FlagValue {
	var out []config.FlagValue
	fs.Visit(func(f *pflag.Flag) {
		key := first(f.Annotations[annSetting])
		if key == "" {
			return
		}
		v := f.Value.String()
		switch val := f.Value.(type) {
		case pflag.SliceValue:
			v = strings.Join(val.GetSlice(), ",")
		}
		if first(f.Annotations[annInvert]) != "" {
			b, _ := strconv.ParseBool(v)
			v = strconv.FormatBool(!b)
		}
		out = append(out, config.FlagValue{Key: key, Value: v, Flag: "--" + f.Name})
	})
	return out
}

func first(xs []string) string {
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
