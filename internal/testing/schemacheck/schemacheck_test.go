package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/copilot/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSchemasDescribeTheWholeProtocol(t *testing.T) {
	s := Default(t)
	// 1.0.102: 619 methods (38 of them server→client), 163 event types.
	if s.Methods() < 600 || s.EventTypes() < 160 {
		t.Fatalf("loaded %d methods and %d event types; the schemas look truncated", s.Methods(), s.EventTypes())
	}
	if fromServer, known := s.FromServer(protocol.MethodHooksInvoke); !known || !fromServer {
		t.Errorf("%s: fromServer=%v known=%v; want a server→client request", protocol.MethodHooksInvoke, fromServer, known)
	}
	if fromServer, known := s.FromServer(protocol.MethodSessionSend); !known || fromServer {
		t.Errorf("%s: fromServer=%v known=%v; want a client→server method", protocol.MethodSessionSend, fromServer, known)
	}
}

func TestPingTimestampMustBeAString(t *testing.T) {
	s := Default(t)
	good := `{"message":"pong: hi","timestamp":"2026-11-22T10:00:00.000Z","protocolVersion":3}`
	if err := s.Result(protocol.MethodPing, json.RawMessage(good)); err != nil {
		t.Errorf("the real CLI's answer was refused: %v", err)
	}
	// What the simulator used to send, and the client used to expect.
	bad := `{"message":"pong: hi","timestamp":1763805600000,"protocolVersion":3}`
	if err := s.Result(protocol.MethodPing, json.RawMessage(bad)); err == nil {
		t.Error("a numeric timestamp passed")
	}
}

func TestEventsAreCheckedByType(t *testing.T) {
	s := Default(t)
	delta := func(data string) json.RawMessage { return event(protocol.EventAssistantMessageDelta, data) }
	if err := s.Event(delta(`{"messageId":"m1","deltaContent":"Hel"}`)); err != nil {
		t.Errorf("a well-formed delta was refused: %v", err)
	}
	if err := s.Event(delta(`{"messageId":"m1"}`)); err == nil {
		t.Error("a delta without deltaContent passed")
	}
	err := s.Event(json.RawMessage(`{"type":"no.such_event","data":{}}`))
	if !errors.Is(err, ErrNotInSchema) {
		t.Errorf("unknown type: %v; want ErrNotInSchema", err)
	}
}

func TestParamsOfAMethodWithoutParams(t *testing.T) {
	s := Default(t)
	for _, p := range []string{``, `null`, `{}`} {
		if err := s.Params(protocol.MethodRuntimeShutdown, json.RawMessage(p)); err != nil {
			t.Errorf("%s with %q: %v", protocol.MethodRuntimeShutdown, p, err)
		}
	}
	if err := s.Params(protocol.MethodRuntimeShutdown, json.RawMessage(`{"now":true}`)); err == nil {
		t.Error("runtime.shutdown accepted params it does not take")
	}
}

// pipe is a connection whose reads come from a script and whose writes are kept.
type pipe struct {
	io.Reader
	written bytes.Buffer
}

func (p *pipe) Write(b []byte) (int, error) { return p.written.Write(b) }
func (p *pipe) Close() error                { return nil }

// event is an ephemeral event of typ with data, as the CLI's first event.
func event(typ, data string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"id":"3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b","timestamp":"2026-11-22T10:00:00.000Z","parentId":null,"ephemeral":true,"type":%q,"data":%s}`, typ, data))
}

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func TestTapChecksBothDirections(t *testing.T) {
	s := Default(t)
	server := frame(`{"jsonrpc":"2.0","id":1,"result":{"message":"pong","timestamp":12,"protocolVersion":3}}`) +
		frame(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"sessionId":"s1","event":%s}}`, protocol.NotificationSessionEvent, event(protocol.EventSessionIdle, `{}`))) +
		frame(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"type":"session.created","sessionId":"s1"}}`, protocol.NotificationSessionLifecycle))
	p := &pipe{Reader: strings.NewReader(server)}
	tap := NewTap(s, p)
	// The client's request, written in two pieces to exercise reassembly.
	req := frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"message":"hi"}}`, protocol.MethodPing))
	if _, err := tap.Write([]byte(req[:10])); err != nil {
		t.Fatal(err)
	}
	if _, err := tap.Write([]byte(req[10:])); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, tap); err != nil {
		t.Fatal(err)
	}
	if p.written.String() != req {
		t.Errorf("the tap changed what was written: %q", p.written.String())
	}
	v := tap.Violations()
	if len(v) != 1 || !strings.Contains(v[0], "ping result") {
		t.Fatalf("violations %q; want one, about the ping result's timestamp", v)
	}
	if got := tap.Checked(); got != 2 { // the ping request and the session.idle event
		t.Errorf("checked %d messages; want 2", got)
	}
	if got := tap.Unchecked()[protocol.NotificationSessionLifecycle]; got != 1 {
		t.Errorf("unchecked session.lifecycle: %d; want 1", got)
	}
}

func TestTapRefusesARequestInTheWrongDirection(t *testing.T) {
	s := Default(t)
	p := &pipe{Reader: strings.NewReader(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":"x","method":%q,"params":{"sessionId":"s1","prompt":"hi"}}`, protocol.MethodSessionSend)))}
	tap := NewTap(s, p)
	if _, err := io.Copy(io.Discard, tap); err != nil {
		t.Fatal(err)
	}
	if v := tap.Violations(); len(v) != 1 || !strings.Contains(v[0], "other direction") {
		t.Fatalf("violations %q; want one about the direction", v)
	}
}

func TestTranslateECMA(t *testing.T) {
	for in, want := range map[string]string{
		`^[^\s\u0000-\u001F]+$`: `^[^\s\x{0000}-\x{001F}]+$`,
		`\\u0041`:               `\\u0041`,
		`\u12`:                  `\u12`,
		`a\.b`:                  `a\.b`,
	} {
		if got := translateECMA(in); got != want {
			t.Errorf("translateECMA(%q) = %q; want %q", in, got, want)
		}
	}
}
