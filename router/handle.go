package router

import (
	"context"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// handler receives every request and notification on the reader. It never
// blocks: deliveries go to unbounded-until-failed mailboxes, and replies
// the router must send go to the stream's non-blocking writer.
type handler struct{ r *Router }

func (h handler) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	h.r.handle(req)
}

func (r *Router) handle(req *jsonrpc2.Request) {
	// The stream detached the params and found params.sessionId in the same
	// pass (see wire/detach.go); a message it decoded whole carries its
	// params in req, and the session id is read from them here.
	d, ok := r.stream.TakeDetached()
	if !ok {
		if req.Params != nil {
			d.Params = *req.Params
		}
		d.Route = sessionIDOf(d.Params)
	}
	if req.Notif {
		if req.Method == protocol.NotificationSessionEvent {
			r.routeTo(d.Route, session.NewNotification(req.Method, d.Params))
			return
		}
		r.publish(session.NewNotification(req.Method, d.Params))
		return
	}
	m := session.NewRequest(req.Method, req.ID, d.Params, replier{r})
	if len(d.Route) > 0 {
		r.routeTo(d.Route, m)
		return
	}
	// A request for the whole connection (host.*, installations.confirm,
	// …) goes to the subscription that asked for it, which answers it.
	if !r.publishRequest(m) {
		r.count.unsubscribed.Add(1)
		r.refuse(req.ID, jsonrpc2.CodeMethodNotFound, "method "+req.Method+" is not handled by this client")
	}
}

// routeTo delivers m to session id's channel, or drops it (answering it, if
// it is a request). An id with no route may be a server-assigned session
// whose creation is in flight: the creation decides about it (hold.go).
//
// id is the session id's bytes, as the stream found them; looking it up
// converts it without a copy, and only the rare paths that keep it make a
// string of it.
func (r *Router) routeTo(id []byte, m session.Message) {
	r.mu.Lock()
	rt := r.routes[string(id)]
	taken := rt == nil && r.creating != nil && r.creating.takeLocked(string(id), m)
	r.mu.Unlock()
	if taken {
		return
	}
	if rt == nil {
		r.dropUnknown(string(id), m)
		return
	}
	if testHookBeforeDeliver != nil {
		testHookBeforeDeliver(r, string(id))
	}
	r.deliver(rt, m)
}

func (r *Router) deliver(rt *session.Sink, m session.Message) {
	d, refused := rt.Deliver(m)
	if d == session.Delivered {
		r.count.routed.Add(1) // the hot path: one counter, nothing else
		return
	}
	r.count.requestsRefused.Add(uint64(refused))
	r.count.droppedRefused.Add(1)
	if d == session.Overflowed {
		r.count.fellBehind.Add(1)
		r.log.Warn().Str("session", rt.ID()).Msg("router: session fell behind; failed it")
	}
}

func (r *Router) dropUnknown(id string, m session.Message) {
	r.count.droppedUnknown.Add(1)
	if m.IsRequest() {
		r.refuse(m.ID, session.CodeUnavailable, "no session "+id+" on this connection")
		return
	}
	r.log.Debug().Str("session", id).Str("method", m.Method).Msg("router: dropped a message for an unknown session")
}

// refuse answers an incoming request with an error. The write is queued,
// never waited for, so the reader can call it. It is counted once queued;
// an answer that cannot be queued stops the router (reply.go).
func (r *Router) refuse(id jsonrpc2.ID, code int64, message string) {
	if (replier{r}).ReplyWithError(context.Background(), id, &jsonrpc2.Error{Code: code, Message: message}) == nil {
		r.count.requestsRefused.Add(1)
	}
}

// sessionIDOf reads params.sessionId, decoding nothing else into memory,
// for a message the stream decoded whole and for create results. It finds
// what the stream's scan finds: the last sessionId member of an object
// whose value is a string; nil for anything else.
func sessionIDOf(params json.RawMessage) []byte {
	var id []byte
	if !wire.Members(params, func(key []byte, escaped bool, value []byte) {
		if escaped || string(key) != "sessionId" {
			return
		}
		id = nil
		if s, ok := wire.String(value); ok {
			id = []byte(s)
		}
	}) {
		return nil
	}
	return id
}
