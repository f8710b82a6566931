package quorum

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalidConfig reports a Config (or question, task, claim, change
	// or backend) that a run cannot start with; the wrapping error names
	// the field.
	ErrInvalidConfig = errors.New("quorum: invalid configuration")

	// ErrTooFewModels reports a run that stopped because fewer models than
	// Config.MinModels were left after a phase. *TooFewError carries each
	// model's failure.
	ErrTooFewModels = errors.New("quorum: too few models left to go on")

	// ErrTimeout reports a model that did not finish within
	// Config.PhaseTimeout, or a run that passed Config.Timeout. It comes
	// wrapped together with context.DeadlineExceeded.
	ErrTimeout = errors.New("quorum: time limit reached")

	// ErrEmptyReply reports a model that replied with no text: often a
	// model id the backend does not know, or a model that is not available.
	ErrEmptyReply = errors.New("quorum: the model replied with no text")

	// ErrUnparsable reports a review, vote, plan, inspection of a change or
	// debate verdict whose reply held nothing usable (no JSON, no FINAL
	// RANKING list, no N/10 score, no findings, no position). The wrapping
	// error lists the parse problems; a review, vote or inspection keeps
	// its raw reply in the result (Review.Raw, Vote.Raw, Inspection.Raw),
	// and a Transcript records every reply.
	ErrUnparsable = errors.New("quorum: the reply could not be parsed")
)

// ModelError is one model's failure in one phase: the model's real error
// (a session.error from the CLI, a timeout, an unparsable reply), with
// where it happened.
type ModelError struct {
	Model string
	Phase Phase
	// Target is the label of the answer or plan concerned, if any (a vote
	// on Plan B has Target "B").
	Target string
	Err    error
}

func (e *ModelError) Error() string {
	where := string(e.Phase)
	if e.Target != "" {
		where += " of " + e.Target
	}
	return fmt.Sprintf("%s failed in the %s phase: %v", e.Model, where, e.Err)
}

func (e *ModelError) Unwrap() error { return e.Err }

// TooFewError is the error of a run that stopped because too few models
// were left. errors.Is(err, ErrTooFewModels) holds for it.
type TooFewError struct {
	// Phase is where the run stopped.
	Phase Phase
	// Need is Config.MinModels (one for the synthesis or a verdict, and
	// for each side of a debate); Left are the models still in the run.
	Need int
	Left []string
	// Role, when set, is the debate side that ran out of models
	// ("opponent"): Left are then that side's models.
	Role Side
	// Failures are every model failure of the run so far, in order.
	Failures []*ModelError
}

func (e *TooFewError) Error() string {
	var b strings.Builder
	if e.Role != "" {
		fmt.Fprintf(&b, "quorum: no %s left after the %s phase (%d needed)", e.Role, e.Phase, e.Need)
	} else {
		fmt.Fprintf(&b, "quorum: too few models left after the %s phase (%d left, %d needed)", e.Phase, len(e.Left), e.Need)
	}
	for _, f := range e.Failures {
		b.WriteString("; ")
		b.WriteString(f.Error())
	}
	b.WriteString(". Check Config.Models and the backend (with Copilot, the CLI's login), raise Config.PhaseTimeout, or lower Config.MinModels")
	return b.String()
}

func (e *TooFewError) Unwrap() error { return ErrTooFewModels }

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
}
