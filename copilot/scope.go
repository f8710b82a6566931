package copilot

import (
	"context"
	"errors"
	"fmt"

	"github.com/quorum-go/quorum/router"
)

// What a handler's context is bound to. Every handler the SDK calls for a
// session — a client tool, a Handlers request (user input, hooks, …), a
// permission policy, a form (OnElicitation) — gets a context that ends when
// the work it answers for can no longer be answered: its turn ends (for
// what a turn calls), or its session's channel ends — the session closed,
// destroyed, deleted or superseded, its connection lost, its child dead, its
// client closed (Close stops the router, which ends every channel). The
// context's cause (context.Cause) is then the channel's error, which wraps
// ErrStopped (and ErrClosed, ErrCLIExited or ErrConnectionClosed) or
// session.ErrClosed. A handler that honours its context therefore never
// holds its turn past the session's end: the turn returns that error at
// once. A handler that ignores its context holds its turn until it returns.

// untilSessionEnds returns ctx bound to the session's channel as well: it
// ends when ctx does or when the channel ends, then with the channel's
// error as its cause. end releases it (and cancels it); call it when the
// work is done. It holds no goroutine while neither has ended.
func (s *Session) untilSessionEnds(ctx context.Context) (bound context.Context, end func()) {
	bound, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.ch.Context(), func() { cancel(s.ch.Err()) })
	return bound, func() {
		stop()
		// The work may have ended because the channel did, before the
		// AfterFunc (which runs on a goroutine of its own) has said so:
		// the cause is still the channel's end.
		cancel(s.ch.Err())
	}
}

// untilConnectionEnds is untilSessionEnds for the handlers of requests that
// name no session (Options.Handlers): ctx (the client's) bound to r, ending
// with r's stop error as its cause. end releases it. It holds one goroutine
// of the client's until either ends.
func (c *Client) untilConnectionEnds(ctx context.Context, r *router.Router) (bound context.Context, end func()) {
	bound, cancel := context.WithCancelCause(ctx)
	watching := c.goroutines.Go(func() {
		select {
		case <-r.Done():
			cancel(r.Err())
		case <-bound.Done():
		}
	})
	if !watching {
		cancel(ErrClosed)
	}
	return bound, func() { cancel(nil) }
}

// sessionEnded is the error of a turn whose session's channel ended while
// the turn ran (channelErr, the channel's error), or nil if it had not:
// the turn cannot be read to its end, and nothing can be aborted.
func (s *Session) sessionEnded(channelErr error) error {
	if channelErr == nil {
		return nil
	}
	if errors.Is(channelErr, ErrSuperseded) {
		return fmt.Errorf("copilot: session %s was resumed (Client.ResumeSession) while this turn ran; the *Session it returned reads the rest of the turn: %w", s.id, channelErr)
	}
	return fmt.Errorf("copilot: session %s ended while its turn ran: %w", s.id, channelErr)
}
