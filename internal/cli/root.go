// Package cli is the root of the quorum command: it fills the factory
// (cmdutil.Factory) for the process, builds the command tree from the
// packages of the commands (discuss, plan, debate, review, agent, ask,
// chatcmd, models, configcmd, version, mcpcmd), and owns what belongs to
// the whole tree: help, completion, signals, how an error is printed and
// the exit code. cmd/quorum's main only calls Run and ExitCode, so every
// command runs in-process in tests with its own streams and environment.
// A Run is one command line: it is not shared between goroutines.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/agent"
	"github.com/quorum-go/quorum/internal/cli/ask"
	"github.com/quorum-go/quorum/internal/cli/chatcmd"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/configcmd"
	"github.com/quorum-go/quorum/internal/cli/debate"
	"github.com/quorum-go/quorum/internal/cli/discuss"
	"github.com/quorum-go/quorum/internal/cli/mcpcmd"
	"github.com/quorum-go/quorum/internal/cli/models"
	"github.com/quorum-go/quorum/internal/cli/plan"
	"github.com/quorum-go/quorum/internal/cli/review"
	"github.com/quorum-go/quorum/internal/cli/version"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/spf13/cobra"
)

// env is the root's hold on the factory (cmdutil.Factory): the tree, help
// and completion are built as its methods.
type env struct{ *cmdutil.Factory }

// Run runs the quorum command with args (without the program name). It
// prints what a person needs to stderr, results to stdout, and returns the
// error that ExitCode turns into the exit status. Cancelling ctx stops the
// command as Ctrl-C does; a cause of type *cmdutil.Interrupted names the signal.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{&cmdutil.Factory{In: stdin, Out: stdout, ErrOut: stderr, Getenv: os.Getenv, ConfigDir: os.UserConfigDir,
		SimModels: func() []sim.Model { return simModels(defaultSimPace) }}}
	return e.run(ctx, args, nil)
}

// run runs the command line args. runF, when set, stands around the code
// of each command that runs models (discuss, plan, debate, review, agent,
// ask): tests inject it, as cli/cli's tests inject a command's run
// function, to hand the run an observer of its events (modelRun) and stop
// it at a chosen point. Run passes nil.
func (e *env) run(ctx context.Context, args []string, runF runWrapper) error {
	// The version is the build's: a Factory names it only to hand it
	// to the commands that report it.
	if e.Version == "" {
		e.Version = buildVersion()
	}
	root := e.newRoot(runF)
	e.CommandLine = args
	root.SetArgs(valuesNotFlags(args))
	root.SetIn(e.In)
	root.SetOut(e.Out)
	root.SetErr(e.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	var ce *cmdutil.CommandError
	switch {
	case err == nil:
	case errors.As(err, &ce):
		err = ce.Err
	default: // cobra's: the command line is wrong
		var ue *cmdutil.UsageError
		if !errors.As(err, &ue) {
			err = &cmdutil.UsageError{Msg: err.Error()}
		}
	}
	var in *cmdutil.Interrupted
	if err != nil && errors.Is(ctx.Err(), context.Canceled) && !errors.As(err, &in) {
		// Stopped by Ctrl-C or SIGTERM, whatever the error it caused.
		err = cmdutil.InterruptedBy(ctx)
	}
	e.printError(cmd, err)
	return err
}

// valuesNotFlags keeps the value given to quorum config set as a value
// when it starts with a dash — a negative number (concurrency -5), or the
// CLI's own flags (cli-args --disable-builtin-mcps) — which pflag would
// take for quorum's flags: a "--" goes before it, so that it is checked
// and written, or refused, as a value. Other commands take no such
// arguments.
func valuesNotFlags(args []string) []string {
	var words []int // where the words that are not flags are
	for i, a := range args {
		if a == "--" {
			return args
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, i)
			continue
		}
		own := a == "-h" || a == "--help" || a == "--config" || strings.HasPrefix(a, "--config=")
		if len(words) >= 3 && args[words[0]] == "config" && args[words[1]] == "set" && !own {
			return slices.Concat(args[:i], []string{"--"}, args[i:])
		}
	}
	return args
}

// printError tells the person at the terminal what went wrong, on stderr,
// once: a usage error with where to find help, an interruption with what
// was cleaned up. Error text can carry what the CLI or a model said, so it
// is cleaned first.
func (e *env) printError(cmd *cobra.Command, err error) {
	if err == nil {
		return
	}
	var ue *cmdutil.UsageError
	var in *cmdutil.Interrupted
	switch {
	case errors.As(err, &in):
		fmt.Fprintf(e.ErrOut, "quorum: %s; turns were aborted, sessions destroyed and the CLI stopped\n", in)
	case errors.As(err, &ue):
		fmt.Fprintln(e.ErrOut, "quorum: "+sanitize.Text(err.Error()))
		path := ue.Cmd
		if path == "" && cmd != nil {
			path = cmd.CommandPath()
		}
		if path == "" {
			path = "quorum"
		}
		fmt.Fprintf(e.ErrOut, "Run '%s --help' for usage.\n", path)
	default:
		fmt.Fprintln(e.ErrOut, "quorum: "+strings.TrimPrefix(sanitize.Text(report.Plain(err.Error())), "quorum: "))
	}
}

// newRoot builds the command tree from e; runF stands around the commands
// that run models (see wrapped).
func (e *env) newRoot(runF runWrapper) *cobra.Command {
	root := &cobra.Command{
		Use:   "quorum <command>",
		Short: "Run several Copilot models on one question at once.",
		Long: `quorum runs several GitHub Copilot models on one question at once, over one
Copilot CLI: a discussion with anonymous peer review and a synthesis,
ensemble planning with votes, a structured debate with an objection
ledger and a verdict, or a review of a code change with merged findings
and exit codes for CI.`,
		Example: `  $ quorum discuss --sim "Should we adopt Go for our CLI tools?"
  $ quorum discuss -m gpt-5 -m claude-sonnet-4.5 "Should we shard the database?"
  $ quorum plan "Migrate our CI to GitHub Actions" -o markdown > plan.md
  $ quorum debate "We should rewrite the billing service in Rust"
  $ quorum review --base main --sarif review.sarif
  $ quorum discuss -q --json synthesis "Tabs or spaces?" | jq -r .synthesis.conclusion`,
		Version:       e.Version,
		SilenceUsage:  true, // a mistake gets one line and a pointer to --help, not a dump
		SilenceErrors: true, // Run prints errors, once, its way
		Args:          cmdutil.NoArgs,
		// quorum alone is asking what it does: its help, on stdout, exit 0
		// (as gh does); a mistyped command is still a usage error.
		RunE: func(cmd *cobra.Command, args []string) error {
			e.help(cmd, e.Out)
			return nil
		},
	}
	root.SetVersionTemplate("quorum {{.Version}}\n")
	// --version alone: in the commands, -v is --verbose.
	root.Flags().Bool("version", false, "print the version")
	root.AddCommand(
		discuss.NewCmdDiscuss(e.Factory, wrapped(runF, func(o *discuss.DiscussOptions) *cmdutil.Invocation { return o.Invocation }, discuss.Run)),
		plan.NewCmdPlan(e.Factory, wrapped(runF, func(o *plan.PlanOptions) *cmdutil.Invocation { return o.Invocation }, plan.Run)),
		debate.NewCmdDebate(e.Factory, wrapped(runF, func(o *debate.DebateOptions) *cmdutil.Invocation { return o.Invocation }, debate.Run)),
		review.NewCmdReview(e.Factory, wrapped(runF, func(o *review.ReviewOptions) *cmdutil.Invocation { return o.Invocation }, review.Run)),
		agent.NewCmdAgent(e.Factory, wrapped(runF, func(o *agent.AgentOptions) *cmdutil.Invocation { return o.Invocation }, agent.Run)),
		ask.NewCmdAsk(e.Factory, wrapped(runF, func(o *ask.AskOptions) *cmdutil.Invocation { return o.Invocation }, ask.Run)),
		chatcmd.NewCmdChat(e.Factory, nil), chatcmd.NewCmdHistory(e.Factory, nil), chatcmd.NewCmdShow(e.Factory, nil),
		models.NewCmdModels(e.Factory, nil), configcmd.NewCmdConfig(e.Factory, nil), version.NewCmdVersion(e.Factory, e.Version, nil))
	root.AddCommand(mcpcmd.NewCmdMCP(e.Factory, e.Version, nil))
	root.SetHelpCommand(e.helpCmd())
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { e.help(cmd, e.Out) })
	root.SetFlagErrorFunc(e.flagError)
	root.InitDefaultCompletionCmd()
	e.setupCompletion(root)
	return root
}
