package sim

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// Stats is a snapshot of what a Server has seen, for tests to assert on.
type Stats struct {
	// Calls counts the requests and notifications received, by method name
	// (unknown methods included).
	Calls map[string]int
	// LiveSessions is how many sessions exist on all connections.
	LiveSessions int
	// RunningTurns is how many turns run now; MaxConcurrentTurns is the most
	// that ever ran at once.
	RunningTurns       int
	MaxConcurrentTurns int
	// Connections is how many connections are being served now.
	Connections int
	// BadFrames counts well-framed bodies that were not usable JSON-RPC
	// messages (answered with -32700 or -32600 and skipped).
	BadFrames int
	// Sent counts the JSON-RPC messages written to clients: responses,
	// notifications and requests, each once it is on the wire. What a
	// fault writes as it is (Conn.WriteRaw, WriteFrame, WriteResponse,
	// garbage) is not counted.
	Sent int
}

// Answer is a client's answer to a server→client request (a legacy
// tool.call, the userInput.request of Response.AskUser, or a request sent with
// Conn.Call).
type Answer struct {
	Method string
	Params json.RawMessage
	// Result is the answer's result when it succeeded.
	Result json.RawMessage
	// Error is the JSON-RPC error the client answered with, if any.
	Error *RPCError
	// Err is set when no answer came: the connection closed or the wait was
	// cancelled.
	Err error
}

// Received is one request or notification a client sent, as the server
// read it (Options.RecordCalls).
type Received struct {
	// Conn numbers the connection it came on, from 1 in the order the
	// server accepted them.
	Conn   int
	Method string
	// Params are the params as sent; nil when there were none.
	Params       json.RawMessage
	Notification bool
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

// recorder collects observations shared by all connections of a server.
type recorder struct {
	mu        sync.Mutex
	calls     map[string]int
	running   int
	maxTurns  int
	badFrames int
	sentN     int
	answers   []Answer
	received  []Received // with Options.RecordCalls
}

// call counts a request or notification received and, when record is
// set, keeps it with its params.
func (r *recorder) call(conn int, req *jsonrpc2.Request, record bool) {
	r.mu.Lock()
	if r.calls == nil {
		r.calls = make(map[string]int)
	}
	r.calls[req.Method]++
	if record {
		rc := Received{Conn: conn, Method: req.Method, Notification: req.Notif}
		if req.Params != nil {
			rc.Params = slices.Clone(*req.Params)
		}
		r.received = append(r.received, rc)
	}
	r.mu.Unlock()
}

func (r *recorder) turnStarted() {
	r.mu.Lock()
	r.running++
	r.maxTurns = max(r.maxTurns, r.running)
	r.mu.Unlock()
}

func (r *recorder) turnEnded() {
	r.mu.Lock()
	r.running--
	r.mu.Unlock()
}

// sent counts a message written, for Stats.Sent, and passes err on.
func (r *recorder) sent(err error) error {
	if err == nil {
		r.mu.Lock()
		r.sentN++
		r.mu.Unlock()
	}
	return err
}

func (r *recorder) badFrame() {
	r.mu.Lock()
	r.badFrames++
	r.mu.Unlock()
}

func (r *recorder) answer(a Answer) {
	r.mu.Lock()
	r.answers = append(r.answers, a)
	r.mu.Unlock()
}

func (r *recorder) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{
		Calls:              maps.Clone(r.calls),
		RunningTurns:       r.running,
		MaxConcurrentTurns: r.maxTurns,
		BadFrames:          r.badFrames,
		Sent:               r.sentN,
	}
}
