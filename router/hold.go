package router

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// A server-assigned creation (CreateAssigned) does not know its session's id
// until session.start or the create response names it, and either may come
// first. While one is in flight the reader hands it every message for an id
// that has no route, through takeLocked and nowhere else: the first
// session.start binds a route to its id, and anything else is held, in case
// the response names its id. end settles the creation when the response has
// come. Everything the reader and the creator share about it is here.

// creationHold is one CreateAssigned in flight. It is guarded by r.mu, and
// r.creating points to it until end (or the router's stop) lets it go.
type creationHold struct {
	r     *Router
	bound *session.Sink // bound by session.start, if that came first
	held  map[string][]session.Message
	bytes int // the Size of what is held, bounded by Config.MaxHeldBytes

	// late, made when the creator gave up before the response, delivers
	// the id the late response names (AbandonedError.Assigned); lateOnce
	// closes it once, whether the response or the router's stop comes first.
	late     chan string
	lateOnce sync.Once
}

// beginHold makes a creation about to be sent the one in flight. The caller
// holds r.createSlot, so there is no other.
func (r *Router) beginHold() (*creationHold, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	// The one creation in flight binds one route: make room for it now.
	if err := r.roomLocked(); err != nil {
		return nil, err
	}
	h := &creationHold{r: r, held: make(map[string][]session.Message)}
	r.creating = h
	return h, nil
}

// takeLocked decides about a message m for an id with no route, and reports
// whether the creation took it. The first session.start binds a route to its
// id, hands over what was held for that id and delivers m after it; anything
// else is held. A message that would pass Config.MaxHeldBytes is not taken.
// With no creation in flight (h is nil) or no id, nothing is taken.
func (h *creationHold) takeLocked(id string, m session.Message) bool {
	if h == nil || id == "" {
		return false
	}
	if h.bound == nil && m.Method == protocol.NotificationSessionEvent && eventTypeOf(m.Params) == protocol.EventSessionStart {
		h.bound = h.r.addRouteLocked(id)
		h.handOverLocked(h.bound)
		h.r.deliver(h.bound, m)
		return true
	}
	size := m.Size()
	if h.bytes+size > h.r.cfg.MaxHeldBytes {
		return false
	}
	h.held[id] = append(h.held[id], m)
	h.bytes += size
	return true
}

// end stops holding once the create call has returned. With err nil it
// returns the route of the id the response named, what was held for that id
// handed over to it. With err, it closes what session.start bound and
// returns err, as an *AbandonedError if ctx (the creator's) has ended: the
// server had started that session. Whatever is still held belonged to no
// session of ours and is dropped either way.
func (h *creationHold) end(ctx context.Context, id string, err error) (*session.Sink, error) {
	r := h.r
	r.mu.Lock()
	if r.creating != h { // the router stopped meanwhile and dropped h
		r.mu.Unlock()
		if stopped := r.Err(); stopped != nil {
			return nil, stopped
		}
		return nil, err
	}
	r.creating = nil
	var rt, stale *session.Sink
	if err == nil {
		rt, stale, err = h.bindLocked(id)
	}
	r.mu.Unlock()
	if stale != nil {
		// Closing answers any request delivered to it: nobody else will.
		_ = stale.Channel().Close(context.Background())
	}
	h.drop()
	if err != nil {
		if h.bound != nil {
			_ = h.bound.Channel().Close(context.Background())
			if ctx.Err() != nil {
				// We gave up, but the server had started the session.
				err = &AbandonedError{SessionID: h.bound.ID(), Err: err}
			}
		}
		return nil, err
	}
	return rt, nil
}

// bindLocked binds the route for the id the response named. stale is a
// route that session.start bound to another id: the caller closes it once
// r.mu is released.
func (h *creationHold) bindLocked(id string) (rt, stale *session.Sink, err error) {
	if h.bound != nil && h.bound.ID() == id {
		return h.bound, nil, nil
	}
	if h.bound != nil {
		// session.start named another id than the response: it was not ours.
		// Unroute it; later messages are dropped like any unknown session's.
		delete(h.r.routes, h.bound.ID())
		stale, h.bound = h.bound, nil
	}
	if h.r.routes[id] != nil {
		// Someone else's channel: sharing its mailbox would split its
		// messages between two owners.
		return nil, stale, fmt.Errorf("%w: the response to %s named %s", ErrSessionExists, h.r.cfg.CreateMethod, id)
	}
	rt = h.r.addRouteLocked(id)
	h.handOverLocked(rt)
	return rt, stale, nil
}

// awaitLateLocked is the creator giving up before the response (call's
// onLate, under r.mu). With session.start not come yet, the creation stays
// in flight until the response names the session (settleLate); with it
// come, end reports the bound id at once, and nothing is awaited.
func (h *creationHold) awaitLateLocked() func(*jsonrpc2.Response) {
	if h.r.creating != h || h.bound != nil {
		return nil
	}
	h.late = make(chan string, 1)
	return h.settleLate
}

// settleLate ends an abandoned creation when its response comes, on the
// reader: it unroutes what session.start bound, drops what was held,
// reports the session's id (from the response, else session.start's) on
// h.late for its owner to destroy, and lets the next creation in.
func (h *creationHold) settleLate(resp *jsonrpc2.Response) {
	r := h.r
	var id string
	if resp.Error == nil && resp.Result != nil {
		id = string(sessionIDOf(*resp.Result))
	}
	r.mu.Lock()
	// Only the one that takes h off the router drops what it held: a stop
	// that came first took it, and drops it itself (router.go).
	mine := r.creating == h
	if mine {
		r.creating = nil
	}
	bound := h.bound
	r.mu.Unlock()
	if bound != nil {
		if id == "" {
			id = bound.ID()
		}
		_ = bound.Channel().Close(context.Background())
	}
	if mine {
		h.drop()
	}
	h.settle(id)
	<-r.createSlot
}

// settle reports id ("" for none) on h.late, if the creator is waiting for
// it, and closes it; only the first call counts.
func (h *creationHold) settle(id string) {
	if h.late == nil {
		return
	}
	h.lateOnce.Do(func() {
		if id != "" {
			h.late <- id
		}
		close(h.late)
	})
}

// handOverLocked delivers what was held for rt's id, in arrival order. It
// runs under r.mu, in the same hold of it that made rt findable, so the
// reader cannot deliver a later message to rt ahead of these.
func (h *creationHold) handOverLocked(rt *session.Sink) {
	for _, m := range h.held[rt.ID()] {
		h.r.deliver(rt, m)
		h.bytes -= m.Size()
	}
	delete(h.held, rt.ID())
}

// drop discards what is still held, answering held requests.
func (h *creationHold) drop() {
	for id, msgs := range h.held {
		for _, m := range msgs {
			h.r.dropUnknown(id, m)
		}
	}
	clear(h.held)
}

// eventTypeOf reads params.event.type of a session.event.
func eventTypeOf(params json.RawMessage) string {
	var p struct {
		Event struct {
			Type string `json:"type"`
		} `json:"event"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Event.Type
}
