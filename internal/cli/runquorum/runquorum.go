// Package runquorum runs quorum's strategies for the commands that offer
// them (discuss, plan, debate, review, agent): a Kind says what differs
// between them, Run reads the input, connects, runs with progress on
// stderr and prints the result in every format, also when the run failed
// or was interrupted; review's and agent's findings become SARIF. One
// command calls Run once, from its own goroutine; the observer it is given
// sees each event after the progress view, called as quorum.Config's
// Progress is.
package runquorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/cli/progress"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// Run runs a strategy: read its input, open the transcript,
// connect, resolve the models, run with live progress on stderr, then
// print the result on stdout, also when the run failed or was
// interrupted: whatever was collected is printed, marked incomplete with
// the reason, and the error says what happened.
func Run(inv *cmdutil.Invocation, k Kind, observe func(quorum.Progress)) (err error) {
	parent := inv.Cmd.Context()
	qr, err := k.Input(inv)
	var nothing *NothingToReview
	if errors.As(err, &nothing) {
		fmt.Fprintln(inv.ErrOut, "quorum: "+sanitize.Line(nothing.Error()))
		if inv.JSONOutput() {
			return inv.WriteJSON(nil, cmdutil.StatusOK, "")
		}
		return nil
	}
	if err != nil {
		return err
	}
	// Every file the run writes is checked before the first model is
	// asked: a path that cannot be written found after the run would have
	// spent its premium requests for nothing.
	if err := CheckWritable(inv.Opts.SARIF); err != nil {
		return fmt.Errorf("cannot write the SARIF file: %w; choose another --sarif path", err)
	}
	var tr *quorum.Transcript
	if path := inv.Opts.Transcript; path != "" {
		f, cerr := CreatePrivate(path)
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
				fmt.Fprintf(inv.ErrOut, "quorum: writing the transcript %s: %v\n", path, cerr)
			}
		}()
	}

	cn, err := connect.Open(inv)
	if err != nil {
		return err
	}
	defer cn.Close()
	ctx, c := cn.Ctx, cn.Client
	offered, err := connect.ListOffered(ctx, inv, c)
	if err != nil {
		return cn.Early(err)
	}
	models, moderator, err := connect.ResolveQuorum(inv, offered)
	if err != nil {
		return cn.Early(err)
	}
	if !k.Moderated {
		moderator = ""
	}

	cfg := quorum.Config{
		Models:             models,
		Moderator:          moderator,
		NoReview:           !inv.Settings.Review,
		AnswersPerReviewer: inv.Settings.Reviewers,
		Rounds:             inv.Settings.Rounds,
		PhaseTimeout:       inv.Settings.PhaseTimeout,
		Timeout:            inv.Settings.Timeout,
		MaxConcurrency:     inv.Settings.Concurrency,
		Transcript:         tr,
		MaxPremium:         inv.Settings.MaxPremium,
		NoEarlyStop:        !inv.Settings.EarlyStop,
		Multipliers:        offered.Multipliers,
	}
	// What the run will cost is said before it starts; --dry-run stops
	// there, before any session is created.
	est, err := qr.Estimate(cfg)
	if err != nil {
		return cn.Early(err) // the run would refuse the config: say so before it starts
	}
	allowance := ReadAllowance(ctx, c)
	if inv.Opts.DryRun {
		return PrintEstimate(inv, k.Noun, est, allowance)
	}

	if len(est.Models) > 0 {
		models = est.Models // as the cap left them
	}
	view := progress.New(inv.ErrOut, header(inv, k, qr.About, models, moderator),
		progress.Options{Estimate: estimateLine(est, allowance), Quiet: inv.Opts.Quiet, Plain: inv.Opts.Verbose || inv.Getenv("TERM") == "dumb", NoColor: inv.NoColor(), Phases: k.Phases})
	defer view.Close()
	if n, ok := view.(progress.Noticer); ok {
		defer cmdutil.RouteNotices(parent, n.Notice)()
	}
	inv.Interject = view.Interject
	onEvent := view.Event
	if hook := observe; hook != nil {
		onEvent = func(ev quorum.Progress) { view.Event(ev); hook(ev) }
	}
	cfg.Progress = onEvent
	rep, out, result, runErr := qr.Run(ctx, quorum.Copilot(c), cfg)
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
	if qr.Status != nil && runErr == nil {
		if s := qr.Status(result); s != "" {
			status = s
		}
	}
	if err := inv.PrintResult(rep, result, status, incomplete); err != nil {
		return err
	}
	var afterErr error
	if qr.After != nil {
		afterErr = qr.After(result, runErr == nil)
	}
	switch {
	case runErr != nil:
		if afterErr != nil { // the run's own error goes first
			fmt.Fprintln(inv.ErrOut, "quorum: "+sanitize.Text(afterErr.Error()))
		}
		if in != nil {
			return in
		}
		return &runError{noun: k.Noun, err: runErr, failures: out.Failures, printed: inv.ReportOnTerminal(), simulated: inv.Simulated()}
	case afterErr != nil:
		return afterErr
	case out.Degraded:
		return cmdutil.ErrDegraded
	}
	return nil
}

// header is the first progress line: who takes part, on which side, and
// what about when it is not a text.
func header(inv *cmdutil.Invocation, k Kind, about string, models []string, moderator string) string {
	who := slices.Clone(models)
	if k.Sides {
		for i := range who {
			side := "for"
			if i%2 == 1 {
				side = "against"
			}
			who[i] += " (" + side + ")"
		}
	}
	h := "quorum: " + k.Verb
	if about != "" {
		h += " " + about
	}
	h += " with " + strings.Join(who, ", ")
	if k.Moderated {
		if moderator == "" {
			moderator = models[0]
		}
		h += "; moderator " + moderator
	}
	if inv.Simulated() {
		h += " (simulated)"
	}
	return h
}
