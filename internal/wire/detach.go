package wire

import (
	"bytes"
	"encoding/json"
)

// Why params are detached: jsonrpc2's Request.UnmarshalJSON decodes a
// message's params into a map and encodes them again, which was measured at
// about two thirds of the reader's time per event (BenchmarkRoute in
// package router). With detach on, the codec decodes each frame once itself,
// keeps the params of a request or notification as raw JSON, and hands
// jsonrpc2 only the envelope (jsonrpc, method, id) to decode. The router's
// handler, which jsonrpc2's read loop calls on the same goroutine right
// after ReadObject returns and before it reads again, takes the params with
// TakeParams. Responses, and anything not plainly a request, are decoded by
// jsonrpc2 whole, so its validation of odd messages is unchanged.

// envelope is the first, single decoding pass over a frame.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// decodeDetached decodes a request or notification's envelope into v and
// keeps its params. It reports false when the frame must be decoded whole.
func (c *Codec) decodeDetached(body []byte, v any) bool {
	var e envelope
	if json.Unmarshal(body, &e) != nil || len(e.Method) < 2 || e.Method[0] != '"' || e.Result != nil || e.Error != nil {
		return false
	}
	var b bytes.Buffer
	b.Grow(len(e.Method) + len(e.ID) + 40)
	b.WriteString(`{"jsonrpc":"2.0","method":`)
	b.Write(e.Method)
	if e.ID != nil {
		b.WriteString(`,"id":`)
		b.Write(e.ID)
	}
	b.WriteByte('}')
	if json.Unmarshal(b.Bytes(), v) != nil {
		return false // let the whole decode report it
	}
	c.params = e.Params
	return true
}

// TakeParams returns the params of the request or notification ReadObject
// returned last, and forgets them. It must be called on the reading
// goroutine, before the next ReadObject. ok is false when the params were
// not detached (detach off, or the frame was decoded whole); the decoded
// value then holds them.
func (s *Stream) TakeParams() (params json.RawMessage, ok bool) {
	if !s.codec.detach || s.codec.params == nil {
		return nil, false
	}
	p := s.codec.params
	s.codec.params = nil
	return p, true
}
