package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/progress"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// runQuorum runs a strategy: read its input, open the transcript,
// connect, resolve the models, run with live progress on stderr, then
// print the result on stdout, also when the run failed or was
// interrupted: whatever was collected is printed, marked incomplete with
// the reason, and the error says what happened.
func (inv *invocation) runQuorum(k quorumKind, observe func(quorum.Event)) (err error) {
	parent := inv.cmd.Context()
	qr, err := k.input(inv)
	var nothing *nothingToReview
	if errors.As(err, &nothing) {
		fmt.Fprintln(inv.e.ErrOut, "quorum: "+sanitize.Line(nothing.Error()))
		if inv.jsonOutput() {
			return inv.writeJSON(nil, statusOK, "")
		}
		return nil
	}
	if err != nil {
		return err
	}
	// Every file the run writes is checked before the first model is
	// asked: a path that cannot be written found after the run would have
	// spent its premium requests for nothing.
	if err := checkWritable(inv.o.sarif); err != nil {
		return fmt.Errorf("cannot write the SARIF file: %w; choose another --sarif path", err)
	}
	var tr *quorum.Transcript
	if path := inv.o.transcript; path != "" {
		f, cerr := createPrivate(path)
		if cerr != nil {
			return fmt.Errorf("cannot create the transcript file: %w; choose another --transcript path", cerr)
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
				fmt.Fprintf(inv.e.ErrOut, "quorum: writing the transcript %s: %v\n", path, cerr)
			}
		}()
	}

	cn, err := inv.open()
	if err != nil {
		return err
	}
	defer cn.close()
	ctx, c := cn.ctx, cn.client
	models, moderator, err := inv.resolveQuorum(ctx, c)
	if err != nil {
		return cn.early(err)
	}
	if !k.moderated {
		moderator = ""
	}

	view := progress.New(inv.e.ErrOut, inv.header(k, qr.about, models, moderator),
		progress.Options{Quiet: inv.o.quiet, Plain: inv.o.verbose || inv.e.Getenv("TERM") == "dumb", NoColor: inv.noColor()})
	defer view.Close()
	inv.interject = view.Interject
	onEvent := view.Event
	if hook := observe; hook != nil {
		onEvent = func(ev quorum.Event) { view.Event(ev); hook(ev) }
	}
	cfg := quorum.Config{
		Models:             models,
		Moderator:          moderator,
		NoReview:           !inv.s.Review,
		AnswersPerReviewer: inv.s.Reviewers,
		Rounds:             inv.s.Rounds,
		PhaseTimeout:       inv.s.PhaseTimeout,
		Timeout:            inv.s.Timeout,
		MaxConcurrency:     inv.s.Concurrency,
		Progress:           onEvent,
		Transcript:         tr,
	}
	rep, out, result, runErr := qr.run(ctx, quorum.Copilot(c), cfg)
	view.Close()
	if rep == nil {
		if errors.Is(runErr, quorum.ErrInvalidConfig) {
			return cmdutil.Usagef("%s", report.Plain(strings.TrimPrefix(strings.TrimPrefix(runErr.Error(), "quorum: "), quorum.ErrInvalidConfig.Error()+": ")))
		}
		return runErr
	}

	var in *cmdutil.Interrupted
	if runErr != nil && errors.Is(parent.Err(), context.Canceled) { // Ctrl-C, SIGTERM
		in = cmdutil.InterruptedBy(parent)
		runErr = in
	}
	status, incomplete := statusOf(k, out, runErr, in)
	if qr.status != nil && runErr == nil {
		if s := qr.status(result); s != "" {
			status = s
		}
	}
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
			fmt.Fprintln(inv.e.ErrOut, "quorum: "+sanitize.Text(afterErr.Error()))
		}
		if in != nil {
			return in
		}
		return &runError{noun: k.noun, err: runErr, failures: out.Failures, printed: inv.reportOnTerminal(), simulated: inv.simulated()}
	case afterErr != nil:
		return afterErr
	case out.Degraded:
		return cmdutil.ErrDegraded
	}
	return nil
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
