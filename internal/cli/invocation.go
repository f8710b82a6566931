package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/config"
	"github.com/quorum-go/quorum/quorum"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
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
	// observe, if set, sees every quorum event after the progress view,
	// and ask's streamed text as Delta events. Only a test's run function
	// sets it (runWrapper), to stop a run at a chosen point.
	observe func(quorum.Event)
	// interject runs f with the progress view held still, so that f may
	// write to stderr and read an answer from stdin (an agent's gate):
	// set by runQuorum, nil before.
	interject func(f func())
}

// runWrapper runs a command's code, run, on a prepared invocation in its
// place: tests inject one to watch the run (see env.run).
type runWrapper func(inv *invocation, run func(*invocation) error) error

// around is run, inside w when w is set.
func (w runWrapper) around(run func(*invocation) error) func(*invocation) error {
	if w == nil {
		return run
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
		if err == nil {
			err = run(inv)
		}
		if err != nil {
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
	loaded, err := config.Load(config.Layers{Path: o.configPath, Getenv: e.getenv, ConfigDir: e.configDir, Flags: flagValues(cmd.Flags())})
	inv.loaded, inv.s, inv.loadErr = loaded, loaded.Settings, err
	var fe *config.FlagError
	switch {
	case errors.As(err, &fe):
		return inv, &UsageError{Msg: err.Error()}
	case err != nil && !inv.lenient():
		return inv, err
	}
	if len(o.json) > 0 {
		inv.s.Output = "json"
		if err := inv.checkJSONFields(); err != nil {
			return inv, err
		}
	}
	if len(o.show) > 0 {
		if inv.s.Output == "json" {
			return inv, usagef("--show picks sections of the text and markdown reports; with JSON output, pick fields with --json")
		}
		for _, s := range o.show {
			if !slices.Contains(inv.sections(), s) {
				return inv, usagef("--show: no section %q in the %s report (sections: %s)", s, inv.name, strings.Join(inv.sections(), ", "))
			}
		}
	}
	if o.verbose {
		inv.log = zerolog.New(zerolog.ConsoleWriter{Out: e.stderr, NoColor: inv.noColor()}).
			With().Timestamp().Logger().Level(zerolog.DebugLevel)
	}
	return inv, nil
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
	tty, _ := terminalWidth(inv.e.stderr)
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
