// Package review is quorum review: every model reviews a change (a diff
// file, stdin, a git range or a pull request through gh), the findings
// are merged and ranked, --fail-on gates CI and --sarif writes code
// scanning's file. Its command is built once per run and used by one
// goroutine.
package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// reviewExits are review's exit codes: a CI gate.
const reviewExits = `Exit codes, for CI: 0 no finding at or above --fail-on (default blocking;
none never fails on findings); 1 findings at or above it (they are listed
on stderr), or the review failed; 2 usage error (a bad range, a binary or
too large diff); 3 degraded: some models dropped out and no finding
reached --fail-on; 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
An empty diff is nothing to review: exit 0, and an empty SARIF file.`

// ReviewOptions are what quorum review runs with: its invocation (the
// change's source, --context, --fail-on, --sarif, the participants, the
// connection, the output).
type ReviewOptions struct {
	*cmdutil.Invocation
	// Base and Head are the git range to review (--base, --head); PR a
	// pull request (--pr), read through gh.
	Base, Head, PR string
}

// NewCmdReview is quorum review; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's, which may call
// Run with an observer).
func NewCmdReview(f *cmdutil.Factory, runF func(*ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{}
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "review [diff-file]",
		Short: "Review a change: every model finds problems in a diff, the findings are merged and ranked",
		Long: `Every participant reviews the change on its own and reports findings: file,
lines, severity (blocking, major or minor), category, explanation and a
suggested fix. The same finding from several models counts once, with the
models that agree; findings are ranked by severity, then by agreement.

The change is a unified diff: a file, - for stdin, with --base (and
--head, default HEAD) git diff base..head in the current repository, or
with --pr N (or the pull request's URL) the pull request's diff through
the GitHub CLI, gh, its title and description given as context.
--context adds files that help to understand it. Binary diffs, and changes
over 1 MiB with their context files, are refused.

The report shows each model's findings, then the merged findings, then
usage per model. --show picks sections: reviews, findings, usage. --sarif
FILE also writes the findings as SARIF 2.1.0, which code scanning (GitHub,
GitLab, Azure DevOps) shows on the lines of the change, also for a review
that failed or was interrupted (marked unsuccessful).

Participants default to the first three models the CLI offers (with --sim:
sim-alpha, sim-beta and sim-gamma).
` + runquorum.OutputHelp("ReviewResult", reviewExits),
		Example: `  $ quorum review --base main
  $ quorum review --pr 123 --sarif review.sarif
  $ git diff HEAD~3 | quorum review - --fail-on major
  $ quorum review change.diff --context docs/design.md --sarif review.sarif -q`,
		Args: maxArgs(1, "a diff file (- reads it from stdin)"),
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Models()
		fs := b.FS
		fs.StringVar(&opts.Base, "base", "", "review git diff `rev`..HEAD in the current repository (with --head, rev..head)")
		cmdutil.Group(fs.Lookup("base"), cmdutil.GroupInput)
		fs.StringVar(&opts.Head, "head", "", "the end of the --base range (default HEAD)")
		cmdutil.Group(fs.Lookup("head"), cmdutil.GroupInput)
		fs.StringVar(&opts.PR, "pr", "", "review pull request `N` (a number, or its URL) through the GitHub CLI, gh: its diff, with its title and description as context")
		cmdutil.Group(fs.Lookup("pr"), cmdutil.GroupInput)
		b.ChangeContext()
		b.PhaseTimeout()
		b.Timeout()
		b.Sessions()
		b.Premium(false)
		b.Output()
		b.Show()
		b.Findings()
		b.Progress()
		b.Connects()
	}, Result: quorum.ReviewResult{}, Sections: report.ReviewSections},
		func(inv *cmdutil.Invocation) error {
			opts.Invocation = inv
			if runF != nil {
				return runF(opts)
			}
			return Run(opts, nil)
		})
}

// Run runs the review. observe, when not nil, sees every quorum event
// after the progress view; the command passes nil.
func Run(opts *ReviewOptions, observe func(quorum.Progress)) error {
	kind := runquorum.Kind{Noun: "review", Verb: "reviewing",
		Input: func(*cmdutil.Invocation) (runquorum.Input, error) { return reviewInput(opts) }}
	return runquorum.Run(opts.Invocation, kind, observe)
}

// reviewInput reads the change, checks it, and returns the review's run,
// which writes the SARIF file and applies --fail-on after the report.
func reviewInput(opts *ReviewOptions) (runquorum.Input, error) {
	inv := opts.Invocation
	ch, source, err := readChange(opts)
	if err != nil {
		return runquorum.Input{}, err
	}
	if strings.TrimSpace(ch.Diff) == "" {
		if err := runquorum.WriteSARIF(inv, nil, true); err != nil {
			return runquorum.Input{}, err
		}
		return runquorum.Input{}, &runquorum.NothingToReview{Source: source}
	}
	if err := ch.Validate(); err != nil {
		msg := strings.TrimPrefix(err.Error(), quorum.ErrInvalidConfig.Error()+": ")
		if strings.HasPrefix(msg, "the context file ") || strings.HasPrefix(msg, "context file ") || strings.Contains(msg, "with its context files") {
			return runquorum.Input{}, cmdutil.Usagef("%s", msg) // about --context, not the diff
		}
		return runquorum.Input{}, cmdutil.Usagef("%s: %s", source, msg)
	}
	sum, err := ch.Summary()
	if err != nil {
		return runquorum.Input{}, cmdutil.Usagef("%s: %v", source, err)
	}
	failOn := inv.Settings.FailOn
	return runquorum.Input{
		About: fmt.Sprintf("%s (+%d −%d)", runquorum.Plural(len(sum.Files), "file"), sum.Added, sum.Deleted),
		Run: runquorum.Strategy(func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.ReviewResult, error) {
			return quorum.Review(ctx, b, ch, cfg)
		}, report.Review, func(r *quorum.ReviewResult) *quorum.Outcome { return &r.Outcome }),
		Estimate: quorum.EstimateReview,
		After: func(result any, complete bool) error {
			r := result.(*quorum.ReviewResult)
			if err := runquorum.WriteSARIF(inv, r, complete); err != nil {
				return err
			}
			if !complete {
				return nil
			}
			return runquorum.Gate(r.Findings, failOn)
		},
	}, nil
}

// maxArgs is the Args of a command that takes at most n arguments, named
// names in messages.
func maxArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) <= n {
			return nil
		}
		return cmdutil.Usagef("%s takes at most %s, got %d arguments (%s)", cmd.CommandPath(), names, len(args), cmdutil.QuoteAll(args))
	}
}
