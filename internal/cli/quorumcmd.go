package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quorum-go/quorum/quorum"
)

// The long help of discuss and plan.
const (
	discussHelp = `Every participant answers in its own session, all at once. The answers are
relabelled Response A, B, ... so nobody knows who wrote what; each
participant scores and ranks the others' answers (never its own); the mean
score and the Borda count, self-votes excluded, rank them; and the moderator
writes a synthesis: Conclusion, Key points, Consensus, Disagreements. If
the moderator fails, the best-ranked participant takes its place.

Participants default to the first three models the CLI offers (with --sim:
sim-alpha, sim-beta and sim-gamma, moderated by sim-moderator); the
moderator defaults to the first participant.
` + quorumOutputHelp
	planHelp = `Every participant proposes a plan (title, numbered steps, risks), all at
once. Each plan is then scored from 1 to 10 by every other participant; the
highest mean score wins, ties going to the Borda count, then to fewer failed
votes, then to the order of the models.

Participants default to the first three models the CLI offers (with --sim:
sim-alpha, sim-beta and sim-gamma).
` + quorumOutputHelp
	quorumOutputHelp = `
A model that fails or times out (--phase-timeout) is left out of the later
phases and the run goes on, degraded; the run fails when fewer than two
models are left.

The result goes to stdout, progress to stderr: on a terminal one live line
per model, otherwise plain lines; nothing with -q. Output formats (-o):
text (default) and markdown print the result for people; json prints one
object,
  {"simulated": false, "command": "discuss" or "plan", "result": {...}}
whose result is the quorum package's result schema: for discuss question,
models, answers, reviews, ranking, ranked, synthesis; for plan task, models,
proposals, votes, standings, winner, reason; for both degraded, failures,
phases, calls, usage, usageByModel, startedAt, elapsedMs and error (set
when the run failed). Durations are milliseconds in fields ending in Ms;
lists are [] when empty, never null. --sim results say "simulated": true,
and text and markdown start with a line saying so.

--transcript FILE writes every prompt, reply and event as JSON lines.

Exit codes: 0 success; 1 failure (nothing usable: every model's error is
printed, and with -o json the partial result with its error); 2 usage error;
3 degraded (the result is printed with a Degraded section naming each
failure); 130 interrupted (turns aborted, sessions destroyed, CLI stopped).
`
)

// report is a finished (or failed) discussion or plan, ready to print.
type report interface {
	outcome() *quorum.Outcome
	// result is what the JSON output holds under "result".
	result() any
	text(w io.Writer)
	markdown(w io.Writer)
}

// quorumKind is what differs between discuss and plan.
type quorumKind struct {
	what string // the positional argument: "topic" or "task"
	noun string // "discussion" or "plan"
	verb string // for the progress header: "discussing" or "planning"
	run  func(ctx context.Context, b quorum.Backend, topic string, cfg quorum.Config) (report, error)
	// moderated: the run has a moderator.
	moderated bool
}

var (
	discussKind = quorumKind{what: "topic", noun: "discussion", verb: "discussing", moderated: true,
		run: func(ctx context.Context, b quorum.Backend, topic string, cfg quorum.Config) (report, error) {
			d, err := quorum.Discuss(ctx, b, topic, cfg)
			if d == nil {
				return nil, err
			}
			return discussReport{d}, err
		}}
	planKind = quorumKind{what: "task", noun: "plan", verb: "planning",
		run: func(ctx context.Context, b quorum.Backend, task string, cfg quorum.Config) (report, error) {
			p, err := quorum.Plan(ctx, b, task, cfg)
			if p == nil {
				return nil, err
			}
			return planReport{p}, err
		}}
)

func runDiscuss(ctx context.Context, inv *invocation) error { return inv.runQuorum(ctx, discussKind) }
func runPlan(ctx context.Context, inv *invocation) error    { return inv.runQuorum(ctx, planKind) }

// runQuorum runs a discussion or a plan: check the command line, open the
// transcript, connect, resolve the models, run with live progress on
// stderr, then print the result on stdout. A degraded result is printed
// and then reported as ErrDegraded; a failed run prints its JSON result
// (with -o json) and returns an error naming every model's failure.
func (inv *invocation) runQuorum(ctx context.Context, k quorumKind) (err error) {
	topic, err := inv.topic(k.what)
	if err != nil {
		return err
	}
	timeout := inv.cfg.duration("timeout")
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf(
		"%w: quorum %s took longer than --timeout (%v); raise it, or lower --phase-timeout so that slow models are dropped sooner",
		quorum.ErrTimeout, inv.name, timeout))
	defer cancel()

	var tr *quorum.Transcript
	if path := inv.o.transcript; path != "" {
		f, cerr := os.Create(path)
		if cerr != nil {
			return usagef("cannot create the transcript file: %v", cerr)
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

	view := inv.newProgress(inv.header(k, models, moderator))
	defer view.close()
	progress := view.event
	if hook := inv.e.onEvent; hook != nil {
		progress = func(ev quorum.Event) { view.event(ev); hook(ev) }
	}
	cfg := quorum.Config{
		Models:             models,
		Moderator:          moderator,
		NoReview:           !inv.cfg.boolean("review"),
		AnswersPerReviewer: inv.cfg.integer("reviewers"),
		PhaseTimeout:       inv.cfg.duration("phase-timeout"),
		Timeout:            timeout,
		MaxConcurrency:     inv.cfg.integer("concurrency"),
		Progress:           progress,
		Transcript:         tr,
	}
	rep, runErr := k.run(ctx, quorum.Copilot(c), topic, cfg)
	view.close()

	switch {
	case runErr != nil && parent.Err() != nil && errors.Is(runErr, context.Canceled):
		return runErr // Run says "interrupted"
	case errors.Is(runErr, quorum.ErrInvalidConfig):
		return usagef("%s", strings.TrimPrefix(runErr.Error(), "quorum: "))
	case rep == nil:
		return runErr
	}
	if runErr != nil {
		if inv.cfg.str("output") == "json" {
			if err := inv.printJSON(rep); err != nil {
				return err
			}
		}
		return &runError{noun: k.noun, err: runErr, failures: rep.outcome().Failures}
	}
	if err := inv.print(rep); err != nil {
		return err
	}
	if rep.outcome().Degraded {
		return ErrDegraded
	}
	return nil
}

// header is the first progress line: who takes part.
func (inv *invocation) header(k quorumKind, models []string, moderator string) string {
	h := fmt.Sprintf("quorum: %s with %s", k.verb, strings.Join(models, ", "))
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

// print writes the result on stdout in the configured format.
func (inv *invocation) print(rep report) error {
	switch inv.cfg.str("output") {
	case "json":
		return inv.printJSON(rep)
	case "markdown":
		if inv.simulated() {
			fmt.Fprintln(inv.e.stdout, simulatedMarkdown)
			fmt.Fprintln(inv.e.stdout)
		}
		rep.markdown(inv.e.stdout)
	default:
		if inv.simulated() {
			fmt.Fprintln(inv.e.stdout, simulatedText)
			fmt.Fprintln(inv.e.stdout)
		}
		rep.text(inv.e.stdout)
	}
	return nil
}

// runError is a run that gave no usable result: its error and every
// model's failure, one per line.
type runError struct {
	noun     string
	err      error
	failures []quorum.Failure
}

func (e *runError) Error() string {
	var b strings.Builder
	var tf *quorum.TooFewError
	if errors.As(e.err, &tf) {
		what := fmt.Sprintf("after the %s phase", tf.Phase)
		if tf.Phase == quorum.PhaseSynthesis {
			what = "to write the synthesis"
		}
		fmt.Fprintf(&b, "the %s failed: too few models left %s (%d left, %d needed)", e.noun, what, len(tf.Left), tf.Need)
	} else {
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, strings.TrimPrefix(e.err.Error(), "quorum: "))
	}
	for _, f := range e.failures {
		fmt.Fprintf(&b, "\n  ✗ %s", failureLine(f))
	}
	if tf != nil {
		b.WriteString("\nCheck the model ids (quorum models) and the CLI's login (copilot login), raise --phase-timeout, or add models with -m.")
	}
	return b.String()
}

func (e *runError) Unwrap() error { return e.err }

// failureLine describes one failure: who, where, what kind, the real
// error, and what to do about it.
func failureLine(f quorum.Failure) string {
	where := string(f.Phase) + " phase"
	if f.Target != "" {
		where += ", " + targetNoun(f.Phase) + " " + f.Target
	}
	return withAdvice(fmt.Sprintf("%s, %s (%s): %s", f.Model, where, f.Kind, strings.TrimPrefix(f.Error, "quorum: ")), kindErr(f.Kind))
}

// withAdvice appends to msg, the text of a model's failure, what a person
// at the command line can do about err, the quorum error behind it. The
// quorum package's errors speak to programs, in Config's terms; the flags
// that set Config are this command's, so the advice is given here.
func withAdvice(msg string, err error) string {
	var a string
	switch {
	case errors.Is(err, quorum.ErrTimeout):
		a = "raise --phase-timeout (each phase) or --timeout (the whole run), or leave the slow model out"
	case errors.Is(err, quorum.ErrEmptyReply):
		a = "check that the model id is right (quorum models) and that the model is available"
	case errors.Is(err, quorum.ErrUnparsable):
		a = "--transcript FILE records the whole reply"
	default:
		return msg
	}
	return msg + "; " + a
}

// kindErr is the quorum error behind a Failure of kind k, whose error is
// kept as text only; nil when no sentinel stands for k.
func kindErr(k string) error {
	switch k {
	case "timeout":
		return quorum.ErrTimeout
	case "empty":
		return quorum.ErrEmptyReply
	case "unparsable":
		return quorum.ErrUnparsable
	}
	return nil
}

// targetNoun names what a phase's target label refers to.
func targetNoun(p quorum.Phase) string {
	if p == quorum.PhaseVote || p == quorum.PhasePropose {
		return "plan"
	}
	return "response"
}

// fmtDuration is a short, human duration: 0.4s, 12.3s, 2m5s.
func fmtDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
