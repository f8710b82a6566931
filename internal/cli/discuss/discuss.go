// Package discuss is quorum discuss: every model answers, they review each other anonymously, a moderator synthesises. Its command is built once per run and used
// by one goroutine.
package discuss

import (
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// DiscussOptions are what quorum discuss runs with: its invocation (the
// participants, the run's limits, the connection, the output).
type DiscussOptions struct {
	*cmdutil.Invocation
}

// NewCmdDiscuss is quorum discuss; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's, which may call
// Run with an observer).
func NewCmdDiscuss(f *cmdutil.Factory, runF func(*DiscussOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "discuss <topic>",
		Short: "A discussion: every model answers, they review each other, a moderator synthesises",
		Long: `Every participant answers in its own session, all at once. The answers are
relabelled Response A, B, ... so nobody knows who wrote what; each participant
scores and ranks the others' answers (never its own); the mean score and the
Borda count, self-votes excluded, rank them; and the moderator writes a
synthesis: conclusion, key points, consensus, disagreements. If the moderator
fails, the best-ranked participant takes its place.

The report shows every stage: each answer under its model's name, each
review, the ranking, the synthesis (with the letters mapped to models), then
usage per model. --show picks sections: answers, reviews, ranking,
synthesis, usage.

Participants default to the first three models the CLI offers (with --sim:
sim-alpha, sim-beta and sim-gamma, moderated by sim-moderator). A topic of
- is read from stdin (up to 1 MiB).
Text piped on stdin beside the topic (git diff | quorum discuss "…"), and
--context files and folders (their text files, 256 KiB in all), are given
with it as context, marked as material and not instructions; the report
lists what was read and what was left out.
` + runquorum.OutputHelp("DiscussResult", runquorum.ExitHelp),
		Example: `  $ quorum discuss "Should we shard the database?"
  $ quorum discuss -m gpt-5,claude-sonnet-4.5 --moderator gpt-5 "Tabs or spaces?"
  $ quorum discuss --show synthesis,ranking "Is Rust worth it for us?"
  $ git diff | quorum discuss -o markdown - > review.md`,
		Args: cmdutil.ExactArgs("a topic (quote it; - reads it from stdin)"),
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Models()
		b.Moderator("the `model` that writes the synthesis (default: the first participant)")
		b.PeerReview()
		b.TextContext()
		b.PhaseTimeout()
		b.Timeout()
		b.Sessions()
		b.Premium(true)
		b.Output()
		b.Show()
		b.Progress()
		b.Connects()
	}, Result: quorum.DiscussResult{}, Sections: report.DiscussSections},
		func(inv *cmdutil.Invocation) error {
			opts := &DiscussOptions{Invocation: inv}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts, nil)
		})
}

// Run runs the discussion. observe, when not nil, sees every quorum event after
// the progress view; the command passes nil.
func Run(opts *DiscussOptions, observe func(quorum.Progress)) error {
	return runquorum.Run(opts.Invocation, kind, observe)
}

// kind is what a discussion is to runquorum.
var kind = runquorum.Kind{Noun: "discussion", Verb: "discussing", Moderated: true,
	Input: runquorum.TextInput("topic", quorum.Discuss, quorum.EstimateDiscuss, report.Discuss, func(d *quorum.DiscussResult) *quorum.Outcome { return &d.Outcome })}
