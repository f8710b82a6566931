package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{Usagef("x"), ExitUsage},
		{ErrDegraded, ExitDegraded},
		{&Interrupted{Signal: os.Interrupt}, ExitInterrupted},
		{&Interrupted{Signal: syscall.SIGTERM}, ExitTerminated},
		{context.Canceled, ExitInterrupted},
		{os.ErrNotExist, ExitFailure},
		// A host that cannot sandbox the agent: exit 2, nothing started.
		{fmt.Errorf("starting the agent: %w", quorum.ErrSandboxUnavailable), ExitUsage},
		{errors.Join(errors.New("x"), &Interrupted{Signal: syscall.SIGTERM}), ExitTerminated},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// InterruptedBy names the signal a context was cancelled with, and
// Ctrl-C when its cause says nothing.
func TestInterruptedBy(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&Interrupted{Signal: syscall.SIGTERM})
	if got := InterruptedBy(ctx); got.Signal != syscall.SIGTERM || got.What() != "terminated by SIGTERM" {
		t.Errorf("InterruptedBy(SIGTERM cause) = %v (%s)", got, got.What())
	}
	plain, stop := context.WithCancel(context.Background())
	stop()
	if got := InterruptedBy(plain); got.Signal != os.Interrupt || got.What() != "interrupted by Ctrl-C" {
		t.Errorf("InterruptedBy(no cause) = %v (%s)", got, got.What())
	}
}
