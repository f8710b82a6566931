package cli

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes, decided here and nowhere else.
const (
	ExitOK          = 0   // the run succeeded
	ExitFailure     = 1   // the run failed: nothing usable came out
	ExitUsage       = 2   // the command line or configuration is wrong
	ExitDegraded    = 3   // a result was printed, but some models dropped out
	ExitInterrupted = 130 // cancelled by Ctrl-C (128 + SIGINT)
)

// UsageError is a mistake in the command line or configuration.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrDegraded reports a run that printed its result although some models
// dropped out; the reasons were printed with the result.
var ErrDegraded = errors.New("the run was degraded: some models dropped out (see above)")

// errInterrupted is what a Ctrl-C becomes.
var errInterrupted = errors.New("interrupted")

// ExitCode maps Run's error to the process exit code.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	case errors.Is(err, ErrDegraded):
		return ExitDegraded
	default:
		return ExitFailure
	}
}
