package router

import (
	"context"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

var (
	// ErrStopped is wrapped by every error that reports the router's end:
	// the connection broke, the peer exited or sent what cannot be framed, or
	// Close was called. errors.Is(err, ErrStopped) holds for all of them, and
	// the cause is wrapped too.
	ErrStopped = errors.New("router stopped")

	// ErrClosed is the cause when the router was closed by its user. Every
	// channel of the router is closed with it, so it wraps
	// session.ErrClosed: errors.Is(err, session.ErrClosed) holds too.
	ErrClosed error = &narrower{msg: "router closed", of: session.ErrClosed}

	// ErrConnectionClosed is the cause (wrapped with ErrStopped) when the
	// connection ended from the other side: the peer closed it, or went away
	// without a word (EOF). The router's error then reads "router stopped:
	// connection closed by the peer: EOF".
	ErrConnectionClosed = errors.New("connection closed by the peer")

	// ErrSessionExists reports a route that is already registered.
	ErrSessionExists = errors.New("router: a session with this id is already routed")

	// ErrTooManySessions reports a session opened or created while
	// Config.MaxSessions are routed.
	ErrTooManySessions = errors.New("router: too many open sessions (Config.MaxSessions)")

	// ErrInvalidConfig is wrapped by the error of New, and of
	// Config.Validate, for a Config with a field out of range; the error
	// names the field.
	ErrInvalidConfig = errors.New("router: invalid configuration")

	// ErrCreateReturnedNoID reports a response to a server-assigned
	// creation (CreateAssigned) that names no session id: the server broke
	// the protocol, and no session was routed.
	ErrCreateReturnedNoID = errors.New("router: session creation returned no sessionId")

	// ErrFrameTooLarge is the cause (wrapped with ErrStopped) when the peer
	// sent a message larger than Config.MaxFrameBytes: the connection
	// cannot resynchronise past it, so the router stops.
	ErrFrameTooLarge = wire.ErrFrameTooLarge

	// ErrBadHeader is the cause (wrapped with ErrStopped) when the peer sent
	// a frame header that cannot be parsed.
	ErrBadHeader = wire.ErrBadHeader

	// ErrWriteBacklog reports that the peer has not read what was already
	// queued for it and Config.MaxWriteBacklogBytes are waiting: a call or
	// notification fails with it instead of waiting, and an answer to the
	// peer that cannot be queued stops the router with it as the cause.
	ErrWriteBacklog = wire.ErrWriteBacklog
)

// narrower is a sentinel with a message of its own that errors.Is also
// finds a more general sentinel in: ErrClosed ("router closed") is a case
// of session.ErrClosed, without its message carrying the other's.
type narrower struct {
	msg string
	of  error
}

func (e *narrower) Error() string { return e.msg }
func (e *narrower) Unwrap() error { return e.of }

// stoppedError is ErrStopped with its cause.
func stoppedError(cause error) error {
	return fmt.Errorf("%w: %w", ErrStopped, cause)
}

// CallError is an error response from the peer. Use errors.As to read the
// code, and errors.Is with a *jsonrpc2.Error is not needed: Code is here.
type CallError struct {
	Method  string
	Code    int64
	Message string
	Data    []byte // raw JSON, if the peer sent data
}

func (e *CallError) Error() string {
	return fmt.Sprintf("%s: %s (code %d)", e.Method, e.Message, e.Code)
}

func callError(method string, e *jsonrpc2.Error) *CallError {
	ce := &CallError{Method: method, Code: e.Code, Message: e.Message}
	if e.Data != nil {
		ce.Data = append([]byte(nil), *e.Data...)
	}
	return ce
}

// AbandonedError is a server-assigned creation given up by its caller
// while the server may have started the session: the session may live on
// the server, and the caller should destroy it. SessionID names it when
// session.start had come before the caller gave up. Otherwise SessionID is
// empty and Assigned delivers the id once the late create response (or
// session.start before it) names it; Assigned is closed without a value if
// none does (an error response, or the router's stop).
type AbandonedError struct {
	SessionID string
	Assigned  <-chan string
	Err       error
}

// Await returns the abandoned session's id: SessionID, or what Assigned
// delivers. ok is false if no session was named, or ctx ended first.
func (e *AbandonedError) Await(ctx context.Context) (id string, ok bool) {
	if e.SessionID != "" || e.Assigned == nil {
		return e.SessionID, e.SessionID != ""
	}
	select {
	case id, ok = <-e.Assigned:
		return id, ok
	case <-ctx.Done():
		return "", false
	}
}

func (e *AbandonedError) Error() string {
	if e.SessionID == "" {
		return fmt.Sprintf("%v (a session the server may have started is named on Assigned when its response comes)", e.Err)
	}
	return fmt.Sprintf("%v (session %s may exist on the server)", e.Err, e.SessionID)
}

func (e *AbandonedError) Unwrap() error { return e.Err }
