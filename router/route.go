package router

import (
	"context"

	"github.com/quorum-go/quorum/session"
)

// route is one registered session: an entry in r.routes, which the reader
// looks messages up in.
type route struct {
	id   string
	sink *session.Sink
}

// addRouteLocked registers a route for id. Its channel's Close removes it.
func (r *Router) addRouteLocked(id string) *route {
	rt := &route{id: id}
	rt.sink = r.newSink(id, func(context.Context, string) error { r.removeRoute(rt); return nil })
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
func (r *Router) removeRoute(rt *route) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.routes[rt.id] == rt {
		delete(r.routes, rt.id)
	}
}
