package wire

import (
	"bufio"
	"bytes"
	"errors"
	"testing"
)

// FuzzCodec feeds arbitrary bytes to Codec.ReadObject, decoding into the
// same kind of value the router's read loop uses. Whatever the input, the
// reader must not panic, must make progress on every frame it returns, must
// end with one of the package's framing errors or an I/O end, and must only
// ever hand the Malformed hook bodies within the frame limit. Every message
// it returns must survive being written and read back.
//
// The seed corpus is in testdata/fuzz/FuzzCodec and runs with go test.
func FuzzCodec(f *testing.F) {
	f.Add([]byte(frameOf(`{"jsonrpc":"2.0","id":1,"result":{}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		limits := Limits{MaxFrameBytes: 4 << 10, MaxHeaderBytes: 128}
		c := NewCodec(limits, func(err error, body []byte) {
			if !errors.Is(err, ErrMalformedMessage) {
				t.Errorf("Malformed got %v, want ErrMalformedMessage", err)
			}
			if len(body) > limits.MaxFrameBytes {
				t.Errorf("Malformed got a %d-byte body, over the %d-byte limit", len(body), limits.MaxFrameBytes)
			}
		})
		r := bufio.NewReader(bytes.NewReader(data))
		for frames := 0; ; frames++ {
			if frames > len(data) {
				t.Fatalf("%d frames out of %d bytes: the reader is not consuming input", frames, len(data))
			}
			var m rpcMessage
			err := c.ReadObject(r, &m)
			if err != nil {
				if !isKnown(err) {
					t.Fatalf("error %v (%T) wraps none of the expected errors", err, err)
				}
				return
			}
			if (m.Request == nil) == (m.Response == nil) {
				t.Fatalf("decoded %+v: want exactly one of request and response", m)
			}
			roundTrip(t, m)
		}
	})
}

// roundTrip writes m with the codec and reads it back.
func roundTrip(t *testing.T, m rpcMessage) {
	t.Helper()
	var obj any = m.Request
	if m.Request == nil {
		obj = m.Response
	}
	var buf bytes.Buffer
	c := NewCodec(Limits{}, func(err error, body []byte) { t.Errorf("re-reading %q: %v", body, err) })
	if err := c.WriteObject(&buf, obj); err != nil {
		return // jsonrpc2 declines to encode some values it decodes; not ours to judge
	}
	var back rpcMessage
	if err := c.ReadObject(bufio.NewReader(&buf), &back); err != nil {
		t.Fatalf("reading back %q: %v", buf.Bytes(), err)
	}
	switch {
	case m.Request != nil && (back.Request == nil || back.Request.Method != m.Request.Method || back.Request.ID != m.Request.ID || back.Request.Notif != m.Request.Notif):
		t.Fatalf("request %+v came back as %+v", m.Request, back)
	case m.Response != nil && (back.Response == nil || back.Response.ID != m.Response.ID):
		t.Fatalf("response %+v came back as %+v", m.Response, back)
	}
	if buf.Len() != 0 {
		t.Fatalf("%d bytes left after reading back one frame", buf.Len())
	}
}
