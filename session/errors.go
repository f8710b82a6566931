package session

import (
	"errors"
	"fmt"
)

var (
	// ErrFellBehind reports that the session's consumer did not keep up: it
	// received nothing for Config.MaxStall while more than its bound waited,
	// or let four times the bound pile up, so the router failed this session
	// alone and dropped what it had buffered.
	ErrFellBehind = errors.New("session: consumer fell behind; it stopped receiving past its buffer bound (read faster, or raise MaxBufferedBytes or MaxStall)")

	// ErrInvalidConfig is wrapped by the error of New, and of
	// Config.Validate, for a Config with a field out of range; the error
	// names the field.
	ErrInvalidConfig = errors.New("session: invalid configuration")

	// ErrClosed reports a receive on a channel that its user closed. It is
	// the most general of the project's three ErrClosed: router.ErrClosed
	// (a router its user closed, so every channel of it) and
	// copilot.ErrClosed (a client its user closed) wrap it, so that
	// errors.Is(err, ErrClosed) holds for every closing.
	ErrClosed = errors.New("session: channel closed")

	// ErrTurnFailed is wrapped by *TurnError, the error of a turn that ended
	// with a session.error event.
	ErrTurnFailed = errors.New("session: turn failed")

	// ErrAborted reports a turn that ended because it was aborted.
	ErrAborted = errors.New("session: turn aborted")

	// ErrSuperseded ends a channel whose session was handed to another
	// channel (Sink.Supersede: the client resumed a session it had open).
	// What the old channel had not read, and everything after, goes to the
	// new one; the old one receives nothing more.
	ErrSuperseded = errors.New("session: superseded: the session was resumed and another channel now receives its messages; use the one the resume returned")

	// ErrTurnTooLarge reports a turn whose text passed
	// Config.MaxTurnTextBytes; the read stopped there, and the caller should
	// abort the turn.
	ErrTurnTooLarge = errors.New("session: the turn's text passed its limit (Config.MaxTurnTextBytes)")

	// ErrUnexpectedTool reports a tool or permission request met by ReadTurn,
	// which has nobody to answer it; use Next to handle tools.
	ErrUnexpectedTool = errors.New("session: the model asked for a tool, but the turn is being read without a tool handler")
)

// TurnError is a session.error event: the Copilot CLI's own account of why a
// turn failed. errors.Is(err, ErrTurnFailed) holds for it.
type TurnError struct {
	Type    string // the CLI's errorType, e.g. "model_call"
	Message string // the CLI's message, as sent
}

func (e *TurnError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("session: turn failed: %s", e.Message)
	}
	return fmt.Sprintf("session: turn failed (%s): %s", e.Type, e.Message)
}

// Unwrap makes errors.Is(err, ErrTurnFailed) true.
func (e *TurnError) Unwrap() error { return ErrTurnFailed }
