package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// invocation is one command, its command line read: the settings, read
// once from every layer into their typed form, and the other options.
type invocation struct {
	e    *env
	cmd  *cobra.Command
	name string // the command's path after quorum: "discuss", "config set"
	spec cmdSpec
	args []string
	o    *opts
	// s are the settings; loaded says where each came from.
	s      config.Settings
	loaded *config.Loaded
	// loadErr is what was wrong with the configuration, for the commands
	// that go on with it (lenient).
	loadErr error
	log     zerolog.Logger
	// given is the question with the context given with it (context.go),
	// for the report.
	given given
	// jq is --jq's compiled expression, template --template's; nil
	// without them.
	jq       *gojq.Code
	template *template.Template
	// printedJSON says that the command printed its JSON envelope: one
	// that fails before it does prints one with its error (newCommand).
	printedJSON bool
	// interject runs f with the progress view held still, so that f may
	// write to stderr and read an answer from stdin (an agent's gate):
	// set by runQuorum, nil before.
	interject func(f func())
}

// modelRun is the code of a command that runs models (discuss, plan,
// debate, review, agent, ask) on a prepared invocation. observe,
// when not nil, sees every quorum event after the progress view, and
// ask's streamed text as Delta events; the command itself passes nil.
type modelRun func(inv *invocation, observe func(quorum.Event)) error

// runWrapper runs a command's code, run, on a prepared invocation in its
// place, as cli/cli's tests inject a command's run function: a test's
// wrapper passes run an observer, to watch the run and stop it at a
// chosen point (see env.run). Nothing in the command sets one.
type runWrapper func(inv *invocation, run modelRun) error

// around is run, inside w when w is set, and with no observer otherwise.
func (w runWrapper) around(run modelRun) func(*invocation) error {
	if w == nil {
		return func(inv *invocation) error { return run(inv, nil) }
	}
	return func(inv *invocation) error { return w(inv, run) }
}

// newCommand makes a command whose flags follow spec; its code runs with
// the invocation prepared.
func (e *env) newCommand(c *cobra.Command, spec cmdSpec, run func(*invocation) error) *cobra.Command {
	o := &opts{}
	flagBuilder{fs: c.Flags(), o: o}.declare(spec)
	c.Flags().SortFlags = false // help lists flags in the order they are declared
	if spec.output {
		c.MarkFlagsMutuallyExclusive("output", "json")
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		inv, err := e.prepare(cmd, args, spec, o)
		// A mistake on the command line gets no envelope: the flags that
		// would shape it (--json's fields) may be the mistake.
		cmdLine := errors.As(err, new(*cmdutil.UsageError))
		if err == nil {
			err = run(inv)
		}
		if err != nil {
			if spec.output && !cmdLine && inv.jsonOutput() && !inv.printedJSON {
				inv.failedJSON(err)
			}
			return &commandError{err}
		}
		return nil
	}
	return c
}

// prepare reads the settings (defaults, file, environment, flags) and
// checks the options that depend on them. A broken config file or
// environment variable is not a mistake on the command line (exit 1,
// not 2); a bad flag value is.
func (e *env) prepare(cmd *cobra.Command, args []string, spec cmdSpec, o *opts) (*invocation, error) {
	inv := &invocation{e: e, cmd: cmd, spec: spec, args: args, o: o, log: zerolog.Nop()}
	inv.name = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	loaded, err := config.Load(config.Layers{Path: o.configPath, Getenv: e.Getenv, ConfigDir: e.ConfigDir, Flags: flagValues(cmd.Flags())})
	inv.loaded, inv.s, inv.loadErr = loaded, loaded.Settings, err
	if err := inv.settingsProblems(); err != nil {
		return inv, err
	}
	if o.jq != "" || o.template != "" {
		flag := "--jq"
		if o.template != "" {
			flag = "--template"
		}
		switch {
		case o.jq != "" && o.template != "":
			return inv, cmdutil.Usagef("--jq and --template both shape the JSON output; give one")
		case inv.flagGiven("output") && inv.s.Output != "json":
			return inv, cmdutil.Usagef("%s works on the JSON output; it cannot be used with -o %s", flag, inv.s.Output)
		}
		var err error
		if o.jq != "" {
			inv.jq, err = compileJQ(o.jq)
		} else {
			inv.template, err = compileTemplate(o.template)
		}
		if err != nil {
			return inv, err
		}
		inv.s.Output = "json"
	}
	if len(o.json) == 0 && inv.flagGiven("json") {
		return inv, cmdutil.Usagef("--json needs the fields to print, comma-separated; %s has: %s", cmd.CommandPath(), strings.Join(jsonFields(inv.name), ", "))
	}
	if len(o.json) > 0 {
		inv.s.Output = "json"
		if err := inv.checkJSONFields(); err != nil {
			return inv, err
		}
	}
	if len(o.show) > 0 {
		if inv.s.Output == "json" {
			return inv, cmdutil.Usagef("--show picks sections of the text and markdown reports; with JSON output, pick fields with --json")
		}
		for _, s := range o.show {
			if !slices.Contains(inv.sections(), s) {
				return inv, cmdutil.Usagef("--show: no section %q in the %s report (sections: %s)", s, inv.name, strings.Join(inv.sections(), ", "))
			}
		}
	}
	if o.verbose {
		inv.log = zerolog.New(zerolog.ConsoleWriter{Out: e.ErrOut, NoColor: inv.noColor()}).
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
func (inv *invocation) settingsProblems() error {
	var flags, concerned, other []error
	for _, p := range inv.loaded.Problems {
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
		return &cmdutil.UsageError{Msg: config.Problems(flags).Error()}
	case inv.lenient():
		return nil
	}
	for _, p := range other {
		fmt.Fprintf(inv.e.ErrOut, "quorum: warning: %s; quorum %s does not use %s, the commands that do will not start until it is fixed\n",
			sanitize.Text(p.Error()), inv.name, config.ProblemKey(p))
	}
	if len(concerned) > 0 {
		return &settingsError{problems: concerned}
	}
	return nil
}

// uses says whether the command uses the setting key: whether one of
// its flags sets it.
func (inv *invocation) uses(key string) bool {
	used := false
	inv.cmd.Flags().VisitAll(func(f *pflag.Flag) {
		used = used || first(f.Annotations[annSetting]) == key
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

// jsonOutput says whether the command prints JSON: -o json or --json,
// from whichever layer, even when another setting is broken.
func (inv *invocation) jsonOutput() bool {
	return inv.s.Output == "json" || len(inv.o.json) > 0 || inv.o.jq != "" || inv.o.template != ""
}

// failedJSON prints the envelope of a command that failed before it had a
// result: status failed (or interrupted) with the error, result null.
// Programs reading stdout then always get one envelope.
func (inv *invocation) failedJSON(err error) {
	status := statusFailed
	var in *cmdutil.Interrupted
	if errors.As(err, &in) || errors.Is(inv.cmd.Context().Err(), context.Canceled) {
		status = statusInterrupted
	}
	msg := strings.TrimPrefix(err.Error(), "quorum: ")
	if ue := (*cmdutil.UsageError)(nil); errors.As(err, &ue) {
		msg = ue.Msg
	}
	_ = inv.writeJSON(nil, status, report.Plain(msg))
}

// lenient says whether the command goes on with a broken configuration,
// reporting it: config shows and repairs it, version reports it.
func (inv *invocation) lenient() bool {
	return inv.name == "version" || strings.HasPrefix(inv.name, "config")
}

// noColor reports whether colour is off on stderr: asked for, or not a
// terminal.
func (inv *invocation) noColor() bool {
	if inv.s.NoColor {
		return true
	}
	tty, _ := iostreams.TerminalWidth(inv.e.ErrOut)
	return !tty
}

// flagGiven reports whether flag was on the command line.
func (inv *invocation) flagGiven(flag string) bool {
	f := inv.cmd.Flags().Lookup(flag)
	return f != nil && f.Changed
}

// simulated says whether results come from the simulator, for labels.
func (inv *invocation) simulated() bool { return inv.o.sim }

// sections are the report sections of the command, for --show.
func (inv *invocation) sections() []string { return sectionsOf(inv.name) }
