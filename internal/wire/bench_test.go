package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// loopConn reads its frames over and over and discards writes.
type loopConn struct {
	data []byte
	off  int
}

func (l *loopConn) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}
func (l *loopConn) Write(p []byte) (int, error) { return len(p), nil }
func (l *loopConn) Close() error                { return nil }

// eventFrames returns n session.event frames of about 400 bytes, the median
// Copilot CLI event, and their mean size.
func eventFrames(n int) ([]byte, int) {
	var sb strings.Builder
	for i := range n {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"8f7a3c1e-2b4d-4e6f-9a1b-3c5d7e9f1a2b","event":{"type":"assistant.message_delta","data":{"messageId":"c0ffee00-1111-2222-3333-444455556666","deltaContent":"chunk %04d of the streamed reply text"},"id":"0b1c2d3e-4f50-6172-8394-%012d","timestamp":"2025-06-01T12:00:00.000Z","parentId":"f0e9d8c7-b6a5-9483-7261-50f4e3d2c1b0","ephemeral":true}}}`, i, i)
		sb.WriteString(frameOf(body))
	}
	return []byte(sb.String()), sb.Len() / n
}

func BenchmarkStreamRead(b *testing.B) {
	data, size := eventFrames(64)
	b.Run("into=RawMessage", func(b *testing.B) {
		s := NewStream(&loopConn{data: data}, Limits{}, Hooks{})
		defer s.Close()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			var v json.RawMessage
			if err := s.ReadObject(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What the router's read loop does: jsonrpc2's message decoding.
	b.Run("into=jsonrpc2", func(b *testing.B) {
		s := NewStream(&loopConn{data: data}, Limits{}, Hooks{})
		defer s.Close()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			var m rpcMessage
			if err := s.ReadObject(&m); err != nil {
				b.Fatal(err)
			}
		}
	})
	// For comparison: jsonrpc2's own unbounded stream and codec.
	b.Run("into=jsonrpc2/baseline=VSCodeObjectCodec", func(b *testing.B) {
		s := jsonrpc2.NewBufferedStream(&loopConn{data: data}, jsonrpc2.VSCodeObjectCodec{})
		defer s.Close()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			var m rpcMessage
			if err := s.ReadObject(&m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStreamWrite queues ~400-byte responses, as the router answers
// tool calls; the drain goroutine writes them to a sink that never blocks.
func BenchmarkStreamWrite(b *testing.B) {
	result := json.RawMessage(fmt.Sprintf(`{"textResultForLlm":%q,"resultType":"success"}`, strings.Repeat("r", 300)))
	resp := &jsonrpc2.Response{ID: jsonrpc2.ID{Num: 12345}, Result: &result}
	frame, _ := json.Marshal(resp)
	s := NewStream(&loopConn{data: []byte{0}}, Limits{}, Hooks{})
	defer s.Close()
	b.SetBytes(int64(len(frameOf(string(frame)))))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.WriteObject(resp); err != nil {
			b.Fatal(err)
		}
	}
}

var _ io.ReadWriteCloser = (*loopConn)(nil)

// BenchmarkScan is one frame's scan on the fast path (decodeDetached),
// the reader's share of an event's CPU.
func BenchmarkScan(b *testing.B) {
	data, size := eventFrames(1)
	body := data[strings.Index(string(data), "\r\n\r\n")+4:]
	c := &Codec{detach: true, routeKey: "sessionId"}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if !c.scanEnvelope(body, &envelope{scanned: body}) {
			b.Fatal("not taken")
		}
	}
}
