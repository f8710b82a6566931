package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// hang guards: generous, only there so that a bug fails a test instead of
// hanging it. No test asserts on elapsed time.
const guard = 20 * time.Second

// wireEntry is one message the client received, in read order.
type wireEntry struct {
	Notif    bool   // a request or notification from the server
	Method   string // for requests and notifications
	Params   json.RawMessage
	Response bool
	ID       jsonrpc2.ID // for responses
	Session  string      // for session.event: its sessionId
}

// sessionEvent is the params of a session.event notification.
type sessionEvent struct {
	SessionID string    `json:"sessionId"`
	Event     sim.Event `json:"event"`
}

// client is a plain jsonrpc2 client over a synchronous pipe, recording
// everything it reads in order, with session events indexed by session.
// Server→client requests are answered by onRequest on their own goroutine
// (never on the read loop).
type client struct {
	t      *testing.T
	rpc    *jsonrpc2.Conn
	cancel context.CancelFunc

	mu      sync.Mutex
	wire    []wireEntry
	events_ map[string][]sim.Event // by session id
	idles   map[string]int         // session.idle events by session id
	changed chan struct{}

	onRequest func(method string, params json.RawMessage) (any, error)
	onNotify  func(method string, params json.RawMessage) // on the read loop
	answering sync.WaitGroup
}

func newClient(t *testing.T, rwc io.ReadWriteCloser) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, cancel: cancel, changed: make(chan struct{}), events_: map[string][]sim.Event{}, idles: map[string]int{}}
	stream := jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{})
	c.rpc = jsonrpc2.NewConn(ctx, stream, clientHandler{c},
		jsonrpc2.OnRecv(c.record),
		jsonrpc2.SetLogger(discard{}))
	t.Cleanup(c.close)
	return c
}

func (c *client) close() {
	c.rpc.Close()
	c.cancel()
	c.answering.Wait()
}

type discard struct{}

func (discard) Printf(string, ...any) {}

func (c *client) record(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	var e wireEntry
	var se sessionEvent
	switch {
	case resp != nil:
		e = wireEntry{Response: true, ID: resp.ID}
	case req != nil:
		e = wireEntry{Notif: true, Method: req.Method}
		if req.Params != nil {
			e.Params = append(json.RawMessage(nil), *req.Params...)
		}
		if req.Method == protocol.NotificationSessionEvent && json.Unmarshal(e.Params, &se) == nil {
			e.Session = se.SessionID
		}
	default:
		return
	}
	c.mu.Lock()
	c.wire = append(c.wire, e)
	if e.Session != "" {
		c.events_[e.Session] = append(c.events_[e.Session], se.Event)
		if se.Event.Type == protocol.EventSessionIdle {
			c.idles[e.Session]++
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

type clientHandler struct{ c *client }

func (h clientHandler) Handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	c := h.c
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if c.onNotify != nil {
			c.onNotify(req.Method, params)
		}
		return
	}
	// A request: answer off the read loop.
	c.answering.Add(1)
	go func() {
		defer c.answering.Done()
		var result any
		var err error
		if c.onRequest == nil {
			err = &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "no handler for " + req.Method}
		} else {
			result, err = c.onRequest(req.Method, params)
		}
		if err != nil {
			var rerr *jsonrpc2.Error
			if !errors.As(err, &rerr) {
				rerr = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			}
			conn.ReplyWithError(context.Background(), req.ID, rerr)
			return
		}
		conn.Reply(context.Background(), req.ID, result)
	}()
}

// call makes a call with a hang guard and unmarshals the result into out.
func (c *client) call(method string, params, out any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	return c.rpc.Call(ctx, method, params, out)
}

// mustCall is call that fails the test on error.
func (c *client) mustCall(method string, params, out any) {
	c.t.Helper()
	if err := c.call(method, params, out); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// rpcError returns err as a JSON-RPC error or fails the test.
func rpcError(t *testing.T, err error) *jsonrpc2.Error {
	t.Helper()
	var rerr *jsonrpc2.Error
	if !errors.As(err, &rerr) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return rerr
}

// wait waits until cond, called with c.mu held, holds.
func (c *client) wait(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok := cond()
		changed := c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			c.mu.Lock()
			wire := dump(c.wire)
			c.mu.Unlock()
			c.t.Fatalf("timed out waiting for %s; read so far:\n%s", what, wire)
		}
	}
}

// waitWire waits until pred holds for what has been read so far.
func (c *client) waitWire(what string, pred func([]wireEntry) bool) []wireEntry {
	c.t.Helper()
	var wire []wireEntry
	c.wait(what, func() bool {
		if pred(c.wire) {
			wire = slices.Clone(c.wire)
			return true
		}
		return false
	})
	return wire
}

// events returns the session.event notifications read so far for sessionID.
func (c *client) events(sessionID string) []sim.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events_[sessionID])
}

// waitEvents waits until pred holds for sessionID's events.
func (c *client) waitEvents(sessionID, what string, pred func([]sim.Event) bool) []sim.Event {
	c.t.Helper()
	var evs []sim.Event
	c.wait(what, func() bool {
		if pred(c.events_[sessionID]) {
			evs = slices.Clone(c.events_[sessionID])
			return true
		}
		return false
	})
	return evs
}

// waitIdle waits for the n-th session.idle of sessionID and returns the
// session's events up to and including it.
func (c *client) waitIdle(sessionID string, n int) []sim.Event {
	c.t.Helper()
	var evs []sim.Event
	c.wait(fmt.Sprintf("%s #%d of %s", protocol.EventSessionIdle, n, sessionID), func() bool {
		if c.idles[sessionID] < n {
			return false
		}
		all, seen := c.events_[sessionID], 0
		for i, e := range all {
			if e.Type == protocol.EventSessionIdle {
				if seen++; seen == n {
					evs = slices.Clone(all[:i+1])
					break
				}
			}
		}
		return true
	})
	return evs
}

// waitType waits until sessionID has an event of type typ and returns the
// first one.
func (c *client) waitType(sessionID, typ string) sim.Event {
	c.t.Helper()
	var ev sim.Event
	c.wait(typ+" of "+sessionID, func() bool {
		for _, e := range c.events_[sessionID] {
			if e.Type == typ {
				ev = e
				return true
			}
		}
		return false
	})
	return ev
}

func count(evs []sim.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func types(evs []sim.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// text joins the deltaContent of the message_delta events.
func deltas(t *testing.T, evs []sim.Event) string {
	t.Helper()
	var s string
	for _, e := range evs {
		if e.Type == protocol.EventAssistantMessageDelta {
			var d struct{ DeltaContent string }
			mustUnmarshal(t, e.Data, &d)
			s += d.DeltaContent
		}
	}
	return s
}

// messageContent returns the content of the last assistant.message.
func messageContent(t *testing.T, evs []sim.Event) string {
	t.Helper()
	content, found := "", false
	for _, e := range evs {
		if e.Type == protocol.EventAssistantMessage {
			var d struct{ Content string }
			mustUnmarshal(t, e.Data, &d)
			content, found = d.Content, true
		}
	}
	if !found {
		t.Fatalf("no assistant.message in %v", types(evs))
	}
	return content
}

// sameJSON reports whether a and b are the same JSON value. Byte equality
// is too strict: the test client's jsonrpc2 re-encodes a notification's
// params (sorting object keys), but not a response's result.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var va, vb any
	mustUnmarshal(t, a, &va)
	mustUnmarshal(t, b, &vb)
	return reflect.DeepEqual(va, vb)
}

func mustUnmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("unmarshal %s: %v", raw, err)
	}
}

func dump(wire []wireEntry) string {
	var s string
	for _, e := range wire {
		if e.Response {
			s += fmt.Sprintf("  response %s\n", e.ID)
		} else {
			s += fmt.Sprintf("  %s %.200s\n", e.Method, e.Params)
		}
	}
	return s
}

// isLifecycle reports whether e is a session.lifecycle notification of typ.
func isLifecycle(e wireEntry, typ string) bool {
	var l protocol.LifecycleNotification
	return e.Method == protocol.NotificationSessionLifecycle && json.Unmarshal(e.Params, &l) == nil && l.Type == typ
}

// newServer starts a server with opts and registers its Close.
func newServer(t *testing.T, opts sim.Options) *sim.Server {
	t.Helper()
	srv := sim.NewServer(opts)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// dial connects a new client to srv.
func dial(t *testing.T, srv *sim.Server) (*client, *sim.Conn) {
	t.Helper()
	rwc, conn := srv.DialConn()
	return newClient(t, rwc), conn
}

// createSession creates a session and returns its id.
func (c *client) createSession(params map[string]any) string {
	c.t.Helper()
	var res struct {
		SessionID     string `json:"sessionId"`
		WorkspacePath string `json:"workspacePath"`
	}
	c.mustCall(protocol.MethodSessionCreate, params, &res)
	if res.SessionID == "" {
		c.t.Fatalf("%s returned no sessionId", protocol.MethodSessionCreate)
	}
	return res.SessionID
}

// send sends a prompt and returns the messageId.
func (c *client) send(sessionID, prompt string) string {
	c.t.Helper()
	var res struct {
		MessageID string `json:"messageId"`
	}
	c.mustCall(protocol.MethodSessionSend, map[string]any{"sessionId": sessionID, "prompt": prompt}, &res)
	if res.MessageID == "" {
		c.t.Fatalf("%s returned no messageId", protocol.MethodSessionSend)
	}
	return res.MessageID
}

// textModel is a model that answers every call with r.
func textModel(id string, r sim.Response) sim.Model {
	return sim.Model{ID: id, Respond: sim.Always(r)}
}
