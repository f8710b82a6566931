package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quorum-go/quorum/session"
)

// Open registers a route for session id and returns its channel, without
// calling the server: for a session that exists already (resuming one), or
// one about to be created with this id. Messages for id are routed to the
// channel from the moment Open returns.
func (r *Router) Open(id string) (*session.Channel, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	if _, ok := r.routes[id]; ok {
		return nil, fmt.Errorf("%w: %s", ErrSessionExists, id)
	}
	if err := r.roomLocked(); err != nil {
		return nil, err
	}
	return r.addRouteLocked(id).Channel(), nil
}

// Supersede hands session id, routed already, to a new channel, which it
// returns: for a client that resumed a session it has open, so that the
// resumed session's new owner gets its messages from now on, and its old
// owner none. The old channel's unread messages move to the new one, in
// order, ahead of everything read after; the old channel ends with an
// error wrapping session.ErrSuperseded (see session.Sink.Supersede): every
// message is received by exactly one of the two, none lost, none twice.
// Closing the old channel later leaves the new route alone. An id with no
// route is simply routed, as Open does.
func (r *Router) Supersede(id string) (*session.Channel, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	old, ok := r.routes[id]
	if !ok {
		if err := r.roomLocked(); err != nil {
			return nil, err
		}
		return r.addRouteLocked(id).Channel(), nil
	}
	// The reader looks a route up under r.mu but delivers outside it: a
	// delivery to old already under way is forwarded by old to its
	// successor (after the messages moved), and every later one finds the
	// new route.
	var rt *session.Sink
	rt = r.newSink(id, func(context.Context, string) error { r.removeRoute(rt); return nil })
	old.Supersede(rt, fmt.Errorf("%w (session %s)", session.ErrSuperseded, id))
	r.routes[id] = rt
	return rt.Channel(), nil
}

// roomLocked refuses a new route while Config.MaxSessions are routed.
func (r *Router) roomLocked() error {
	if len(r.routes) >= r.cfg.MaxSessions {
		return fmt.Errorf("%w: %d sessions are open; close one first, or raise the limit", ErrTooManySessions, len(r.routes))
	}
	return nil
}

// Create creates a session whose id the client chose (a fresh UUID, say):
// the route exists before the request is sent, so no event of the new
// session can arrive unrouted, whichever side of the response it comes on.
// params must carry id as its sessionId; result, if not nil, receives the
// server's result. Creations of this kind run concurrently. On failure the
// route is removed again.
func (r *Router) Create(ctx context.Context, id string, params, result any) (*session.Channel, error) {
	ch, err := r.Open(id)
	if err != nil {
		return nil, err
	}
	if err := r.Call(ctx, r.cfg.CreateMethod, params, result); err != nil {
		_ = ch.Close(context.Background())
		return nil, err
	}
	return ch, nil
}

// CreateAssigned creates a session whose id the server assigns. The id is
// unknown until session.start or the create response names it, so these
// creations are serialised: while one is in flight, the first session.start
// for an unrouted id binds the new route, and any other message for an
// unrouted id is held (up to Config.MaxHeldBytes) and handed over if the
// response names that id. Nothing of the new session is lost, whichever
// side of the response its events come on.
//
// A response naming an id that is already routed (to a channel of someone
// else's) is an error wrapping ErrSessionExists: two owners never share a
// mailbox. A creation given up (ctx ended) after the server may have started
// the session returns an *AbandonedError, so the caller can destroy it:
// with its SessionID if session.start had named it, else with Assigned,
// which delivers the id the late response (or session.start) names. Until
// that response comes, later server-assigned creations wait, so a late
// session.start cannot be taken for theirs.
func (r *Router) CreateAssigned(ctx context.Context, params, result any) (*session.Channel, error) {
	select {
	case r.createSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", r.cfg.CreateMethod, ctx.Err())
	case <-r.done:
		return nil, r.Err()
	}
	h, err := r.beginHold()
	if err != nil {
		<-r.createSlot
		return nil, err
	}
	var raw json.RawMessage
	err = r.call(ctx, r.cfg.CreateMethod, params, &raw, h.awaitLateLocked)
	if errors.Is(err, errAwaitingLate) {
		// h now owns the slot; it lets it go when the response comes.
		return nil, &AbandonedError{Err: fmt.Errorf("%s: %w", r.cfg.CreateMethod, ctx.Err()), Assigned: h.late}
	}
	defer func() { <-r.createSlot }()
	var id string
	if err == nil {
		if id = string(sessionIDOf(raw)); id == "" {
			err = fmt.Errorf("%w: %.200s", ErrCreateReturnedNoID, raw)
		}
	}
	rt, err := h.end(ctx, id, err)
	if err != nil {
		return nil, err
	}
	if result != nil {
		if uerr := json.Unmarshal(raw, result); uerr != nil {
			_ = rt.Channel().Close(context.Background())
			return nil, fmt.Errorf("router: decoding the result of %s: %w", r.cfg.CreateMethod, uerr)
		}
	}
	return rt.Channel(), nil
}
