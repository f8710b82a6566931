package cli

import (
	"context"
	"fmt"
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
// surprise. stop releases the signals.
func WithSignals(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			if s == os.Interrupt {
				fmt.Fprintln(stderr, "\nquorum: stopping: aborting the turns, then printing what was collected; press Ctrl-C again to quit at once, without it")
			}
			cancel(&cmdutil.Interrupted{Signal: s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
