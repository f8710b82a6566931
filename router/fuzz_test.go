package router

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// FuzzRouter feeds arbitrary bytes to a router as if from the peer: it must
// not panic, must answer or drop everything, and must stop cleanly when the
// peer closes. The seed corpus in testdata/fuzz/FuzzRouter runs with every
// go test.
func FuzzRouter(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 71\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"session.event\",\"params\":{\"sessionId\":\"s1\"}}",
		"Content-Length: 48\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tool.call\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := net.Pipe()
		r := mustNew(t, a, Config{MaxFrameBytes: 1 << 16})
		ch, err := r.Open("s1")
		if err != nil {
			t.Fatal(err)
		}
		// Drain whatever the router answers so its writer never stalls.
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			buf := make([]byte, 4096)
			for {
				if _, err := b.Read(buf); err != nil {
					return
				}
			}
		}()
		b.SetWriteDeadline(time.Now().Add(5 * time.Second))
		b.Write(data)
		b.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for {
			if _, err := ch.Receive(ctx); err != nil {
				if ctx.Err() != nil {
					t.Fatal("router did not stop after the peer closed")
				}
				break
			}
		}
		r.Close()
		<-drained
	})
}
