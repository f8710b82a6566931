package router

import (
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/wire"
)

// Contract 4: no request is left unanswered. A peer that sends a burst of
// requests and reads nothing until it is done fills the write backlog with
// their answers; the answer that cannot be queued stops the router with an
// error wrapping wire.ErrWriteBacklog, so the connection ends and the peer
// is not left waiting on requests nobody will answer. The counters add up:
// every refusal is either counted as queued or as failed.
func TestUnqueueableAnswerStopsTheRouter(t *testing.T) {
	a, b := net.Pipe()
	r := mustNew(t, a, Config{MaxWriteBacklogBytes: 4 << 10})
	defer r.Close()

	const n = 5000
	sent := 0
	for ; sent < n; sent++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool.call","params":{"sessionId":"nobody"}}`, sent+1)
		_ = b.SetWriteDeadline(time.Now().Add(hangGuard)) // a hang guard, not an assertion
		if _, err := fmt.Fprintf(b, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			break // the router stopped and closed the connection
		}
	}
	// Only now does the peer read: it must reach the connection's end.
	_ = b.SetReadDeadline(time.Now().Add(hangGuard))
	if _, err := io.Copy(io.Discard, b); err != nil {
		t.Fatalf("the peer was left waiting: %v", err)
	}
	b.Close()
	select {
	case <-r.Done():
	case <-time.After(hangGuard):
		t.Fatal("router did not stop")
	}
	err := r.Err()
	if !errors.Is(err, ErrStopped) || !errors.Is(err, wire.ErrWriteBacklog) {
		t.Fatalf("router stopped with %v, want ErrStopped wrapping wire.ErrWriteBacklog", err)
	}
	if sent == n {
		t.Errorf("all %d requests were accepted by a router that could not answer them", n)
	}
	// The router stops as soon as an answer fails; the reader may still be
	// finishing the message it had (counted dropped, its answer not yet
	// tried). Close returns once the reader has ended: only then do the
	// counters add up.
	r.Close()
	s := r.Stats()
	if s.RepliesFailed == 0 {
		t.Errorf("RepliesFailed = 0 after a refused answer")
	}
	if got := s.RequestsRefused + s.RepliesFailed; got != s.DroppedUnknown {
		t.Errorf("RequestsRefused %d + RepliesFailed %d != %d requests refused", s.RequestsRefused, s.RepliesFailed, s.DroppedUnknown)
	}
}
