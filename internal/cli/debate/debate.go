// Package debate is quorum debate: a structured debate with an objection ledger and a verdict. Its command is built once per run and used
// by one goroutine.
package debate

import (
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// DebateOptions are what quorum debate runs with: its invocation (the
// participants, the run's limits, the connection, the output).
type DebateOptions struct {
	*cmdutil.Invocation
}

// NewCmdDebate is quorum debate; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's, which may call
// Run with an observer).
func NewCmdDebate(f *cmdutil.Factory, runF func(*DebateOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "debate <claim>",
		Short: "A structured debate: proponents and opponents, an objection ledger, a moderator's verdict",
		Long: `The participants take sides by their place in the list: the first, third, ...
argue for the claim (proponents), the second, fourth, ... against it
(opponents); each is known to the others by a label only ("Proponent A").
In the opening, all at once, proponents make their case and opponents raise
objections, each blocking, major or minor, into a ledger (O1, O2, ...).
Then come the rounds (--rounds, default 2), both sides at once again, each
answering the other side's latest arguments: proponents answer the standing
objections; opponents rule on their own ("answered", "withdrawn" or
"standing") and may raise new ones. The debate ends early as soon as no
blocking objection stands. The moderator then rules on the answers of the
last round and gives the verdict: the position (for, against or
undecided), why, the objections still standing by severity, and what would
change it. If the moderator fails, the first debater still in the debate
takes its place.

The report shows every turn (arguments, answers, rulings, objections), the
ledger, the verdict, then usage per model. --show picks sections:
arguments, ledger, verdict, usage.

Participants default to the first three models the CLI offers (with --sim:
sim-alpha and sim-gamma for, sim-beta against, moderated by sim-moderator).
A claim of - is read from stdin (up to 1 MiB).
Text piped on stdin beside the claim (git diff | quorum debate "…"), and
--context files and folders (their text files, 256 KiB in all), are given
with it as context, marked as material and not instructions; the report
lists what was read and what was left out.
` + runquorum.OutputHelp("DebateResult", runquorum.ExitHelp),
		Example: `  $ quorum debate "We should rewrite the billing service in Rust"
  $ quorum debate -m gpt-5,claude-sonnet-4.5 --moderator gemini-2.5-pro --rounds 3 "Tabs beat spaces"
  $ quorum debate -q --json verdict,ledger "Monorepos scale" | jq .verdict.position`,
		Args: cmdutil.ExactArgs("a claim (quote it; - reads it from stdin)"),
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Models()
		b.Moderator("the `model` that gives the verdict (default: the first participant)")
		b.Rounds()
		b.TextContext()
		b.PhaseTimeout()
		b.Timeout()
		b.Sessions()
		b.Premium(false)
		b.Output()
		b.Show()
		b.Progress()
		b.Connects()
	}, Result: quorum.DebateResult{}, Sections: report.DebateSections},
		func(inv *cmdutil.Invocation) error {
			opts := &DebateOptions{Invocation: inv}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts, nil)
		})
}

// Run runs the debate. observe, when not nil, sees every quorum event after
// the progress view; the command passes nil.
func Run(opts *DebateOptions, observe func(quorum.Progress)) error {
	return runquorum.Run(opts.Invocation, kind, observe)
}

// kind is what a debate is to runquorum.
var kind = runquorum.Kind{Noun: "debate", Verb: "debating", Moderated: true, Sides: true,
	Input: runquorum.TextInput("claim", quorum.Debate, quorum.EstimateDebate, report.Debate, func(d *quorum.DebateResult) *quorum.Outcome { return &d.Outcome })}
