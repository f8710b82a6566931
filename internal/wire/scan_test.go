package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// jsonrpc2's anyMessage type, as its read loop hands it to ReadObject;
// captured once by running a real jsonrpc2.Conn over a probe stream.
var (
	captureOnce sync.Once
	capturedMsg reflect.Type
)

type probeStream struct{ typ chan reflect.Type }

func (p probeStream) ReadObject(v any) error {
	p.typ <- reflect.TypeOf(v)
	return jsonrpc2.ErrClosed
}
func (probeStream) WriteObject(any) error { return nil }
func (probeStream) Close() error          { return nil }

func jsonrpc2MessageType(t testing.TB) reflect.Type {
	captureOnce.Do(func() {
		p := probeStream{typ: make(chan reflect.Type, 1)}
		conn := jsonrpc2.NewConn(context.Background(), p, jsonrpc2.HandlerWithError(
			func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
		capturedMsg = <-p.typ
		<-conn.DisconnectNotify()
	})
	return capturedMsg
}

// newJSONRPC2Message returns a fresh *anyMessage of jsonrpc2's own.
func newJSONRPC2Message(t testing.TB) any {
	return reflect.New(jsonrpc2MessageType(t).Elem()).Interface()
}

// The fast path fills jsonrpc2's own message value directly; if an upgrade
// of jsonrpc2 changed its layout, every frame would silently take the slow
// path, and this test fails instead.
func TestFastPathTaken(t *testing.T) {
	typ := jsonrpc2MessageType(t)
	if !isAnyMessage(typ) {
		t.Fatalf("jsonrpc2's read loop decodes into %v, which is not laid out as anyMessageLayout: the fast path is off", typ)
	}
	c := NewCodec(Limits{}, nil)
	c.detach, c.routeKey = true, "sessionId"
	v := newJSONRPC2Message(t)
	if err := c.ReadObject(frames(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s1"}}`), v); err != nil {
		t.Fatal(err)
	}
	m := asAnyMessage(v)
	if m == nil || m.request == nil || m.request.Method != "session.event" || !m.request.Notif || m.response != nil {
		t.Fatalf("filled %+v", m)
	}
	if !c.kept || string(c.detached.Route) != "s1" {
		t.Fatalf("detached %+v", c.detached)
	}
	// Other types are not mistaken for it.
	for _, v := range []any{&rpcMessage{}, &anyMsg{}, new(json.RawMessage), new(struct{ request, response *int })} {
		if isAnyMessage(reflect.TypeOf(v)) {
			t.Errorf("%T taken for jsonrpc2's message", v)
		}
	}
}

// The route and the params come out of one scan as the protocol means
// them: the last sessionId member of an object params, a string, decoded.
func TestDetachedRoute(t *testing.T) {
	for _, tc := range []struct {
		body, params, route string
		noRoute             bool
	}{
		{body: `{"jsonrpc":"2.0","method":"m","params":{"sessionId":"abc","x":1}}`, params: `{"sessionId":"abc","x":1}`, route: "abc"},
		{body: `{"method":"m","params":{"event":{"sessionId":"inner"},"sessionId":"outer"}}`, params: `{"event":{"sessionId":"inner"},"sessionId":"outer"}`, route: "outer"},
		{body: `{"method":"m","params":{"sessionId":"a","sessionId":"b"}}`, params: `{"sessionId":"a","sessionId":"b"}`, route: "b"},
		{body: `{"method":"m","params":{"sessionId":"a","sessionId":5}}`, params: `{"sessionId":"a","sessionId":5}`, noRoute: true},
		{body: `{"method":"m","params":{"sessionId":"caf\u00e9 \"q\""}}`, params: `{"sessionId":"caf\u00e9 \"q\""}`, route: `café "q"`},
		{body: `{"method":"m","params":{"SessionId":"a","sessionid":"b"}}`, params: `{"SessionId":"a","sessionid":"b"}`, noRoute: true},
		{body: `{"method":"m","params":{"sessionId":"a"},"params":{"other":1}}`, params: `{"other":1}`, noRoute: true},
		{body: `{"method":"m","params":["sessionId","a"]}`, params: `["sessionId","a"]`, noRoute: true},
		{body: `{"method":"m","params":null}`, params: `null`, noRoute: true},
		{body: " {\n\"method\" : \"m\" ,\t\"params\" : { \"sessionId\" : \"s\" } }\r\n", params: `{ "sessionId" : "s" }`, route: "s"},
	} {
		c := NewCodec(Limits{}, nil)
		c.detach, c.routeKey = true, "sessionId"
		s := &Stream{codec: c}
		if err := c.ReadObject(frames(tc.body), newJSONRPC2Message(t)); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		d, ok := s.TakeDetached()
		if !ok || string(d.Params) != tc.params || (d.Route == nil) != tc.noRoute || string(d.Route) != tc.route {
			t.Errorf("%s: got params %s route %q (%v), want %s %q", tc.body, d.Params, d.Route, ok, tc.params, tc.route)
		}
	}
}

// The params are the caller's: the next frame, read into the same buffer,
// does not change them.
func TestDetachedParamsOutliveTheBuffer(t *testing.T) {
	c := NewCodec(Limits{}, nil)
	c.detach, c.routeKey = true, "sessionId"
	s := &Stream{codec: c}
	r := frames(`{"method":"m","params":{"sessionId":"first"}}`, `{"method":"m","params":{"sessionId":"other"}}`)
	c.ReadObject(r, newJSONRPC2Message(t))
	d, _ := s.TakeDetached()
	c.ReadObject(r, newJSONRPC2Message(t))
	if string(d.Params) != `{"sessionId":"first"}` || string(d.Route) != "first" {
		t.Fatalf("the first frame's params became %s (route %s)", d.Params, d.Route)
	}
}

// Frames that are not plainly a request or notification go to jsonrpc2
// whole, and come out as it decides.
func TestOddFramesDecodedWhole(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","result":1}`,
		`[{"jsonrpc":"2.0","method":"m"}]`,
		`{"jsonrpc":"2.0","Method":"m","method":"n"}`,
		`{"jsonrpc":"2.0","\u006dethod":"m"}`,
		`{"jsonrpc":"2.0","method":"m\u0041"}`,
		`{"jsonrpc":"2.0","method":"m","id":1.5}`,
		`{"jsonrpc":"2.0","method":"m","id":{"a":1}}`,
		`{"jsonrpc":"2.0","method":"m","id":"a\nb"}`,
		`{"jsonrpc":"2.0","method":null}`,
	} {
		c := &Codec{detach: true, routeKey: "sessionId"}
		if c.decodeDetached([]byte(body), newJSONRPC2Message(t)) {
			t.Errorf("%s took the fast path", body)
		}
	}
}

// FuzzScanner holds the scanner to encoding/json: it never accepts what
// json.Valid refuses, accepts what json.Valid accepts (within its depth),
// and Members reports each member as encoding/json reads the object.
//
// Its seeds, and the failures fuzzing found (testdata/fuzz/FuzzScanner),
// run with go test.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0.5e+7`, `true`, `null`, `{"a":[1,{"b":"\u00e9\n"}],"c":false}`,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `"\x"`, "\"\x01\"", `{"a" 1}`, `nul`, `{"a":1}}`, `"\ud800"`,
		"\"\xff\"", ` { "k" : "v" } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ours, theirs := Valid(b), json.Valid(b)
		if ours && !theirs {
			t.Fatalf("Valid accepts %q, which json.Valid refuses", b)
		}
		if theirs && !ours && depthOf(b) <= maxDepth {
			t.Fatalf("Valid refuses %q, which json.Valid accepts", b)
		}
		var want map[string]json.RawMessage
		wantOK := json.Unmarshal(b, &want) == nil && want != nil
		got := map[string][]byte{}
		escapedKey := false
		ok := Members(b, func(key []byte, escaped bool, value []byte) {
			escapedKey = escapedKey || escaped
			got[string(key)] = value
		})
		if ok && !wantOK {
			t.Fatalf("Members accepts %q, which is no JSON object", b)
		}
		if !ok || escapedKey {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("Members found %d keys in %q, encoding/json %d", len(got), b, len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Fatalf("key %q of %q: Members %q, encoding/json %q", k, b, got[k], v)
			}
		}
	})
}

// depthOf is the nesting depth of b, counting brackets outside strings.
func depthOf(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// FuzzDetach holds the fast path to jsonrpc2's own decoding: for any body
// it takes, the method, id and kind are what Request.UnmarshalJSON finds,
// the params are the same JSON, and the route is params.sessionId as
// encoding/json reads it.
//
// Its seeds run with go test.
func FuzzDetach(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"t","data":{}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tool.call","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"m"}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m","params":[1]}`,
		`{"jsonrpc":"2.0","id":null,"method":"m","params":null}`,
		`{"method":"m","params":{"sessionId":"\u0041"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := &Codec{detach: true, routeKey: "sessionId"}
		v := newJSONRPC2Message(t)
		if !c.decodeDetached(body, v) {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("took %q, which is not JSON", body)
		}
		var want jsonrpc2.Request
		if err := want.UnmarshalJSON(body); err != nil {
			t.Fatalf("took %q, which jsonrpc2 refuses: %v", body, err)
		}
		got := asAnyMessage(v).request
		if got.Method != want.Method || got.ID != want.ID || got.Notif != want.Notif {
			t.Fatalf("%q: got %q %v %v, jsonrpc2 %q %v %v", body, got.Method, got.ID, got.Notif, want.Method, want.ID, want.Notif)
		}
		d := c.detached
		switch {
		case want.Params == nil && d.Params != nil, want.Params != nil && !sameJSON(*want.Params, d.Params):
			t.Fatalf("%q: params %s, jsonrpc2 %v", body, d.Params, want.Params)
		}
		var p struct {
			SessionID *string `json:"sessionId"`
		}
		if d.Params != nil && json.Unmarshal(d.Params, &p) == nil && p.SessionID != nil && !caseVariant(d.Params) {
			if string(d.Route) != *p.SessionID {
				t.Fatalf("%q: route %q, encoding/json %q", body, d.Route, *p.SessionID)
			}
		} else if d.Route != nil && !caseVariant(d.Params) {
			t.Fatalf("%q: route %q where encoding/json finds none", body, d.Route)
		}
	})
}

// caseVariant reports whether params may hold a sessionId that only
// encoding/json's case-insensitive matching finds; the route is exact.
func caseVariant(params []byte) bool {
	return bytes.Contains(bytes.ToLower(params), []byte("sessionid")) && !bytes.Contains(params, []byte(`"sessionId"`)) ||
		bytes.Count(bytes.ToLower(params), []byte("sessionid")) != bytes.Count(params, []byte("sessionId")) ||
		bytes.Contains(params, []byte(`\`))
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
