package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// WithSignals returns a context that SIGINT (Ctrl-C) or SIGTERM cancels,
// with an *cmdutil.Interrupted naming the signal as its cause: Run then stops the
// command cleanly (turns aborted, sessions destroyed, the CLI stopped),
// prints what was collected, and ExitCode gives 130 or 143. The first
// signal also restores the default handling, so that a second one ends
// the process at once if that clean-up hangs; the first says so on
// stderr, so that nobody presses Ctrl-C twice and loses the report by
// surprise: through the command's progress view while one is drawn
// (cmdutil.Notices), so that its live lines are not left frozen above the
// notice. stop releases the signals.
func WithSignals(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, notices := cmdutil.WithNotices(parent, stderr)
	ctx, cancel := context.WithCancelCause(ctx)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			stopFor(s, notices, cancel)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// stopFor stops the command for the signal s: the first Ctrl-C says
// what a second would do, then the command's context is cancelled with s
// as its cause.
func stopFor(s os.Signal, notices *cmdutil.Notices, cancel context.CancelCauseFunc) {
	if s == os.Interrupt {
		notices.Say(stoppingNotice)
	}
	cancel(&cmdutil.Interrupted{Signal: s})
}

// stoppingNotice is what the first Ctrl-C says.
const stoppingNotice = "quorum: stopping: aborting the turns, then printing what was collected; press Ctrl-C again to quit at once, without it"
