package router

import (
	"context"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
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
	// The stream detached the params (see wire/detach.go); a message it
	// decoded whole carries them in req.
	params, ok := r.stream.TakeParams()
	if !ok && req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if req.Method == protocol.NotificationSessionEvent {
			r.routeTo(sessionIDOf(params), session.NewNotification(req.Method, params))
			return
		}
		r.publish(session.NewNotification(req.Method, params))
		return
	}
	m := session.NewRequest(req.Method, req.ID, params, r.conn)
	if id := sessionIDOf(params); id != "" {
		r.routeTo(id, m)
		return
	}
	// A request for the whole connection (host.*, installations.confirm,
	// …) goes to the subscription that asked for it, which answers it.
	if !r.publishRequest(m) {
		r.refuse(req.ID, jsonrpc2.CodeMethodNotFound, "method "+req.Method+" is not handled by this client")
	}
}

// routeTo delivers m to session id's channel, or drops it (answering it, if
// it is a request). An id with no route may be a server-assigned session
// whose creation is in flight: the creation decides about it (hold.go).
func (r *Router) routeTo(id string, m session.Message) {
	r.mu.Lock()
	rt := r.routes[id]
	taken := rt == nil && r.creating.takeLocked(id, m)
	r.mu.Unlock()
	if taken {
		return
	}
	if rt == nil {
		r.dropUnknown(id, m)
		return
	}
	r.deliver(rt, m)
}

func (r *Router) deliver(rt *route, m session.Message) {
	switch rt.sink.Deliver(m) {
	case session.Delivered:
		r.count.routed.Add(1)
	case session.Overflowed:
		r.count.fellBehind.Add(1)
		r.count.droppedRefused.Add(1)
		r.log.Warn().Str("session", rt.id).Msg("router: session fell behind; failed it")
	case session.Refused:
		r.count.droppedRefused.Add(1)
		if m.IsRequest() {
			r.count.requestsRefused.Add(1)
		}
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
// never waited for, so the reader can call it.
func (r *Router) refuse(id jsonrpc2.ID, code int64, message string) {
	r.count.requestsRefused.Add(1)
	if err := r.conn.ReplyWithError(context.Background(), id, &jsonrpc2.Error{Code: code, Message: message}); err != nil {
		r.log.Debug().Err(err).Msg("router: could not answer a request")
	}
}

// sessionIDOf reads params.sessionId, decoding nothing else into memory.
func sessionIDOf(params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.SessionID
}
