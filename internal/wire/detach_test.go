package wire

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// anyMsg decodes like jsonrpc2's read loop: a request or a response.
type anyMsg struct {
	Req  *jsonrpc2.Request
	Resp *jsonrpc2.Response
}

func (m *anyMsg) UnmarshalJSON(b []byte) error {
	var probe struct {
		Method *string `json:"method"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Method != nil {
		m.Req = &jsonrpc2.Request{}
		return m.Req.UnmarshalJSON(b)
	}
	m.Resp = &jsonrpc2.Response{}
	return m.Resp.UnmarshalJSON(b)
}

func frames(bodies ...string) *bufio.Reader {
	var b strings.Builder
	for _, body := range bodies {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return bufio.NewReader(strings.NewReader(b.String()))
}

func TestDetachedParams(t *testing.T) {
	var skipped int
	c := NewCodec(Limits{}, func(error, []byte) { skipped++ })
	c.detach = true
	s := &Stream{codec: c}
	r := frames(
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s1","event":{"type":"x"}}}`,
		`{"jsonrpc":"2.0","id":"r1","method":"tool.call","params":{"sessionId":"s2"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`,
		`{"jsonrpc":"2.0","method":"ping"}`,
		`{"jsonrpc":"2.0","id":8,"method":"both","result":1}`,
		`{"jsonrpc":"2.0","method":"after"}`,
	)

	var m anyMsg
	if err := c.ReadObject(r, &m); err != nil {
		t.Fatal(err)
	}
	p, ok := takeParams(s)
	if !ok || m.Req == nil || m.Req.Method != "session.event" || !m.Req.Notif || m.Req.Params != nil ||
		string(p) != `{"sessionId":"s1","event":{"type":"x"}}` {
		t.Fatalf("notification: %+v params %s %v", m.Req, p, ok)
	}
	if _, ok := takeParams(s); ok {
		t.Fatal("params were handed out twice")
	}

	m = anyMsg{}
	c.ReadObject(r, &m)
	p, ok = takeParams(s)
	if !ok || m.Req.Notif || m.Req.ID != (jsonrpc2.ID{Str: "r1", IsString: true}) || string(p) != `{"sessionId":"s2"}` {
		t.Fatalf("request: %+v params %s", m.Req, p)
	}

	m = anyMsg{}
	c.ReadObject(r, &m)
	if _, ok := takeParams(s); ok || m.Resp == nil || string(*m.Resp.Result) != `{"ok":true}` {
		t.Fatalf("a response is decoded whole: %+v", m)
	}

	m = anyMsg{}
	c.ReadObject(r, &m)
	if p, ok := takeParams(s); ok || m.Req.Method != "ping" || p != nil {
		t.Fatalf("no params: %+v %s", m.Req, p)
	}

	// Method and result together is not plainly a request: decoded whole,
	// so whatever the decoder thinks of it stands.
	m = anyMsg{}
	c.ReadObject(r, &m)
	if _, ok := takeParams(s); ok {
		t.Fatal("an ambiguous message was detached")
	}
	m = anyMsg{}
	if err := c.ReadObject(r, &m); err != nil || m.Req.Method != "after" {
		t.Fatalf("%v %+v", err, m.Req)
	}
}

func takeParams(s *Stream) (json.RawMessage, bool) {
	d, ok := s.TakeDetached()
	return d.Params, ok
}
