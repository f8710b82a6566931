package router

import (
	"context"
	"encoding/json"
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
	return r.addRouteLocked(id).sink.Channel(), nil
}

func (r *Router) addRouteLocked(id string) *route {
	rt := &route{id: id}
	_, rt.sink = session.New(id, session.Config{MaxBufferedBytes: r.cfg.MaxSessionBufferBytes},
		func(ctx context.Context, _ string, destroy bool) error { return r.closeRoute(ctx, rt, destroy) })
	r.routes[id] = rt
	return rt
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
func (r *Router) CreateAssigned(ctx context.Context, params, result any) (*session.Channel, error) {
	select {
	case r.createSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", r.cfg.CreateMethod, ctx.Err())
	case <-r.done:
		return nil, r.Err()
	}
	defer func() { <-r.createSlot }()

	r.mu.Lock()
	if r.err != nil {
		r.mu.Unlock()
		return nil, r.err
	}
	c := &assignedCreation{held: make(map[string][]session.Message)}
	r.creating = c
	r.mu.Unlock()

	var raw json.RawMessage
	err := r.Call(ctx, r.cfg.CreateMethod, params, &raw)
	var id string
	if err == nil {
		if id = sessionIDOf(raw); id == "" {
			err = fmt.Errorf("%w: %.200s", ErrNoSessionID, raw)
		}
	}

	r.mu.Lock()
	if r.creating != c { // the router stopped meanwhile and dropped c
		r.mu.Unlock()
		if stopped := r.Err(); stopped != nil {
			return nil, stopped
		}
		return nil, err
	}
	r.creating = nil
	var rt, stale *route
	if err == nil {
		rt, stale = c.finishLocked(r, id)
	}
	r.mu.Unlock()
	if stale != nil {
		// Closing answers any request delivered to it: nobody else will.
		_ = stale.sink.Channel().Close(context.Background())
	}
	c.drop(r) // what was held for other ids belonged to no session of ours
	if err != nil {
		if c.bound != nil {
			_ = c.bound.sink.Channel().Close(context.Background())
			if ctx.Err() != nil {
				// We gave up, but the server had started the session.
				err = &AbandonedError{SessionID: c.bound.id, Err: err}
			}
		}
		return nil, err
	}
	if result != nil {
		if uerr := json.Unmarshal(raw, result); uerr != nil {
			_ = rt.sink.Channel().Close(context.Background())
			return nil, fmt.Errorf("router: decoding the result of %s: %w", r.cfg.CreateMethod, uerr)
		}
	}
	return rt.sink.Channel(), nil
}

// assignedCreation is the state of one CreateAssigned in flight. It is
// guarded by the router's mu.
type assignedCreation struct {
	bound     *route // bound by session.start, if that came first
	held      map[string][]session.Message
	heldBytes int
}

// take decides about a message for an unrouted id while c is in flight: the
// first session.start binds a route to it; anything else is held. It
// reports false if the message could not be held (over the bound).
func (c *assignedCreation) take(r *Router, id string, m session.Message) bool {
	if c.bound == nil && m.Method == session.MethodEvent && eventTypeOf(m.Params) == session.EventStart {
		c.bound = r.addRouteLocked(id)
		c.handOver(r, c.bound)
		r.deliver(c.bound, m)
		return true
	}
	size := m.Size()
	if c.heldBytes+size > r.cfg.MaxHeldBytes {
		return false
	}
	c.held[id] = append(c.held[id], m)
	c.heldBytes += size
	return true
}

// finishLocked binds the route for the id the response named. stale is a
// route that session.start bound to another id: the caller closes it once
// r.mu is released.
func (c *assignedCreation) finishLocked(r *Router, id string) (rt, stale *route) {
	if c.bound != nil && c.bound.id == id {
		return c.bound, nil
	}
	if c.bound != nil {
		// session.start named another id than the response: it was not ours.
		// Unroute it; later messages are dropped like any unknown session's.
		delete(r.routes, c.bound.id)
		stale, c.bound = c.bound, nil
	}
	rt = r.routes[id]
	if rt == nil {
		rt = r.addRouteLocked(id)
	}
	c.handOver(r, rt)
	return rt, stale
}

// handOver delivers what was held for rt's id, in arrival order.
func (c *assignedCreation) handOver(r *Router, rt *route) {
	for _, m := range c.held[rt.id] {
		r.deliver(rt, m)
		c.heldBytes -= m.Size()
	}
	delete(c.held, rt.id)
}

// drop discards what is still held, answering held requests.
func (c *assignedCreation) drop(r *Router) {
	for id, msgs := range c.held {
		for _, m := range msgs {
			r.dropUnknown(id, m)
		}
	}
	clear(c.held)
}

// closeRoute is a channel's CloseFunc: remove the route (if it is still
// this channel's) and optionally destroy the session on the server.
func (r *Router) closeRoute(ctx context.Context, rt *route, destroy bool) error {
	r.mu.Lock()
	if r.routes[rt.id] == rt {
		delete(r.routes, rt.id)
	}
	stopped := r.err != nil
	r.mu.Unlock()
	if !destroy || stopped {
		return nil // a stopped connection took its sessions with it
	}
	return r.Call(ctx, r.cfg.DestroyMethod, map[string]string{"sessionId": rt.id}, nil)
}
