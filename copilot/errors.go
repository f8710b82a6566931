package copilot

import (
	"errors"
	"fmt"

	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

var (
	// ErrCLINotFound reports that no Copilot CLI binary could be found.
	ErrCLINotFound = errors.New("copilot: the GitHub Copilot CLI was not found; install it with `npm install -g @github/copilot`, or set COPILOT_CLI_PATH or Options.CLIPath to its binary")

	// ErrStartTimeout reports a CLI that did not become ready in time.
	ErrStartTimeout = errors.New("copilot: the Copilot CLI did not start in time")

	// ErrCLIExited reports that the CLI child process ended. It is the cause
	// wrapped, with ErrStopped, by every waiter's error.
	ErrCLIExited = errors.New("copilot: the Copilot CLI exited")

	// ErrProtocolVersion reports a CLI that speaks another protocol version;
	// *VersionError carries both versions.
	ErrProtocolVersion = errors.New("copilot: protocol version mismatch")

	// ErrNotAuthenticated reports a CLI with no usable login.
	ErrNotAuthenticated = errors.New("copilot: the Copilot CLI is not logged in; run `copilot login`, or pass a token (Options.AuthToken or COPILOT_SDK_AUTH_TOKEN)")

	// ErrToolLimit reports a turn aborted because the model called tools
	// more often than SessionConfig.MaxToolCalls allows.
	ErrToolLimit = errors.New("copilot: tool-call limit reached; the turn was aborted")

	// ErrPermissionDenied reports a turn that the CLI ended because the
	// session's permission policy refused a request (on CLI 1.0.102 a
	// rejection without feedback aborts the turn; the model is not called
	// again; see Reject). DenyAll, the default policy, refuses the first
	// request, so a turn under it ends there with this error: a later tool
	// call of the same turn is never asked about, nor run.
	ErrPermissionDenied = errors.New("copilot: permission denied")

	// ErrInvalidOptions is wrapped by the error of Options.Validate, and so
	// of Start and Connect, for an Options with a field out of range; the
	// error names the field.
	ErrInvalidOptions = errors.New("copilot: invalid Options")

	// ErrInvalidSessionConfig is wrapped by the error of
	// SessionConfig.Validate, and so of NewSession and ResumeSession, for a
	// SessionConfig that no session can be created with; the error names
	// the field.
	ErrInvalidSessionConfig = errors.New("copilot: invalid SessionConfig")

	// ErrClosed reports use of a closed Client: the error of a call made
	// after Close, and of every call, turn and session that Close cut
	// short (with ErrStopped). It is the one of the project's three
	// ErrClosed a user of this package needs: it wraps router.ErrClosed,
	// which wraps session.ErrClosed, so errors.Is finds those in it too. A
	// Session closed on its own (Close, Destroy, Delete) fails its next turn
	// with session.ErrClosed alone: the client goes on.
	ErrClosed error = &narrower{msg: "copilot: client closed", of: router.ErrClosed}

	// ErrConnectionClosed reports a connection to the CLI that ended from
	// the CLI's side without an exit status to tell: over Connect (a CLI
	// started elsewhere, a simulator), the other end closed it or went away.
	// Every waiter then gets an error wrapping ErrStopped and it, which
	// reads "router stopped: connection closed by the peer: EOF" (a turn's
	// error says which session it was, with the "copilot:" prefix). A child
	// the client started that dies gives ErrCLIExited instead. It is
	// router.ErrConnectionClosed itself.
	ErrConnectionClosed = router.ErrConnectionClosed

	// ErrUnresponsive reports a CLI that Options.Liveness declared dead: it
	// did not answer a ping in time (stopped, deadlocked, stuck). Waiters
	// get it wrapped with ErrStopped; with Options.Restart the CLI
	// is killed and started again.
	ErrUnresponsive = errors.New("copilot: the Copilot CLI stopped responding")

	// ErrTurnInactive reports a turn that SessionConfig.TurnInactivity
	// ended: no event came from the CLI for that long. The turn is aborted
	// on the CLI; the session can run another, which first reads the rest
	// of this one — up to 2 s of waiting if its session.idle never comes
	// (see Session.Stream).
	ErrTurnInactive = errors.New("copilot: no event from the Copilot CLI within the turn's inactivity limit")

	// ErrRefused reports a request the CLI answered with a refusal rather
	// than an error (success: false): a session it does not keep, a
	// foreground session outside TUI+server mode. The error carries the
	// CLI's reason.
	ErrRefused = errors.New("copilot: the Copilot CLI refused")

	// ErrNoSessionID reports a call about a session (ResumeSession,
	// SessionMetadata, DeleteSession, SetForegroundSessionID) given an
	// empty id; it is refused before anything is sent.
	ErrNoSessionID = errors.New("copilot: no session id given; Client.ListSessions lists the sessions the CLI keeps")

	// ErrNoElicitation reports a form asked of the user (Session.Elicit)
	// in a session whose clients cannot show one: no client of the
	// session set SessionConfig.OnElicitation (Session.Capabilities says
	// so). Nothing was sent.
	ErrNoElicitation = errors.New("copilot: no client of this session can show a form to the user (SessionCapabilities.UI.Elicitation is false); set SessionConfig.OnElicitation on a client of the session first")

	// Re-exported so callers need not import the lower packages: each is
	// the lower package's value itself, so errors.Is does not care which
	// name is used.
	ErrStopped    = router.ErrStopped
	ErrTurnFailed = session.ErrTurnFailed
	ErrAborted    = session.ErrAborted
	ErrFellBehind = session.ErrFellBehind
	// ErrSuperseded reports a Session that ResumeSession took over: the
	// client resumed its session id while it was open. Its turn in flight
	// fails with it, and so does every later turn, Send, Abort, Destroy
	// and Delete; the *Session ResumeSession returned receives the
	// session's events and requests from the hand-over on.
	ErrSuperseded = session.ErrSuperseded
)

// TurnError is the CLI's own account of why a turn failed (its
// session.error event): Type is the CLI's errorType ("model_call",
// "rate_limit", …), Message its message. A failed turn's error wraps one,
// and ErrTurnFailed: read its kind with errors.As(err, &te), te a
// *copilot.TurnError. It is session.TurnError itself.
type TurnError = session.TurnError

// VersionError is a protocol version mismatch.
type VersionError struct {
	Got, Want  int64
	CLIVersion string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("copilot: the Copilot CLI %s speaks protocol version %d, this package speaks %d; install a matching CLI (npm install -g @github/copilot) or upgrade this module",
		e.CLIVersion, e.Got, e.Want)
}

// Unwrap makes errors.Is(err, ErrProtocolVersion) true.
func (e *VersionError) Unwrap() error { return ErrProtocolVersion }

// narrower is a sentinel with a message of its own that errors.Is also
// finds a more general sentinel in: ErrClosed is a case of
// router.ErrClosed, without its message carrying the other's.
type narrower struct {
	msg string
	of  error
}

func (e *narrower) Error() string { return e.msg }
func (e *narrower) Unwrap() error { return e.of }

// invalid is the error of a Validate: sentinel (ErrInvalidOptions or
// ErrInvalidSessionConfig), then what is wrong, naming the field.
func invalid(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
