package copilottest

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Request is one request a client sent the server.
type Request struct {
	// Conn numbers the connection it came on, from 1 (the client
	// NewServer connected) in the order they were opened.
	Conn   int
	Method string
	// Params are the params as sent; nil when there were none.
	Params json.RawMessage
}

// Decode unmarshals the request's params into v, a protocol params type
// (protocol.SessionSendParams, …) or any Go value.
func (r Request) Decode(v any) error {
	if len(r.Params) == 0 {
		return fmt.Errorf("copilottest: %s had no params", r.Method)
	}
	return json.Unmarshal(r.Params, v)
}

// Requests returns the requests clients sent, in the order the server read
// them; with methods, only those of these methods (protocol.Method…
// constants: session.create, session.send, …).
func (s *Server) Requests(methods ...string) []Request {
	var out []Request
	for _, r := range s.srv.Received() {
		if len(methods) == 0 || slices.Contains(methods, r.Method) {
			out = append(out, Request{Conn: r.Conn, Method: r.Method, Params: r.Params})
		}
	}
	return out
}

// Events returns the events the server sent for a session, in the order
// they went on the wire — after the faults: a dropped event is not there,
// a duplicated one is there twice.
func (s *Server) Events(sessionID string) []copilot.Event {
	s.wire.mu.Lock()
	defer s.wire.mu.Unlock()
	return slices.Clone(s.wire.events[sessionID])
}

// wire records the session events the server writes, on every connection.
type wire struct {
	mu     sync.Mutex
	events map[string][]copilot.Event
}

// tap wraps the server's end of a connection so that what the server
// writes is recorded.
func (w *wire) tap(rwc io.ReadWriteCloser) io.ReadWriteCloser {
	return &tapped{ReadWriteCloser: rwc, w: w}
}

type tapped struct {
	io.ReadWriteCloser
	w *wire

	mu     sync.Mutex // the engine writes from one goroutine; this keeps it so
	frames testutil.Frames
}

func (t *tapped) Write(p []byte) (int, error) {
	n, err := t.ReadWriteCloser.Write(p)
	if n > 0 {
		t.mu.Lock()
		bodies, _ := t.frames.Feed(p[:n]) // a broken frame is the engine's fault injection, not an event
		t.mu.Unlock()
		for _, b := range bodies {
			t.w.record(b)
		}
	}
	return n, err
}

func (w *wire) record(body []byte) {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			SessionID string        `json:"sessionId"`
			Event     copilot.Event `json:"event"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != protocol.NotificationSessionEvent {
		return
	}
	w.mu.Lock()
	if w.events == nil {
		w.events = map[string][]copilot.Event{}
	}
	w.events[msg.Params.SessionID] = append(w.events[msg.Params.SessionID], msg.Params.Event)
	w.mu.Unlock()
}
