// Package plan is quorum plan: ensemble planning, every model proposes a plan and they vote. Its command is built once per run and used
// by one goroutine.
package plan

import (
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// PlanOptions are what quorum plan runs with: its invocation (the
// participants, the run's limits, the connection, the output).
type PlanOptions struct {
	*cmdutil.Invocation
}

// NewCmdPlan is quorum plan; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's, which may call
// Run with an observer).
func NewCmdPlan(f *cmdutil.Factory, runF func(*PlanOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "plan <task>",
		Short: "Ensemble planning: every model proposes a plan, the others score it, the best wins",
		Long: `Every participant proposes a plan (title, numbered steps, risks), all at once.
Each plan is then scored from 1 to 10 by every other participant; the highest
mean score wins, ties going to the Borda count, then to fewer failed votes,
then to the order of the models.

The report shows every proposal under its model's name, every vote with its
reasoning, the standings, then the winning plan and usage per model. --show
picks sections: proposals, votes, standings, winner, usage.

Participants default to the first three models the CLI offers (with --sim:
sim-alpha, sim-beta and sim-gamma). A task of - is read from stdin (up to
1 MiB).
Text piped on stdin beside the task (git diff | quorum plan "…"), and
--context files and folders (their text files, 256 KiB in all), are given
with it as context, marked as material and not instructions; the report
lists what was read and what was left out.
` + runquorum.OutputHelp("PlanResult", runquorum.ExitHelp),
		Example: `  $ quorum plan "Migrate our CI to GitHub Actions"
  $ quorum plan -m gpt-5 -m claude-sonnet-4.5 --show winner "Add SSO to the admin app"
  $ quorum plan -q --json winner,standings "Split the monolith" | jq .`,
		Args: cmdutil.ExactArgs("a task (quote it; - reads it from stdin)"),
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Models()
		b.TextContext()
		b.PhaseTimeout()
		b.Timeout()
		b.Sessions()
		b.Premium(true)
		b.Output()
		b.Show()
		b.Progress()
		b.Connects()
	}, Result: quorum.PlanResult{}, Sections: report.PlanSections},
		func(inv *cmdutil.Invocation) error {
			opts := &PlanOptions{Invocation: inv}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts, nil)
		})
}

// Run runs the planning. observe, when not nil, sees every quorum event after
// the progress view; the command passes nil.
func Run(opts *PlanOptions, observe func(quorum.Progress)) error {
	return runquorum.Run(opts.Invocation, kind, observe)
}

// kind is what planning is to runquorum.
var kind = runquorum.Kind{Noun: "plan", Verb: "planning",
	Input: runquorum.TextInput("task", quorum.Plan, quorum.EstimatePlan, report.Plan, func(p *quorum.PlanResult) *quorum.Outcome { return &p.Outcome })}
