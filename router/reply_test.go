package router

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/session"
)

// Contract 4: no request is left unanswered. A peer that sends a burst of
// requests and reads nothing until it is done fills the write backlog with
// their answers; the answer that cannot be queued stops the router with an
// error wrapping ErrWriteBacklog, so the connection ends and the peer
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
	if !errors.Is(err, ErrStopped) || !errors.Is(err, ErrWriteBacklog) {
		t.Fatalf("router stopped with %v, want ErrStopped wrapping ErrWriteBacklog", err)
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

// Contract 4, counted: a request a channel held when it fell behind is
// answered with an error (it was counted in Routed when delivered, and is
// not counted again); a request that arrives after, to the failed session
// or to a failed subscription, is refused on arrival and counted once its
// answer is queued.
func TestRefusedRequestsAreCountedOnce(t *testing.T) {
	r, p := newPeer(t, Config{MaxSessionBufferBytes: 4 << 10})
	stuck := open(t, r, "stuck")
	defer stuck.Close(context.Background())
	sub, err := r.Subscribe("host.ask")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	p.send(`{"jsonrpc":"2.0","id":"held","method":"tool.call","params":{"sessionId":"stuck","toolName":"x"}}`)
	p.send(`{"jsonrpc":"2.0","id":"held-sub","method":"host.ask","params":{}}`)
	chunk := strings.Repeat("x", 1000)
	for range 40 { // far past four times the bound: both fail whatever their consumers do
		p.delta("stuck", chunk)
		p.send(`{"jsonrpc":"2.0","method":"host.ask","params":{"pad":"` + chunk + `"}}`)
	}
	p.send(`{"jsonrpc":"2.0","id":"late","method":"tool.call","params":{"sessionId":"stuck","toolName":"x"}}`)
	p.send(`{"jsonrpc":"2.0","id":"late-sub","method":"host.ask","params":{}}`)

	answers := map[string]int64{}
	for range 4 {
		f := p.next()
		if f.Error == nil || f.ID == nil {
			t.Fatalf("got %+v, want an error answer", f)
		}
		answers[string(*f.ID)] = f.Error.Code
	}
	for _, id := range []string{"held", "held-sub", "late", "late-sub"} {
		if answers[`"`+id+`"`] != session.CodeUnavailable {
			t.Errorf("request %s: answers %v, want CodeUnavailable", id, answers)
		}
	}
	p.roundTrip(r) // counted once queued: after the answers reached us
	if s := r.Stats(); s.RequestsRefused != 2 || s.RepliesFailed != 0 || s.FellBehind != 2 {
		t.Errorf("RequestsRefused %d, RepliesFailed %d, FellBehind %d; want 2, 0, 2", s.RequestsRefused, s.RepliesFailed, s.FellBehind)
	}
}
