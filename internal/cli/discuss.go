package cli

import (
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

func (e *env) discussCmd(runF runWrapper) *cobra.Command {
	return cmdutil.NewCommand(e.Factory, &cobra.Command{
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
` + outputHelp("DiscussResult", exitHelp),
		Example: `  $ quorum discuss "Should we shard the database?"
  $ quorum discuss -m gpt-5,claude-sonnet-4.5 --moderator gpt-5 "Tabs or spaces?"
  $ quorum discuss --show synthesis,ranking "Is Rust worth it for us?"
  $ git diff | quorum discuss -o markdown - > review.md`,
		Args: cmdutil.ExactArgs("a topic (quote it; - reads it from stdin)"),
	}, cmdutil.Spec{Quorum: true, TextContext: true, Moderated: true, PeerReview: true, Connects: true, Output: true, Progress: true, Timeout: true, Result: quorum.DiscussResult{}, Sections: report.DiscussSections},
		runF.around(func(inv *cmdutil.Invocation, observe func(quorum.Event)) error {
			return runQuorum(inv, discussKind, observe)
		}))
}
