package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/sourcegraph/jsonrpc2"
)

// Why params are detached, and the envelope built by hand: jsonrpc2's
// Request.UnmarshalJSON decodes a message's params into a map and encodes
// them again, and its message decoding runs encoding/json twice more on the
// envelope; together with the router's own look for params.sessionId that
// was about 55% of the reader's and its consumers' CPU per event
// (BenchmarkEvents in internal/bench, 64 sessions, BENCHMARKS.md). With
// detach on, the codec scans each frame once (scan.go): it finds method, id
// and params, and the string at params[Hooks.RouteKey], copies the params
// once, and builds jsonrpc2's Request itself. The router's handler, which
// jsonrpc2's read loop calls on the same goroutine right after ReadObject
// returns and before it reads again, takes the params with TakeDetached.
//
// Responses, batches, and anything not plainly a request or notification
// (a method that is not a plain string, an id that is neither a plain
// string nor an integer, a top-level key that differs from a JSON-RPC
// member only in case or hides behind an escape) are decoded by jsonrpc2
// whole, so its validation of odd messages is unchanged.
//
// What jsonrpc2 hands its handler differs in two ways on the fast path, and
// the router uses neither: Request.Params is nil (the params are detached),
// and Meta and ExtraFields are not filled in.

// envelope is what one scan of a frame found: spans of the body.
type envelope struct {
	method, id, params []byte // raw values; nil when absent
	route              []byte // params[routeKey]'s contents, when a plain string
	routeStart         int    // offset of route in the body
	routeEscaped       bool   // the route string holds an escape: decode it
	other              bool   // result, error, or a key that needs jsonrpc2's judgement
	scanned            []byte // the body
}

// jsonrpc2's members, whose presence decides what a message is.
var envelopeKeys = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// scanEnvelope scans body once, validating all of it, and reports whether
// it is plainly a request or notification that the fast path can take.
func (c *Codec) scanEnvelope(body []byte, e *envelope) bool {
	s := scanner{b: body}
	s.ws()
	if s.i >= len(body) || body[s.i] != '{' {
		return false // a batch, or not a message: jsonrpc2 decides
	}
	ok := s.object(func(key []byte, escaped bool, start, end int) {
		if escaped {
			// It might spell a member of the envelope: let jsonrpc2 decide.
			e.other = true
			return
		}
		c.envelopeMember(e, key, body[start:end])
	}, func(key []byte, escaped bool) bool {
		if escaped || string(key) != "params" {
			return false
		}
		e.route, e.routeEscaped = nil, false // the last params wins
		return true
	}, func(k []byte, escaped bool, start, end int) {
		c.paramsMember(e, k, escaped, start, end)
	})
	s.ws()
	return ok && s.i == len(body) && !e.other && e.method != nil
}

// envelopeMember records one top-level member.
func (c *Codec) envelopeMember(e *envelope, key, value []byte) {
	switch string(key) {
	case "method":
		e.method = value
	case "id":
		e.id = value
	case "params":
		e.params = value
		if value[0] != '{' {
			e.route, e.routeEscaped = nil, false
		}
	case "result", "error":
		e.other = true
	case "jsonrpc":
	default:
		for _, k := range envelopeKeys {
			if bytes.EqualFold(key, []byte(k)) {
				// jsonrpc2 matches some members regardless of case.
				e.other = true
			}
		}
	}
}

// paramsMember looks at one member of an object params for the route key.
// The last one wins, as in encoding/json.
func (c *Codec) paramsMember(e *envelope, key []byte, escaped bool, start, end int) {
	if c.routeKey == "" || escaped || string(key) != c.routeKey {
		return
	}
	b := e.scanned
	if b[start] != '"' {
		e.route, e.routeEscaped = nil, false
		return
	}
	e.route = b[start+1 : end-1]
	e.routeStart = start + 1
	e.routeEscaped = !Plain(e.route)
}

// Detached is what the codec kept of the request or notification that
// ReadObject returned last (see TakeDetached).
type Detached struct {
	// Params are the message's params as raw JSON, a copy the caller owns;
	// nil when the message had none.
	Params json.RawMessage
	// Route is the string at params[Hooks.RouteKey], decoded; nil when
	// params is not an object or that member is not a string. It shares
	// its bytes with Params when it holds no escape.
	Route []byte
}

// TakeDetached returns what was kept of the request or notification
// ReadObject returned last, and forgets it. It must be called on the
// reading goroutine, before the next ReadObject. ok is false when nothing
// was detached (detach off, no params, or the frame was decoded whole: the
// decoded value then holds the params).
func (s *Stream) TakeDetached() (d Detached, ok bool) {
	c := s.codec
	if !c.detach || !c.kept {
		return Detached{}, false
	}
	d, c.detached, c.kept = c.detached, Detached{}, false
	return d, d.Params != nil
}

// keep records the detached parts of the frame e was scanned from: one
// copy of the params, the route pointing into it.
func (c *Codec) keep(body []byte, e *envelope) {
	c.kept = true
	c.detached = Detached{}
	if e.params == nil {
		return
	}
	pstart := int(uintptr(unsafe.Pointer(unsafe.SliceData(e.params))) - uintptr(unsafe.Pointer(unsafe.SliceData(body))))
	params := append(json.RawMessage(nil), e.params...)
	c.detached.Params = params
	switch {
	case e.route == nil:
	case e.routeEscaped:
		if s, ok := String(body[e.routeStart-1 : e.routeStart+len(e.route)+1]); ok {
			c.detached.Route = []byte(s)
		}
	default:
		off := e.routeStart - pstart
		c.detached.Route = params[off : off+len(e.route) : off+len(e.route)]
	}
}

// decodeDetached takes a plain request or notification on the fast path:
// it fills v with the envelope and keeps the params. It reports false when
// the frame must be decoded whole.
func (c *Codec) decodeDetached(body []byte, v any) bool {
	e := envelope{scanned: body}
	if !c.scanEnvelope(body, &e) {
		return false
	}
	method, ok := plainMethod(e.method)
	if !ok {
		return false
	}
	id, notif, ok := plainID(e.id)
	if !ok {
		return false
	}
	if m := asAnyMessage(v); m != nil {
		m.request = &jsonrpc2.Request{Method: c.intern(method), ID: id, Notif: notif}
		m.response = nil
	} else if !c.decodeEnvelope(e, v) {
		return false
	}
	c.keep(body, &e)
	return true
}

// decodeEnvelope decodes an envelope without params into v, for a value
// that is not jsonrpc2's own message type (its read loop always passes
// that; tests may not).
func (c *Codec) decodeEnvelope(e envelope, v any) bool {
	var b bytes.Buffer
	b.Grow(len(e.method) + len(e.id) + 40)
	b.WriteString(`{"jsonrpc":"2.0","method":`)
	b.Write(e.method)
	if e.id != nil {
		b.WriteString(`,"id":`)
		b.Write(e.id)
	}
	b.WriteByte('}')
	return json.Unmarshal(b.Bytes(), v) == nil
}

// plainMethod returns a method that is a string without escapes.
func plainMethod(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || !Plain(raw[1:len(raw)-1]) {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// plainID decodes an id as jsonrpc2 does, when it is absent or null (a
// notification), a string without escapes, or an integer that fits in an
// int64 (jsonrpc2 keeps its bits as a uint64).
func plainID(raw []byte) (id jsonrpc2.ID, notif, ok bool) {
	switch {
	case raw == nil || string(raw) == "null":
		return jsonrpc2.ID{}, true, true
	case raw[0] == '"':
		if !Plain(raw[1 : len(raw)-1]) {
			return id, false, false
		}
		return jsonrpc2.ID{Str: string(raw[1 : len(raw)-1]), IsString: true}, false, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return id, false, false
	}
	return jsonrpc2.ID{Num: uint64(n)}, false, true
}

// intern returns method as a string, the same string for every frame of a
// method seen before: a connection uses a handful of methods, and most
// frames are one of them. The table is bounded, so a peer inventing names
// costs an allocation each, not memory.
func (c *Codec) intern(method []byte) string {
	if s, ok := c.methods[string(method)]; ok {
		return s
	}
	s := string(method)
	if len(c.methods) < maxInterned {
		if c.methods == nil {
			c.methods = make(map[string]string)
		}
		c.methods[s] = s
	}
	return s
}

const maxInterned = 256

// anyMessageLayout mirrors jsonrpc2's unexported anyMessage, the value its
// read loop decodes each frame into: a request or a response.
type anyMessageLayout struct {
	request  *jsonrpc2.Request
	response *jsonrpc2.Response
}

// asAnyMessage returns v as a *anyMessageLayout when v is a pointer to
// jsonrpc2's anyMessage and that type is laid out exactly as the mirror
// (checked once per type, by reflection, against the version in go.mod).
// Otherwise, as after a jsonrpc2 upgrade that changed it, it returns nil
// and the envelope is decoded by encoding/json: slower, still right.
// TestFastPathTaken fails if jsonrpc2's own value is not filled directly.
func asAnyMessage(v any) *anyMessageLayout {
	t := reflect.TypeOf(v)
	if any(t) != anyMessageType.Load() {
		if !isAnyMessage(t) {
			return nil
		}
		anyMessageType.Store(t)
	}
	return (*anyMessageLayout)(reflect.ValueOf(v).UnsafePointer())
}

// anyMessageType is the reflect.Type of *anyMessage, once checked.
var anyMessageType atomic.Value

// isAnyMessage reports whether t is *jsonrpc2.anyMessage laid out as
// anyMessageLayout.
func isAnyMessage(t reflect.Type) bool {
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	e, mirror := t.Elem(), reflect.TypeFor[anyMessageLayout]()
	if e.Kind() != reflect.Struct || e.PkgPath() != reflect.TypeFor[jsonrpc2.Request]().PkgPath() ||
		e.Name() != "anyMessage" || e.Size() != mirror.Size() || e.NumField() != mirror.NumField() {
		return false
	}
	for i := range e.NumField() {
		f, m := e.Field(i), mirror.Field(i)
		if f.Name != m.Name || f.Type != m.Type || f.Offset != m.Offset {
			return false
		}
	}
	return true
}
