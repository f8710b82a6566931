package router

import (
	"context"

	"github.com/quorum-go/quorum/session"
)

// A route is a registered session: its channel's Sink, in r.routes under
// the session's id, which the reader looks messages up in. The Sink is the
// route itself (there is no wrapper): its pointer tells one registration of
// an id from a later one (see removeRoute).

// addRouteLocked registers a route for id. Its channel's Close removes it.
func (r *Router) addRouteLocked(id string) *session.Sink {
	var rt *session.Sink
	rt = r.newSink(id, func(context.Context, string) error { r.removeRoute(rt); return nil })
	r.routes[id] = rt
	return rt
}

// newSink makes the channel of a route or a subscription, bounded by
// Config.MaxSessionBufferBytes and MaxSessionStall.
func (r *Router) newSink(id string, onClose session.CloseFunc) *session.Sink {
	_, sink, err := session.New(id, session.Config{MaxBufferedBytes: r.cfg.MaxSessionBufferBytes, MaxStall: r.cfg.MaxSessionStall, MaxTurnTextBytes: r.cfg.MaxTurnTextBytes}, onClose)
	if err != nil {
		// New validated the bound (Config.Validate): nothing else can fail.
		panic(err)
	}
	return sink
}

// removeRoute is a channel's CloseFunc: it removes the route if it is still
// this channel's (the id may have been unrouted since, as a stale route of
// CreateAssigned is, and routed again). The session lives on on the server:
// ending it is a call of its owner's.
func (r *Router) removeRoute(rt *session.Sink) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.routes[rt.ID()] == rt {
		delete(r.routes, rt.ID())
	}
}
