package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/report"
	"github.com/quorum-go/quorum/internal/cli/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// quorumKind is what differs between discuss, plan, debate and review.
type quorumKind struct {
	noun     string // "discussion", "plan", "debate", "review"
	verb     string // for the progress header: "discussing"
	sections []string
	// moderated: the run has a moderator; sides: its models argue for
	// and against, by their place in the list (debate).
	moderated, sides bool
	// input reads what the run is about (a topic, a task, a claim, a
	// change) before anything connects, so that a mistake in it is told at
	// once, and returns the run.
	input func(inv *invocation) (quorumRun, error)
}

// quorumRun is one run of a strategy, its input read.
type quorumRun struct {
	// about describes the input in the progress header ("2 files, +18
	// −1"); empty for a text.
	about string
	run   func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error)
	// after, if set, runs once the result is printed, with whether the run
	// completed: review writes its SARIF file and applies --fail-on. Its
	// error sets the exit status unless the run failed or was interrupted.
	after func(result any, complete bool) error
}

var quorumKinds = map[string]quorumKind{
	"discuss": {noun: "discussion", verb: "discussing", moderated: true, sections: report.DiscussSections,
		input: textInput("topic", func(ctx context.Context, b quorum.Backend, topic string, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error) {
			d, err := quorum.Discuss(ctx, b, topic, cfg)
			return finished(d, err, report.Discuss, func(d *quorum.DiscussResult) *quorum.Outcome { return &d.Outcome })
		})},
	"plan": {noun: "plan", verb: "planning", sections: report.PlanSections,
		input: textInput("task", func(ctx context.Context, b quorum.Backend, task string, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error) {
			p, err := quorum.Plan(ctx, b, task, cfg)
			return finished(p, err, report.Plan, func(p *quorum.PlanResult) *quorum.Outcome { return &p.Outcome })
		})},
	"debate": {noun: "debate", verb: "debating", moderated: true, sides: true, sections: report.DebateSections,
		input: textInput("claim", func(ctx context.Context, b quorum.Backend, claim string, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error) {
			d, err := quorum.Debate(ctx, b, claim, cfg)
			return finished(d, err, report.Debate, func(d *quorum.DebateResult) *quorum.Outcome { return &d.Outcome })
		})},
	"review": {noun: "review", verb: "reviewing", sections: report.ReviewSections, input: reviewInput},
}

// textInput is the input of a strategy about a text: the one argument,
// named what in messages ("topic"), read by topic.
func textInput(what string, run func(ctx context.Context, b quorum.Backend, text string, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error)) func(*invocation) (quorumRun, error) {
	return func(inv *invocation) (quorumRun, error) {
		text, err := inv.topic(what)
		if err != nil {
			return quorumRun{}, err
		}
		return quorumRun{run: func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (report.Report, *quorum.Outcome, any, error) {
			return run(ctx, b, text, cfg)
		}}, nil
	}
}

// finished hands a strategy's result to runQuorum: its report, its
// Outcome and the result itself for JSON; nothing but the error when the
// arguments were invalid (no result).
func finished[R any](r *R, err error, rep func(*R) report.Report, out func(*R) *quorum.Outcome) (report.Report, *quorum.Outcome, any, error) {
	if r == nil {
		return nil, nil, nil, err
	}
	return rep(r), out(r), r, err
}

// outputHelp is the part of a strategy's help about what it prints and
// how it ends: schema names its result type in the quorum package, exits
// its exit codes (exitHelp for all but review).
func outputHelp(schema, exits string) string {
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

// exitHelp are the exit codes of discuss, plan and debate.
const exitHelp = `Exit codes: 0 success; 1 failure; 2 usage error; 3 degraded (the result
names each failure); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM):
turns aborted, sessions destroyed, the CLI stopped.`

func (e *env) discussCmd() *cobra.Command {
	return e.newCommand(&cobra.Command{
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
` + outputHelp("DiscussResult", exitHelp),
		Example: `  $ quorum discuss "Should we shard the database?"
  $ quorum discuss -m gpt-5,claude-sonnet-4.5 --moderator gpt-5 "Tabs or spaces?"
  $ quorum discuss --show synthesis,ranking "Is Rust worth it for us?"
  $ git diff | quorum discuss -o markdown - > review.md`,
		Args: exactArgs("a topic (quote it; - reads it from stdin)"),
	}, cmdSpec{quorum: true, moderated: true, peerReview: true, connects: true, output: true, progress: true, timeout: true},
		func(inv *invocation) error { return inv.runQuorum(quorumKinds["discuss"]) })
}

func (e *env) planCmd() *cobra.Command {
	return e.newCommand(&cobra.Command{
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
` + outputHelp("PlanResult", exitHelp),
		Example: `  $ quorum plan "Migrate our CI to GitHub Actions"
  $ quorum plan -m gpt-5 -m claude-sonnet-4.5 --show winner "Add SSO to the admin app"
  $ quorum plan -q --json winner,standings "Split the monolith" | jq .`,
		Args: exactArgs("a task (quote it; - reads it from stdin)"),
	}, cmdSpec{quorum: true, connects: true, output: true, progress: true, timeout: true},
		func(inv *invocation) error { return inv.runQuorum(quorumKinds["plan"]) })
}

// runQuorum runs a strategy: read its input, open the transcript,
// connect, resolve the models, run with live progress on stderr, then
// print the result on stdout, also when the run failed or was
// interrupted: whatever was collected is printed, marked incomplete with
// the reason, and the error says what happened.
func (inv *invocation) runQuorum(k quorumKind) (err error) {
	parent := inv.cmd.Context()
	qr, err := k.input(inv)
	var nothing *nothingToReview
	if errors.As(err, &nothing) {
		fmt.Fprintln(inv.e.stderr, "quorum: "+sanitize.Line(nothing.Error()))
		return nil
	}
	if err != nil {
		return err
	}
	timeout := inv.s.Timeout
	ctx, cancel := context.WithTimeoutCause(parent, timeout, fmt.Errorf(
		"%w: quorum %s took longer than --timeout (%v); raise it, or lower --phase-timeout so that slow models are dropped sooner",
		quorum.ErrTimeout, inv.name, timeout))
	defer cancel()

	var tr *quorum.Transcript
	if path := inv.o.transcript; path != "" {
		f, cerr := createPrivate(path)
		if cerr != nil {
			return fmt.Errorf("cannot create the transcript file: %w", cerr)
		}
		tr = quorum.NewTranscript(f)
		defer func() {
			cerr := f.Close()
			if werr := tr.Err(); werr != nil {
				cerr = werr
			}
			switch {
			case cerr == nil:
			case err == nil:
				err = fmt.Errorf("writing the transcript %s: %w", path, cerr)
			default: // the run's own error goes first
				fmt.Fprintf(inv.e.stderr, "quorum: writing the transcript %s: %v\n", path, cerr)
			}
		}()
	}

	c, closeClient, err := inv.connect(ctx)
	if err != nil {
		return err
	}
	defer closeClient()
	models, moderator, err := inv.resolveQuorum(ctx, c)
	if err != nil {
		return err
	}
	if !k.moderated {
		moderator = ""
	}

	view := inv.newProgress(inv.header(k, qr.about, models, moderator))
	defer view.close()
	progress := view.event
	if hook := inv.e.onEvent; hook != nil {
		progress = func(ev quorum.Event) { view.event(ev); hook(ev) }
	}
	cfg := quorum.Config{
		Models:             models,
		Moderator:          moderator,
		NoReview:           !inv.s.Review,
		AnswersPerReviewer: inv.s.Reviewers,
		Rounds:             inv.s.Rounds,
		PhaseTimeout:       inv.s.PhaseTimeout,
		Timeout:            timeout,
		MaxConcurrency:     inv.s.Concurrency,
		Progress:           progress,
		Transcript:         tr,
	}
	rep, out, result, runErr := qr.run(ctx, quorum.Copilot(c), cfg)
	view.close()
	if rep == nil {
		if errors.Is(runErr, quorum.ErrInvalidConfig) {
			return usagef("%s", strings.TrimPrefix(runErr.Error(), "quorum: "))
		}
		return runErr
	}

	var in *Interrupted
	if runErr != nil && errors.Is(parent.Err(), context.Canceled) { // Ctrl-C, SIGTERM
		in = interrupted(parent)
		runErr = in
	}
	status, incomplete := statusOf(k, out, runErr, in)
	if err := inv.printResult(rep, result, status, incomplete); err != nil {
		return err
	}
	var afterErr error
	if qr.after != nil {
		afterErr = qr.after(result, runErr == nil)
	}
	switch {
	case runErr != nil:
		if afterErr != nil { // the run's own error goes first
			fmt.Fprintln(inv.e.stderr, "quorum: "+sanitize.Text(afterErr.Error()))
		}
		if in != nil {
			return in
		}
		return &runError{noun: k.noun, err: runErr, failures: out.Failures, printed: inv.reportOnTerminal()}
	case afterErr != nil:
		return afterErr
	case out.Degraded:
		return ErrDegraded
	}
	return nil
}

// Statuses of a result in the JSON envelope.
const (
	statusOK          = "ok"
	statusDegraded    = "degraded"
	statusFailed      = "failed"
	statusInterrupted = "interrupted"
)

// statusOf is how a run ended, for the JSON envelope, and, when it did not
// finish, why, in a sentence for the report.
func statusOf(k quorumKind, out *quorum.Outcome, runErr error, in *Interrupted) (status, incomplete string) {
	phase := "before its first phase"
	if n := len(out.Phases); n > 0 {
		phase = "in the " + string(out.Phases[n-1].Phase) + " phase"
	}
	var tf *quorum.TooFewError
	switch {
	case in != nil:
		return statusInterrupted, fmt.Sprintf("the %s was %s %s.", k.noun, in.what(), phase)
	case errors.As(runErr, &tf):
		return statusFailed, "the " + k.noun + " failed: " + tooFewText(tf) + "."
	case errors.Is(runErr, quorum.ErrTimeout):
		return statusFailed, fmt.Sprintf("the %s took longer than --timeout and was stopped %s.", k.noun, phase)
	case runErr != nil:
		return statusFailed, fmt.Sprintf("the %s failed %s: %s.", k.noun, phase, strings.TrimPrefix(runErr.Error(), "quorum: "))
	case out.Degraded:
		return statusDegraded, ""
	}
	return statusOK, ""
}

func tooFewText(tf *quorum.TooFewError) string {
	switch {
	case tf.Phase == quorum.PhaseSynthesis:
		return "nobody was left to write the synthesis"
	case tf.Phase == quorum.PhaseVerdict:
		return "nobody was left to give the verdict"
	case tf.Role != "":
		return fmt.Sprintf("no %s was left after the %s phase", tf.Role, tf.Phase)
	}
	return fmt.Sprintf("too few models left after the %s phase (%d left, %d needed)", tf.Phase, len(tf.Left), tf.Need)
}

// header is the first progress line: who takes part, on which side, and
// what about when it is not a text.
func (inv *invocation) header(k quorumKind, about string, models []string, moderator string) string {
	who := slices.Clone(models)
	if k.sides {
		for i := range who {
			side := "for"
			if i%2 == 1 {
				side = "against"
			}
			who[i] += " (" + side + ")"
		}
	}
	h := "quorum: " + k.verb
	if about != "" {
		h += " " + about
	}
	h += " with " + strings.Join(who, ", ")
	if k.moderated {
		if moderator == "" {
			moderator = models[0]
		}
		h += "; moderator " + moderator
	}
	if inv.simulated() {
		h += " (simulated)"
	}
	return h
}

// runError is a run that gave no usable result: what happened and every
// model's failure, each distinct error once. When the report with the
// same failures is on the terminal just above, they are not repeated.
type runError struct {
	noun     string
	err      error
	failures []quorum.Failure
	printed  bool
}

func (e *runError) Error() string {
	var b strings.Builder
	var tf *quorum.TooFewError
	if errors.As(e.err, &tf) {
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, tooFewText(tf))
	} else {
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, strings.TrimPrefix(e.err.Error(), "quorum: "))
	}
	if e.printed {
		b.WriteString(" (the failures are listed above)")
	} else {
		for _, l := range report.FailureLines(e.failures) {
			b.WriteString("\n  ✗ " + l)
		}
	}
	if tf != nil {
		b.WriteString("\nCheck the model ids (quorum models) and the CLI's login (copilot login), raise --phase-timeout, or add models with -m.")
	}
	return b.String()
}

func (e *runError) Unwrap() error { return e.err }

// createPrivate creates (or truncates) a file only its owner can read:
// a transcript holds every prompt and answer of a run. An existing file
// is narrowed to 0600 too.
func createPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
