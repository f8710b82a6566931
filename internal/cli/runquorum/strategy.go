package runquorum

import (
	"context"
	"fmt"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/input"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
)

// This file is the table of the Strategy commands (discuss, plan, debate,
// review): what differs between them, how each reads its input and runs,
// and the help they share. runquorum.go runs them.

// Kind is what differs between discuss, plan, debate and review.
type Kind struct {
	Noun string // "discussion", "plan", "debate", "review"
	Verb string // for the progress header: "discussing"
	// moderated: the run has a moderator; sides: its models argue for
	// and against, by their place in the list (debate).
	Moderated, Sides bool
	// Phases are the run's phases beyond those of discuss, plan, debate
	// and review (the agent's), for the progress view's phase column.
	Phases []quorum.Phase
	// input reads what the run is about (a topic, a task, a claim, a
	// change) before anything connects, so that a mistake in it is told at
	// once, and returns the run.
	Input func(inv *cmdutil.Invocation) (Input, error)
}

// Input is one run of a Strategy, its input read.
type Input struct {
	// about describes the input in the progress header ("2 files, +18
	// −1"); empty for a text.
	About string
	Run   Runner
	// after, if set, runs once the result is printed, with whether the run
	// completed: review writes its SARIF file and applies --fail-on. Its
	// error sets the exit status unless the run failed or was interrupted.
	After func(result any, complete bool) error
	// status, if set, names how a run that ended without error ended, in
	// place of ok or degraded: an agent that stopped at its gate is
	// "planned" or "rejected". "" keeps the usual status.
	Status func(result any) string
	// Estimate works out what the run will cost with a config, before it
	// starts (quorum.EstimateDiscuss, …).
	Estimate func(quorum.Config) (quorum.Estimate, error)
}

// Runner runs a Strategy whose input was read, against b: it returns the
// report of the result, the result's Outcome and the result itself for
// JSON; all three nil only when quorum refused the arguments (no result).
type Runner func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error)

// Strategy is the Runner of one of quorum's strategies: run runs it, rep
// makes the report of its result, out finds the result's Outcome.
func Strategy[R any](run func(context.Context, quorum.Backend, quorum.Config) (*R, error), rep func(*R) report.Report, out func(*R) *quorum.Outcome) Runner {
	return func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error) {
		r, err := run(ctx, b, cfg)
		if r == nil {
			return nil, nil, nil, err
		}
		return rep(r), out(r), r, err
	}
}

// TextInput is the input of a Strategy about a text (quorum.Discuss,
// Plan, Debate): the one argument, named what in messages ("topic"), read
// by topic.
func TextInput[R any](what string, run func(context.Context, quorum.Backend, string, quorum.Config) (*R, error), estimate func(quorum.Config) (quorum.Estimate, error), rep func(*R) report.Report, out func(*R) *quorum.Outcome) func(*cmdutil.Invocation) (Input, error) {
	return func(inv *cmdutil.Invocation) (Input, error) {
		q, err := input.Topic(inv, what)
		if err != nil {
			return Input{}, err
		}
		g, err := input.WithContext(inv, q, what)
		if err != nil {
			return Input{}, err
		}
		inv.Given = g
		return Input{Run: Strategy(func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*R, error) {
			return run(ctx, b, g.Text, cfg)
		}, rep, out), Estimate: estimate}, nil
	}
}

// OutputHelp is the part of a Strategy's help about what it prints and
// how it ends: schema names its result type in the quorum package, exits
// its exit codes (ExitHelp for all but review).
func OutputHelp(schema, exits string) string {
	return fmt.Sprintf(`
A model that fails or times out (--phase-timeout) is left out of the later
phases and the run goes on, degraded; the run fails when fewer than two
models are left.

The result goes to stdout, progress to stderr (on a terminal one live line
per model, otherwise plain lines; nothing with -q). On a terminal the report
is rendered Markdown wrapped to its width; otherwise plain text. -o markdown
prints the Markdown; -o json prints one object,
  {"command", "simulated", "status", "error", "result"}
whose result is the quorum package's result schema (go doc
github.com/quorum-go/quorum/quorum %s). --json FIELDS prints only those
fields. A run that fails or is interrupted still prints what it collected,
in every format, marked incomplete with the reason (status "failed" or
"interrupted"); the exit status says what happened.

%s`, schema, exits)
}

// ExitHelp are the exit codes of discuss, plan and debate.
const ExitHelp = `Exit codes: 0 success; 1 failure; 2 usage error; 3 degraded (the result
names each failure); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM):
turns aborted, sessions destroyed, the CLI stopped.`
