package sim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// rawPeer is a client that reads and writes bytes, for asserting exactly what
// the server writes.
type rawPeer struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t *testing.T, srv *sim.Server) (*rawPeer, *sim.Conn) {
	t.Helper()
	rwc, sc := srv.DialConn()
	nc := rwc.(net.Conn)
	t.Cleanup(func() { nc.Close() })
	return &rawPeer{t: t, conn: nc, r: bufio.NewReader(nc)}, sc
}

// readN reads exactly n bytes (with a hang guard).
func (p *rawPeer) readN(n int) []byte {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(guard))
	b := make([]byte, n)
	if _, err := io.ReadFull(p.r, b); err != nil {
		p.t.Fatalf("reading %d bytes: %v", n, err)
	}
	return b
}

// expect reads len(want) bytes and compares them with want.
func (p *rawPeer) expect(what string, want []byte) {
	p.t.Helper()
	if got := p.readN(len(want)); !bytes.Equal(got, want) {
		p.t.Fatalf("%s: read %q, want %q", what, got, want)
	}
}

// readFrame reads one well-formed frame and returns its body.
func (p *rawPeer) readFrame() []byte {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(guard))
	line, err := p.r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "Content-Length: ") || !strings.HasSuffix(line, "\r\n") {
		p.t.Fatalf("header line %q: %v", line, err)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Content-Length: "), "\r\n"))
	if err != nil {
		p.t.Fatalf("header line %q: %v", line, err)
	}
	p.expect("end of header", []byte("\r\n"))
	return p.readN(n)
}

// write writes b (with a hang guard).
func (p *rawPeer) write(b []byte) {
	p.t.Helper()
	p.conn.SetWriteDeadline(time.Now().Add(guard))
	if _, err := p.conn.Write(b); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

type rawResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (p *rawPeer) readResponse() rawResponse {
	p.t.Helper()
	body := p.readFrame()
	var r rawResponse
	if err := json.Unmarshal(body, &r); err != nil {
		p.t.Fatalf("response %s: %v", body, err)
	}
	return r
}

func TestFaultInjectionBytes(t *testing.T) {
	srv := newServer(t, sim.Options{})
	p, c := dialRaw(t, srv)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	must(c.WriteBrokenHeader())
	p.expect("broken header", []byte("Content-Length: not-a-number\r\n\r\n"))

	// Normal traffic goes on around the faults.
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"message":"a"}}`)))
	if r := p.readResponse(); string(r.ID) != "1" || !strings.Contains(string(r.Result), `"pong: a"`) {
		t.Fatalf("%s response = %+v", protocol.MethodPing, r)
	}

	must(c.WriteInvalidJSON())
	p.expect("invalid JSON", []byte("Content-Length: 26\r\n\r\n"+`{"jsonrpc":"2.0","method":`))

	must(c.WriteFrame([]byte("42")))
	p.expect("42", []byte("Content-Length: 2\r\n\r\n42"))
	must(c.WriteFrame([]byte("{}")))
	p.expect("{}", []byte("Content-Length: 2\r\n\r\n{}"))

	must(c.WriteResponse(424242, map[string]bool{"ok": true}))
	body := `{"id":424242,"jsonrpc":"2.0","result":{"ok":true}}`
	p.expect("unknown response", []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))

	c.DoubleAnswer(protocol.MethodPing)
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"message":"b"}}`)))
	first, second := p.readFrame(), p.readFrame()
	if !bytes.Equal(first, second) || !strings.Contains(string(first), `"id":2`) {
		t.Fatalf("double answer: %s / %s", first, second)
	}
	// Only once.
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)))
	if r := p.readResponse(); string(r.ID) != "3" {
		t.Fatalf("after double answer: %+v", r)
	}
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)))
	if r := p.readResponse(); string(r.ID) != "4" {
		t.Fatalf("third ping answered twice? %+v", r)
	}

	sid, err := c.EmitUnknownSessionEvent(protocol.EventAssistantMessage)
	must(err)
	var note struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		ID      *int   `json:"id"`
		Params  struct {
			SessionID string    `json:"sessionId"`
			Event     sim.Event `json:"event"`
		} `json:"params"`
	}
	raw := p.readFrame()
	mustUnmarshal(t, raw, &note)
	if note.JSONRPC != "2.0" || note.Method != protocol.NotificationSessionEvent || note.ID != nil || note.Params.SessionID != sid ||
		note.Params.Event.Type != protocol.EventAssistantMessage || note.Params.Event.ID == "" || note.Params.Event.ParentID != nil {
		t.Fatalf("unknown-session event = %s", raw)
	}
	if len(srv.LiveSessions()) != 0 {
		t.Errorf("the event created a session")
	}

	must(c.WriteOversizeFrame(1<<40, false))
	p.expect("oversize header", []byte("Content-Length: 1099511627776\r\n\r\n"))
	must(c.WriteOversizeFrame(200_000, true))
	p.expect("oversize header", []byte("Content-Length: 200000\r\n\r\n"))
	big := p.readN(200_000)
	if big[0] != '"' || big[len(big)-1] != '"' || bytes.Count(big, []byte("x")) != 200_000-2 {
		t.Fatalf("oversize body is not one JSON string of x")
	}

	// Raw bytes land exactly between frames.
	must(c.WriteRaw([]byte("A")))
	must(c.Notify("x.y", map[string]int{"n": 1}))
	must(c.WriteRaw([]byte("B")))
	note1 := `{"jsonrpc":"2.0","method":"x.y","params":{"n":1}}`
	p.expect("raw, notification, raw", []byte(fmt.Sprintf("AContent-Length: %d\r\n\r\n%sB", len(note1), note1)))

	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	must(c.Flush(ctx))

	// An abrupt close comes after what was queued before it, and nothing
	// follows it.
	must(c.WriteRaw([]byte("Content-Length: 100\r\n\r\n{\"half")))
	must(c.CloseAbruptly())
	p.expect("half a frame", []byte("Content-Length: 100\r\n\r\n{\"half"))
	p.conn.SetReadDeadline(time.Now().Add(guard))
	if n, err := p.r.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("read after abrupt close: %d, %v", n, err)
	}
	select {
	case <-c.Done():
	case <-time.After(guard):
		t.Fatal("connection did not end after the abrupt close")
	}
	if err := c.WriteRaw([]byte("x")); err == nil {
		t.Error("WriteRaw on an ended connection succeeded")
	}
}

// TestDuplicateResponseToClient shows a jsonrpc2 client receiving a doubled
// response: the first answers the call, the second is for no pending call.
func TestDuplicateResponseToClient(t *testing.T) {
	srv := newServer(t, sim.Options{})
	c, sc := dial(t, srv)
	sc.DoubleAnswer("")
	c.mustCall(protocol.MethodPing, map[string]any{"message": "1"}, nil)
	c.mustCall(protocol.MethodPing, map[string]any{"message": "2"}, nil)
	wire := c.waitWire("3 responses", func(w []wireEntry) bool { return len(w) >= 3 })
	if !wire[0].Response || !wire[1].Response || wire[0].ID != wire[1].ID || wire[2].ID == wire[0].ID {
		t.Errorf("responses: %s", dump(wire))
	}
}

func TestCallUnknownSession(t *testing.T) {
	srv := newServer(t, sim.Options{})
	c, sc := dial(t, srv)
	c.onRequest = func(method string, params json.RawMessage) (any, error) {
		var p struct{ SessionID string }
		json.Unmarshal(params, &p)
		return nil, &jsonrpc2.Error{Code: -32602, Message: "unknown session " + p.SessionID}
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	sid, a := sc.CallUnknownSession(ctx, "")
	if a.Err != nil || a.Error == nil || a.Error.Code != -32602 || a.Error.Message != "unknown session "+sid || a.Method != protocol.MethodToolCall {
		t.Fatalf("answer = %+v", a)
	}
	got := srv.Answers()
	if len(got) != 1 || got[0].Error == nil || !strings.Contains(string(got[0].Params), sid) {
		t.Errorf("recorded answers = %+v", got)
	}

	// A client that never answers: the wait ends with ctx.
	c.onRequest = nil
	short, cancelShort := context.WithCancel(context.Background())
	cancelShort()
	_, a = sc.CallUnknownSession(short, protocol.MethodUserInputRequest)
	if !errors.Is(a.Err, context.Canceled) {
		t.Errorf("unanswered call: %+v", a)
	}
}

// TestClientGarbage sends the server bodies that are framed but are not
// JSON-RPC messages: it answers each per JSON-RPC 2.0 and keeps going.
func TestClientGarbage(t *testing.T) {
	srv := newServer(t, sim.Options{})
	p, c := dialRaw(t, srv)
	cases := []struct {
		body string
		id   string
		code int64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, "null", -32700},
		{`42`, "null", -32600},
		{`{}`, "null", -32600},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "null", -32600},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, "7", -32600},
		{`{"jsonrpc":"2.0","id":"s","result":1,"method":"ping"}`, `"s"`, -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, "null", -32600},
	}
	for _, tc := range cases {
		p.write(sim.Frame([]byte(tc.body)))
		r := p.readResponse()
		if string(r.ID) != tc.id || r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("%s: response id %s error %+v, want id %s code %d", tc.body, r.ID, r.Error, tc.id, tc.code)
		}
	}
	// A response to nothing and a notification get no answer; the next
	// request is answered next.
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":99,"result":{}}`)))
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","method":"ping","params":{}}`)))
	p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)))
	if r := p.readResponse(); string(r.ID) != `"after"` || r.Error != nil {
		t.Errorf("after garbage: %+v", r)
	}
	if got := srv.Stats().BadFrames; got != len(cases) {
		t.Errorf("bad frames = %d, want %d", got, len(cases))
	}
	select {
	case <-c.Done():
		t.Fatal("connection ended")
	default:
	}
}

// TestClientFramingErrors: a framing error ends the connection, with Err
// saying why.
func TestClientFramingErrors(t *testing.T) {
	cases := []struct {
		name, input, err string
	}{
		{"no length", "Content-Type: x\r\n\r\n{}", "no Content-Length"},
		{"bad length", "Content-Length: ten\r\n\r\n", "bad Content-Length"},
		{"oversize", "Content-Length: 5000\r\n\r\n", "exceeds the limit"},
		{"no colon", "hello\r\n\r\n", "without a colon"},
		{"bare LF", "Content-Length: 2\n\n{}", "not terminated by CRLF"},
		{"long line", "X: " + strings.Repeat("a", 9000) + "\r\n", "longer than"},
		{"truncated", "Content-Length: 50\r\n\r\n{\"jsonrpc\"", "unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, sim.Options{MaxFrameBytes: 1024})
			p, c := dialRaw(t, srv)
			p.write([]byte(tc.input))
			if tc.name == "truncated" {
				p.conn.Close()
			}
			select {
			case <-c.Done():
			case <-time.After(guard):
				t.Fatal("connection did not end")
			}
			if err := c.Err(); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Err() = %v, want it to mention %q", err, tc.err)
			}
		})
	}
}

// rawRequest is the exact body of a request whose params are given as
// raw JSON, well formed or not.
func rawRequest(id int, method, params string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
}

// FuzzServerInput feeds arbitrary bytes to a connection: the server must
// neither panic nor hang on close.
func FuzzServerInput(f *testing.F) {
	seeds := []string{
		"",
		"Content-Length: 2\r\n\r\n{}",
		string(sim.Frame(rawRequest(1, protocol.MethodSessionCreate, `{"tools":[{"name":"a"}]}`))),
		string(sim.Frame(rawRequest(1, protocol.MethodSessionSend, `{"sessionId":null,"prompt":1}`))),
		string(sim.Frame(rawRequest(-1, protocol.MethodSessionToolsHandlePendingToolCall, `[]`))),
		"Content-Length: 99999999999999999999\r\n\r\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		srv := sim.NewServer(sim.Options{MaxFrameBytes: 1 << 16})
		defer srv.Close()
		rwc, c := srv.DialConn()
		go io.Copy(io.Discard, rwc)
		rwc.(net.Conn).SetWriteDeadline(time.Now().Add(guard))
		rwc.Write(in)
		rwc.Close()
		select {
		case <-c.Done():
		case <-time.After(guard):
			t.Fatal("connection did not end")
		}
	})
}

// FuzzServerMessage frames arbitrary bodies correctly: whatever they hold,
// the server must stay in sync and answer the ping that follows.
func FuzzServerMessage(f *testing.F) {
	seeds := []string{
		`{}`, `42`, `null`, `[]`, `"x"`, `{"jsonrpc":"2.0","id":1,"method":`,
		string(rawRequest(1, protocol.MethodSessionCreate, `{"sessionId":"s","tools":[{"name":"a"}]}`)),
		string(rawRequest(2, protocol.MethodSessionSend, `{"sessionId":"s","prompt":"p"}`)),
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"result":{"x":1}}`,
		string(rawRequest(4, protocol.MethodSessionToolsHandlePendingToolCall, `{"sessionId":"s","requestId":"r","result":7}`)),
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		srv := sim.NewServer(sim.Options{})
		defer srv.Close()
		p, _ := dialRaw(t, srv)
		p.write(sim.Frame(body))
		p.write(sim.Frame(body))
		p.write(sim.Frame([]byte(`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`)))
		for {
			var r rawResponse
			if json.Unmarshal(p.readFrame(), &r) == nil && string(r.ID) == `"fuzz-ping"` {
				return
			}
		}
	})
}

// RepeatEvents sends every Nth event of a session a second time, with the
// same id, RepeatDistance events later, as the real CLI does under load.
func TestRepeatEventsSendsCopiesLater(t *testing.T) {
	srv := newServer(t, sim.Options{
		Models:       []sim.Model{textModel("m", sim.Response{Text: "one two three four five six", Chunks: 6})},
		RepeatEvents: 4, RepeatDistance: 2,
	})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": true})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	first := map[string]int{}
	var repeats int
	for i, e := range evs {
		at, seen := first[e.ID]
		if !seen {
			first[e.ID] = i
			continue
		}
		repeats++
		if evs[at].Type != e.Type || string(evs[at].Data) != string(e.Data) {
			t.Errorf("event %d repeats %s as a different event", i, e.ID)
		}
		// Two more events of the session went out in between.
		if i-at != 3 {
			t.Errorf("event %s repeated %d events after the first copy; want 3", e.ID, i-at)
		}
	}
	// Distinct events up to idle: the repeats of every 4th one are among them.
	if distinct := len(first); repeats < (distinct-3)/4 || repeats == 0 {
		t.Errorf("%d repeats among %d distinct events; want one per 4 events", repeats, distinct)
	}
}
