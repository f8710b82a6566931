package router

import "sync/atomic"

// Stats are the router's counters since it started. Each is read atomically
// on its own; the set is not one snapshot.
//
// They add up: once no creation is in flight (a creation holds messages for
// its session until it ends, then counts them), every message the reader
// took is counted in exactly one of Responses, UnknownResponses, Malformed,
// Routed, DroppedUnknown, DroppedRefused, Published and Unsubscribed (Read
// sums them). RequestsRefused, RepliesFailed and FellBehind count outcomes
// across those.
type Stats struct {
	// Routed counts messages delivered to a session's channel.
	Routed uint64
	// Responses counts responses matched to a waiting call.
	Responses uint64
	// DroppedUnknown counts messages for a session with no route: never
	// created, already closed, or an assigned id that never bound.
	DroppedUnknown uint64
	// DroppedRefused counts messages a session's channel (or every
	// subscription a global message went to) did not accept: it had failed
	// or closed, or the message made it pass its bound (FellBehind).
	DroppedRefused uint64
	// FellBehind counts sessions failed for passing their buffer bound.
	FellBehind uint64
	// Malformed counts frames skipped because their body was not a JSON-RPC
	// message.
	Malformed uint64
	// UnknownResponses counts responses to no waiting call: unknown ids,
	// duplicates, and answers to calls whose context had ended.
	UnknownResponses uint64
	// RequestsRefused counts incoming requests the router answered with an
	// error on arrival, each once its answer is queued: no session id, no
	// subscription, unknown, closed or failed session. A request that was
	// delivered (Routed) and later dropped by its channel, as it fell
	// behind or closed, is answered with an error too, and not counted
	// again. An answer of any origin that could not be queued is counted
	// in RepliesFailed instead, and stops the router (contract 4).
	RequestsRefused uint64
	// RepliesFailed counts answers to incoming requests (the router's, a
	// session's or a consumer's) that could not be queued. The first one
	// refused for backlog stops the router with an error wrapping
	// ErrWriteBacklog, so the peer is never left waiting unknowingly.
	RepliesFailed uint64
	// Published counts global notifications delivered to subscriptions (once
	// each, however many took it) and requests naming no session delivered
	// to the subscription that asked for their method.
	Published uint64
	// Unsubscribed counts global notifications that no subscriber wanted,
	// and requests naming no session that no subscription asked for
	// (answered with an error, counted in RequestsRefused too once the
	// answer is queued).
	Unsubscribed uint64
	// Sessions is the number of routes registered now.
	Sessions int
}

type counters struct {
	routed, responses, droppedUnknown, droppedRefused, fellBehind,
	malformed, unknownResponses, requestsRefused, repliesFailed, published, unsubscribed atomic.Uint64
}

// Stats returns the current counters.
func (r *Router) Stats() Stats {
	r.mu.Lock()
	n := len(r.routes)
	r.mu.Unlock()
	c := &r.count
	return Stats{
		Routed:           c.routed.Load(),
		Responses:        c.responses.Load(),
		DroppedUnknown:   c.droppedUnknown.Load(),
		DroppedRefused:   c.droppedRefused.Load(),
		FellBehind:       c.fellBehind.Load(),
		Malformed:        c.malformed.Load(),
		UnknownResponses: c.unknownResponses.Load(),
		RequestsRefused:  c.requestsRefused.Load(),
		RepliesFailed:    c.repliesFailed.Load(),
		Published:        c.published.Load(),
		Unsubscribed:     c.unsubscribed.Load(),
		Sessions:         n,
	}
}

// Read is how many messages the reader took and counted: the sum of the
// counters each message lands in exactly once.
func (s Stats) Read() uint64 {
	return s.Responses + s.UnknownResponses + s.Malformed + s.Routed + s.DroppedUnknown + s.DroppedRefused + s.Published + s.Unsubscribed
}
