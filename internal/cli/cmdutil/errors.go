package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/quorum-go/quorum/quorum"
)

// Exit codes, decided here and nowhere else.
const (
	ExitOK          = 0   // the command succeeded
	ExitFailure     = 1   // it failed: nothing usable came out, or the configuration is broken
	ExitUsage       = 2   // the command line is wrong
	ExitDegraded    = 3   // a result was printed, but some models dropped out
	ExitInterrupted = 130 // stopped by Ctrl-C (128 + SIGINT)
	ExitTerminated  = 143 // stopped by SIGTERM (128 + SIGTERM)
)

// UsageError is a mistake on the command line: the command, a flag, an
// argument. The root prints it with a pointer to the command's help.
type UsageError struct {
	Msg string
	// Cmd is the command whose help to point at ("quorum discuss"); ""
	// for the command that was running.
	Cmd string
}

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrDegraded reports a run that printed its result although some models
// dropped out; the reasons were printed with the result.
var ErrDegraded = errors.New("the run was degraded: some models dropped out (see the result)")

// Interrupted is the error of a command stopped by a signal, and the
// cause of the context that the root's WithSignals cancels.
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string {
	if e.Signal == syscall.SIGTERM {
		return "terminated (SIGTERM)"
	}
	return "interrupted (Ctrl-C)"
}

// What says what happened, for a sentence: "interrupted by Ctrl-C",
// "terminated by SIGTERM".
func (e *Interrupted) What() string {
	if e.Signal == syscall.SIGTERM {
		return "terminated by SIGTERM"
	}
	return "interrupted by Ctrl-C"
}

// InterruptedBy is the error of a command whose context was cancelled:
// the signal that did it, Ctrl-C when nothing says.
func InterruptedBy(ctx context.Context) *Interrupted {
	var in *Interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return &Interrupted{Signal: os.Interrupt}
}

// ExitCode maps a command's error to the process exit status.
func ExitCode(err error) int {
	var ue *UsageError
	var in *Interrupted
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &in):
		if in.Signal == syscall.SIGTERM {
			return ExitTerminated
		}
		return ExitInterrupted
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue), errors.Is(err, quorum.ErrSandboxUnavailable):
		// A host that cannot sandbox the agent cannot run what was asked,
		// as a wrong command line cannot: nothing was started.
		return ExitUsage
	case errors.Is(err, ErrDegraded), errors.Is(err, quorum.ErrPremiumCap):
		// A run the premium-request cap stopped printed what it had, as a
		// degraded one does.
		return ExitDegraded
	default:
		return ExitFailure
	}
}
