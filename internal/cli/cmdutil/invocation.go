package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Invocation is one command, its command line read: the settings, read
// once from every layer into their typed form, and the other options. It
// carries the factory the command was built from. A command's code owns
// its invocation: it is not shared between goroutines, but Interject may
// be called from the goroutine that reads the person's answer.
type Invocation struct {
	*Factory
	Cmd  *cobra.Command
	Name string // the command's path after quorum: "discuss", "config set"
	Spec Spec
	// Args are the command's positional arguments.
	Args []string
	Opts *Options
	// Settings are the settings; Loaded says where each came from.
	Settings config.Settings
	Loaded   *config.Loaded
	// LoadErr is what was wrong with the configuration, for the commands
	// that go on with it (lenient).
	LoadErr error
	Log     zerolog.Logger
	// Given is the question with the context given with it, for the
	// report.
	Given Given
	// JQ is --jq's compiled expression, Template --template's; nil
	// without them.
	JQ       *gojq.Code
	Template *template.Template
	// PrintedJSON says that the command printed its JSON envelope: one
	// that fails before it does prints one with its error (NewCommand).
	PrintedJSON bool
	// Interject runs f with the progress view held still, so that f may
	// write to stderr and read an answer from stdin (an agent's gate):
	// set by the strategy runner, nil before.
	Interject func(f func())
}

// Given is a question with the context given with it.
type Given struct {
	// Text is what the models get: the question, then the context.
	Text string
	// Question is the question as the user gave it; Lines lists the
	// context for the report. Both are empty without context.
	Question string
	Lines    []string
}

// CommandError is an error returned by a command's own code, as opposed
// to one from cobra's parsing of the command line, which is a usage error.
type CommandError struct{ Err error }

func (e *CommandError) Error() string { return e.Err.Error() }
func (e *CommandError) Unwrap() error { return e.Err }

// Annotations of a command: its --json fields and --show sections, for
// help and completion, which have only the cobra command.
const (
	annJSONFields = "quorum-json-fields"
	annSections   = "quorum-sections"
)

// NewCommand makes a command of f whose flags follow spec; its code, run,
// runs with the invocation prepared.
func NewCommand(f *Factory, c *cobra.Command, spec Spec, run func(*Invocation) error) *cobra.Command {
	o := &Options{}
	b := FlagBuilder{FS: c.Flags(), o: o}
	if spec.Flags != nil {
		spec.Flags(b)
	}
	b.config()
	c.Flags().SortFlags = false // help lists flags in the order they are declared
	output := c.Flags().Lookup("output") != nil
	if output {
		c.MarkFlagsMutuallyExclusive("output", "json")
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	if output {
		c.Annotations[annJSONFields] = strings.Join(JSONFields(spec.Result), ",")
	}
	c.Annotations[annSections] = strings.Join(spec.Sections, ",")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		inv, err := prepare(f, cmd, args, spec, o)
		// A mistake on the command line gets no envelope: the flags that
		// would shape it (--json's fields) may be the mistake.
		cmdLine := errors.As(err, new(*UsageError))
		if err == nil {
			err = run(inv)
		}
		if err != nil {
			if output && !cmdLine && inv.JSONOutput() && !inv.PrintedJSON {
				inv.failedJSON(err)
			}
			return &CommandError{err}
		}
		return nil
	}
	return c
}

// JSONFieldsOf lists the fields --json accepts for cmd, sorted; none for
// a command that prints no result.
func JSONFieldsOf(cmd *cobra.Command) []string { return splitList(cmd.Annotations[annJSONFields]) }

// SectionsOf lists the report sections of cmd, for --show.
func SectionsOf(cmd *cobra.Command) []string { return splitList(cmd.Annotations[annSections]) }

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// prepare reads the settings (defaults, file, environment, flags) and
// checks the options that depend on them. A broken config file or
// environment variable is not a mistake on the command line (exit 1,
// not 2); a bad flag value is.
func prepare(f *Factory, cmd *cobra.Command, args []string, spec Spec, o *Options) (*Invocation, error) {
	inv := &Invocation{Factory: f, Cmd: cmd, Spec: spec, Args: args, Opts: o, Log: zerolog.Nop()}
	inv.Name = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	loaded, err := config.Load(config.Layers{Path: o.ConfigPath, Getenv: f.Getenv, ConfigDir: f.ConfigDir, Flags: FlagValues(cmd.Flags())})
	inv.Loaded, inv.Settings, inv.LoadErr = loaded, loaded.Settings, err
	if inv.uses("sim") {
		o.Sim = inv.Settings.Sim
	}
	if err := inv.settingsProblems(); err != nil {
		return inv, err
	}
	inv.setAsideForSim()
	if o.JQ != "" || o.Template != "" {
		flag := "--jq"
		if o.Template != "" {
			flag = "--template"
		}
		switch {
		case o.JQ != "" && o.Template != "":
			return inv, Usagef("--jq and --template both shape the JSON output; give one")
		case inv.FlagGiven("output") && inv.Settings.Output != "json":
			return inv, Usagef("%s works on the JSON output; it cannot be used with -o %s", flag, inv.Settings.Output)
		}
		var err error
		if o.JQ != "" {
			inv.JQ, err = compileJQ(o.JQ)
		} else {
			inv.Template, err = compileTemplate(o.Template)
		}
		if err != nil {
			return inv, err
		}
		inv.Settings.Output = "json"
	}
	if len(o.JSON) == 0 && inv.FlagGiven("json") {
		return inv, Usagef("--json needs the fields to print, comma-separated; %s has: %s", cmd.CommandPath(), strings.Join(JSONFields(spec.Result), ", "))
	}
	if len(o.JSON) > 0 {
		inv.Settings.Output = "json"
		if err := inv.checkJSONFields(); err != nil {
			return inv, err
		}
	}
	if len(o.Show) > 0 {
		if inv.Settings.Output == "json" {
			return inv, Usagef("--show picks sections of the text and markdown reports; with JSON output, pick fields with --json")
		}
		for _, s := range o.Show {
			if !slices.Contains(inv.Sections(), s) {
				return inv, Usagef("--show: no section %q in the %s report (sections: %s)", s, inv.Name, strings.Join(inv.Sections(), ", "))
			}
		}
	}
	if o.Verbose {
		inv.Log = zerolog.New(zerolog.ConsoleWriter{Out: f.ErrOut, NoColor: inv.NoColor()}).
			With().Timestamp().Logger().Level(zerolog.DebugLevel)
	}
	return inv, nil
}

// settingsProblems is what stops the command in its settings: a flag
// with a bad value (a usage error), or a bad value in the file or the
// environment of a setting the command uses (exit 1), every one at once.
// A bad value of a setting the command does not use is only a warning:
// quorum discuss has no rounds, so a wrong rounds in the file does not
// stop it. config and version report every problem and go on (lenient).
func (inv *Invocation) settingsProblems() error {
	var flags, concerned, other []error
	for _, p := range inv.Loaded.Problems {
		var fe *config.FlagError
		key := config.ProblemKey(p)
		switch {
		case errors.As(p, &fe):
			flags = append(flags, p)
		case key == "" || inv.uses(key):
			concerned = append(concerned, p)
		default:
			other = append(other, p)
		}
	}
	switch {
	case len(flags) > 0:
		return &UsageError{Msg: config.Problems(flags).Error()}
	case inv.lenient():
		return nil
	}
	for _, p := range other {
		fmt.Fprintf(inv.ErrOut, "quorum: warning: %s; quorum %s does not use %s, the commands that do will not start until it is fixed\n",
			sanitize.Text(p.Error()), inv.Name, config.ProblemKey(p))
	}
	if len(concerned) > 0 {
		return &settingsError{problems: concerned}
	}
	return nil
}

// uses says whether the command uses the setting key: whether one of
// its flags sets it.
func (inv *Invocation) uses(key string) bool {
	used := false
	inv.Cmd.Flags().VisitAll(func(f *pflag.Flag) {
		used = used || First(f.Annotations[AnnSetting]) == key
	})
	return used
}

// settingsError is a configuration that stops a command: the bad values
// of the settings it uses, in the file or the environment, with how to
// repair them.
type settingsError struct{ problems []error }

func (e *settingsError) Error() string {
	var b strings.Builder
	if len(e.problems) == 1 {
		b.WriteString(e.problems[0].Error())
	} else {
		fmt.Fprintf(&b, "%d problems in the settings:", len(e.problems))
		for _, p := range e.problems {
			b.WriteString("\n  " + p.Error())
		}
	}
	var keys []string
	env := false
	for _, p := range e.problems {
		var fe *config.FileError
		switch {
		case errors.As(p, &fe):
			if fe.Key != "" && !slices.Contains(keys, fe.Key) {
				keys = append(keys, fe.Key)
			}
		default:
			env = true
		}
	}
	switch {
	case len(keys) == 1:
		fmt.Fprintf(&b, "\nRepair it with quorum config set %s VALUE, or go back to the default with quorum config unset %s.", keys[0], keys[0])
	case len(keys) > 1:
		fmt.Fprintf(&b, "\nRepair each with quorum config set SETTING VALUE, or go back to its default with quorum config unset SETTING (%s).", strings.Join(keys, ", "))
	}
	if env {
		b.WriteString("\nCorrect the environment variable, or unset it.")
	}
	return b.String()
}

// JSONOutput says whether the command prints JSON: -o json or --json,
// from whichever layer, even when another setting is broken.
func (inv *Invocation) JSONOutput() bool {
	return inv.Settings.Output == "json" || len(inv.Opts.JSON) > 0 || inv.Opts.JQ != "" || inv.Opts.Template != ""
}

// failedJSON prints the envelope of a command that failed before it had a
// result: status failed (or interrupted) with the error, result null.
// Programs reading stdout then always get one envelope.
func (inv *Invocation) failedJSON(err error) {
	status := StatusFailed
	var in *Interrupted
	if errors.As(err, &in) || errors.Is(inv.Cmd.Context().Err(), context.Canceled) {
		status = StatusInterrupted
	}
	msg := strings.TrimPrefix(err.Error(), "quorum: ")
	if ue := (*UsageError)(nil); errors.As(err, &ue) {
		msg = ue.Msg
	}
	_ = inv.WriteJSON(nil, status, report.Plain(msg))
}

// lenient says whether the command goes on with a broken configuration,
// reporting it: config shows and repairs it, version reports it.
func (inv *Invocation) lenient() bool {
	return inv.Name == "version" || strings.HasPrefix(inv.Name, "config")
}

// NoColor reports whether colour is off on stderr: asked for, or not a
// terminal.
func (inv *Invocation) NoColor() bool {
	if inv.Settings.NoColor {
		return true
	}
	tty, _ := iostreams.TerminalWidth(inv.ErrOut)
	return !tty
}

// FlagGiven reports whether flag was on the command line.
func (inv *Invocation) FlagGiven(flag string) bool {
	f := inv.Cmd.Flags().Lookup(flag)
	return f != nil && f.Changed
}

// Simulated says whether results come from the simulator (--sim, or the
// sim setting), for labels.
func (inv *Invocation) Simulated() bool { return inv.Opts.Sim }

// Sections are the report sections of the command, for --show.
func (inv *Invocation) Sections() []string { return inv.Spec.Sections }
