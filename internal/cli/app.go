// Package cli is the quorum command, in production: flags, configuration, terminal output
// and exit codes. cmd/quorum's main only calls Run and ExitCode, so every
// command runs in-process in tests with its own streams and environment.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
	"github.com/rs/zerolog"
)

// env is everything a command takes from its surroundings: the factory
// through which tests inject streams, environment and config location.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	configDir      func() (string, error)
	// simPace, if set, overrides the simulated models' streaming pace.
	simPace *pace
	// simModels, if set, replaces the models --sim serves (tests script
	// failing or hanging participants with it).
	simModels func(pace) []sim.Model
	// onEvent, if set, sees every quorum event after the progress view
	// (tests cancel a run from it).
	onEvent func(quorum.Event)
}

// Run runs the quorum command with args (without the program name). It
// prints what a person needs to stderr, results to stdout, and returns the
// error that ExitCode turns into the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, configDir: os.UserConfigDir}
	return e.run(ctx, args)
}

type command struct {
	summary string
	usage   string
	quorum  bool // takes the discussion and planning flags
	run     func(ctx context.Context, inv *invocation) error
	// long, if set, is the command's help after the summary.
	long string
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"discuss":    {"a quorum discussion: every model answers, they review each other, a moderator synthesises", `discuss [flags] "topic"   (a topic of - is read from stdin)`, true, runDiscuss, discussHelp},
		"plan":       {"ensemble planning: every model proposes a plan, the others score it, the best wins", `plan [flags] "task"   (a task of - is read from stdin)`, true, runPlan, planHelp},
		"ask":        {"ask one model, streamed straight to the terminal", `ask [flags] "question"`, false, runAsk, ""},
		"models":     {"list the models the Copilot CLI offers", "models [flags]", false, runModels, ""},
		"config":     {"show the effective configuration and where each value came from", "config [flags]", true, runConfig, ""},
		"version":    {"print the version", "version", false, runVersion, ""},
		"completion": {"print a shell completion script", "completion bash|zsh|fish", false, runCompletion, ""},
	}
}

func (e *env) run(ctx context.Context, args []string) error {
	err := e.dispatch(ctx, args)
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintln(e.stderr, "quorum: interrupted; sessions were aborted and the CLI stopped")
		err = errInterrupted
	case errors.Is(err, ErrDegraded):
		fmt.Fprintln(e.stderr, "quorum: "+err.Error())
	default:
		fmt.Fprintln(e.stderr, "quorum: "+err.Error())
		var ue *UsageError
		if errors.As(err, &ue) {
			fmt.Fprintln(e.stderr, "Run 'quorum help' for usage.")
		}
	}
	return err
}

func (e *env) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		e.help(e.stderr)
		return usagef("no command given")
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprintf(e.stdout, "usage: quorum %s\n\n%s\n", c.usage, c.summary)
				if c.long != "" {
					fmt.Fprintf(e.stdout, "\n%s", c.long)
				}
				return nil
			}
		}
		e.help(e.stdout)
		return nil
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		return usagef("unknown command %q (commands: %s)", name, strings.Join(commandNames(), ", "))
	}
	inv, err := e.setup(name, c, args[1:])
	if err != nil {
		return err
	}
	if inv.o.help {
		fmt.Fprintf(e.stdout, "usage: quorum %s\n\n%s\n", c.usage, c.summary)
		if c.long != "" {
			fmt.Fprintf(e.stdout, "\n%s", c.long)
		}
		fmt.Fprintf(e.stdout, "\nflags:\n")
		inv.fs.SetOutput(e.stdout)
		inv.fs.PrintDefaults()
		return nil
	}
	return c.run(ctx, inv)
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (e *env) help(w io.Writer) {
	fmt.Fprintln(w, "quorum runs several Copilot models on one question at once.")
	fmt.Fprintln(w, "\nusage: quorum <command> [flags] [args]\n\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, `
Add --sim to run on the simulated Copilot server built into quorum: no
Copilot CLI or login needed, and every output is marked as simulated.

Configuration: flags beat environment variables (QUORUM_*), which beat the
config file (quorum/config.json in your user config directory), which beats
the built-in defaults; 'quorum config' shows the effective values.

Exit codes: 0 success, 1 failure, 2 usage error, 3 degraded result (some
models dropped out; the result is still printed), 130 interrupted.`)
}

// invocation is one parsed command line.
type invocation struct {
	e    *env
	name string
	fs   interface {
		PrintDefaults()
		SetOutput(io.Writer)
	}
	o    opts
	cfg  *config
	args []string
	log  zerolog.Logger
}

func (e *env) setup(name string, c command, args []string) (*invocation, error) {
	inv := &invocation{e: e, name: name}
	var given []flagValue
	fs := commandFlags(name, e.stderr, &inv.o, &given, c.quorum)
	inv.fs = fs
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, usagef("%v", err)
	}
	inv.args = pos
	if inv.o.help {
		return inv, nil
	}
	if inv.cfg, err = loadConfig(e, inv.o.configPath); err != nil {
		return nil, err
	}
	for _, g := range given {
		if err := inv.cfg.set(g.key, g.value, sourceFlag, g.flag); err != nil {
			return nil, err
		}
	}
	inv.log = zerolog.Nop()
	if inv.o.verbose {
		inv.log = zerolog.New(zerolog.ConsoleWriter{Out: e.stderr, NoColor: inv.noColor()}).
			With().Timestamp().Logger().Level(zerolog.DebugLevel)
	}
	return inv, nil
}

// noColor reports whether colour is off: asked for, or not a terminal.
func (inv *invocation) noColor() bool {
	if inv.cfg != nil && inv.cfg.boolean("no-color") {
		return true
	}
	tty, _ := terminalWidth(inv.e.stderr)
	return !tty
}

// topic returns the one positional argument, reading stdin for "-".
func (inv *invocation) topic(what string) (string, error) {
	if len(inv.args) != 1 {
		return "", usagef("quorum %s takes exactly one %s (quote it; use - to read it from stdin), got %d arguments", inv.name, what, len(inv.args))
	}
	t := inv.args[0]
	if t == "-" {
		b, err := io.ReadAll(io.LimitReader(inv.e.stdin, 1<<20))
		if err != nil {
			return "", fmt.Errorf("reading the %s from stdin: %w", what, err)
		}
		t = string(b)
	}
	if t = strings.TrimSpace(t); t == "" {
		return "", usagef("the %s is empty", what)
	}
	return t, nil
}
