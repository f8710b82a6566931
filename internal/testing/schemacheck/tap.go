package schemacheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Tap checks the JSON-RPC traffic on one connection against the schemas. It
// wraps the client's end: what the client writes is checked as sent to the
// CLI, what it reads as sent by the CLI. A tap adds no goroutine and never
// changes a byte; it only parses Content-Length frames as they pass.
type Tap struct {
	io.ReadWriteCloser
	schemas *Schemas

	mu         sync.Mutex
	toServer   testutil.Frames
	fromServer testutil.Frames
	// pending maps a request id to its method, per direction, so that a
	// response can be checked against its method's result schema.
	clientCalls map[string]string
	serverCalls map[string]string
	checked     int
	unchecked   map[string]int
	violations  []string
}

// NewTap wraps rwc, the client's end of a connection to the CLI or to a
// simulator.
func NewTap(s *Schemas, rwc io.ReadWriteCloser) *Tap {
	return &Tap{
		ReadWriteCloser: rwc,
		schemas:         s,
		clientCalls:     map[string]string{},
		serverCalls:     map[string]string{},
		unchecked:       map[string]int{},
	}
}

// Check wraps rwc in a Tap whose violations fail t when the test ends.
func Check(t testing.TB, s *Schemas, rwc io.ReadWriteCloser) *Tap {
	tap := NewTap(s, rwc)
	t.Cleanup(func() {
		for _, v := range tap.Violations() {
			t.Errorf("schema violation: %s", v)
		}
	})
	return tap
}

func (t *Tap) Read(p []byte) (int, error) {
	n, err := t.ReadWriteCloser.Read(p)
	if n > 0 {
		t.observe(p[:n], false)
	}
	return n, err
}

func (t *Tap) Write(p []byte) (int, error) {
	n, err := t.ReadWriteCloser.Write(p)
	if n > 0 {
		t.observe(p[:n], true)
	}
	return n, err
}

// Checked returns how many messages were checked against a schema.
func (t *Tap) Checked() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.checked
}

// Unchecked returns, per method (or event type), how many messages the
// schemas do not describe.
func (t *Tap) Unchecked() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.unchecked))
	for k, v := range t.unchecked {
		out[k] = v
	}
	return out
}

// Violations returns every message that broke its schema, in order.
func (t *Tap) Violations() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.violations...)
}

func (t *Tap) observe(b []byte, toServer bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := &t.fromServer
	if toServer {
		f = &t.toServer
	}
	bodies, err := f.Feed(b)
	for _, body := range bodies {
		t.inspect(body, toServer)
	}
	if err != nil {
		t.violations = append(t.violations, fmt.Sprintf("%s: %v", direction(toServer), err))
	}
}

// message is the part of a JSON-RPC message the tap needs.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (t *Tap) inspect(body []byte, toServer bool) {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		t.violations = append(t.violations, fmt.Sprintf("%s: not a JSON-RPC message: %v", direction(toServer), err))
		return
	}
	mine, theirs := t.serverCalls, t.clientCalls
	if toServer {
		mine, theirs = t.clientCalls, t.serverCalls
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		mine[string(m.ID)] = m.Method
		t.record(m.Method, t.checkRequest(m, toServer))
	case m.Method == protocol.NotificationSessionEvent && !toServer:
		var p struct {
			SessionID string          `json:"sessionId"`
			Event     json.RawMessage `json:"event"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.SessionID == "" || len(p.Event) == 0 {
			t.violations = append(t.violations, fmt.Sprintf("%s without sessionId and event: %s", protocol.NotificationSessionEvent, clip(m.Params)))
			return
		}
		t.record(protocol.NotificationSessionEvent, t.schemas.Event(p.Event))
	case m.Method != "":
		t.record(m.Method, ErrNotInSchema) // session.lifecycle and the like
	default:
		method, ok := theirs[string(m.ID)]
		if !ok {
			return // a response to nothing; the peer's own tests judge that
		}
		delete(theirs, string(m.ID))
		if len(m.Error) > 0 && string(m.Error) != "null" {
			return
		}
		t.record(method, t.schemas.Result(method, m.Result))
	}
}

func (t *Tap) checkRequest(m message, toServer bool) error {
	fromServer, known := t.schemas.FromServer(m.Method)
	if !known {
		return ErrNotInSchema
	}
	if fromServer == toServer {
		return fmt.Errorf("%s sent %s, which the schemas define for the other direction", direction(toServer), m.Method)
	}
	return t.schemas.Params(m.Method, m.Params)
}

func (t *Tap) record(what string, err error) {
	switch {
	case err == nil:
		t.checked++
	case errors.Is(err, ErrNotInSchema):
		t.unchecked[what]++
	default:
		t.violations = append(t.violations, err.Error())
	}
}

func direction(toServer bool) string {
	if toServer {
		return "client→server"
	}
	return "server→client"
}
