package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// TestConcurrentSessions runs 64 sessions' turns at once on one connection.
// The script holds every turn until all 64 have started, so they provably
// overlap; each session must still get exactly its own text.
func TestConcurrentSessions(t *testing.T) {
	const n = 64
	var (
		mu      sync.Mutex
		started int
		all     = make(chan struct{})
	)
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		mu.Lock()
		if started++; started == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(guard):
			return sim.Fail("query", "not all turns started")
		}
		// Text unique to the session and prompt, streamed in many pieces.
		return sim.Response{Text: strings.Repeat(turn.Prompt+"|", 8), ChunkSize: 3}
	}}
	srv := newServer(t, sim.Options{Models: []sim.Model{model}})
	c, _ := dial(t, srv)

	ids := make([]string, n)
	for i := range ids {
		ids[i] = c.createSession(map[string]any{"streaming": true})
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res struct{ MessageID string }
			if err := c.call(protocol.MethodSessionSend, map[string]any{"sessionId": id, "prompt": fmt.Sprintf("p%02d", i)}, &res); err != nil {
				t.Errorf("send %d: %v", i, err)
			}
		}()
	}
	wg.Wait()

	for i, id := range ids {
		evs := c.waitIdle(id, 1)
		want := strings.Repeat(fmt.Sprintf("p%02d|", i), 8)
		if got := deltas(t, evs); got != want {
			t.Errorf("session %d deltas = %q, want %q", i, got, want)
		}
		if got := messageContent(t, evs); got != want {
			t.Errorf("session %d message = %q", i, got)
		}
		checkEnvelopes(t, evs)
	}
	if got := srv.MaxConcurrentTurns(); got != n {
		t.Errorf("max concurrent turns = %d, want %d", got, n)
	}

	// The events of different sessions interleave on the wire.
	switches, last := 0, ""
	c.mu.Lock()
	for _, e := range c.wire {
		if e.Session == "" {
			continue
		}
		if sid := e.Session; sid != last {
			switches++
			last = sid
		}
	}
	c.mu.Unlock()
	if switches <= 2*n {
		t.Errorf("only %d switches between sessions in the event stream", switches)
	}
}

// TestSlowClient stalls the client's read loop while a turn produces a flood
// of events, and checks that the server still reads the client's requests
// meanwhile (over a synchronous pipe, a server that writes from its read loop
// would stop reading, and the client's writes below would block forever).
func TestSlowClient(t *testing.T) {
	const pings = 50
	srv := newServer(t, sim.Options{
		Models:       []sim.Model{textModel("m", sim.Response{Text: strings.Repeat("x", 1000), ChunkSize: 1})},
		OutboxFrames: 64, // small, so the turn also meets backpressure
	})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"streaming": true})

	stall := make(chan struct{})
	stalled := make(chan struct{})
	var once sync.Once
	c.onNotify = func(method string, _ json.RawMessage) {
		if method == protocol.NotificationSessionEvent {
			once.Do(func() {
				close(stalled)
				<-stall // the client's read loop stops here
			})
		}
	}
	c.send(id, "flood")
	<-stalled

	// Every write must complete while the client reads nothing.
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	waiters := make([]jsonrpc2.Waiter, 0, pings)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range pings {
			w, err := c.rpc.DispatchCall(ctx, protocol.MethodPing, map[string]any{"message": fmt.Sprint(i)})
			if err != nil {
				t.Errorf("%s %d: %v", protocol.MethodPing, i, err)
				return
			}
			waiters = append(waiters, w)
		}
	}()
	select {
	case <-sent:
	case <-time.After(guard):
		t.Fatal("the server stopped reading while the client was slow")
	}
	// The server has handled them all, still with the client stalled. (A
	// write completes when the server's reader took the bytes; the handler
	// counts a moment later.)
	for deadline := time.Now().Add(guard); srv.Calls(protocol.MethodPing) < pings && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := srv.Calls(protocol.MethodPing); got != pings {
		t.Errorf("server handled %d pings, want %d", got, pings)
	}

	close(stall)
	for i, w := range waiters {
		var res struct{ Message string }
		if err := w.Wait(ctx, &res); err != nil || res.Message != fmt.Sprintf("pong: %d", i) {
			t.Errorf("%s %d: %+v %v", protocol.MethodPing, i, res, err)
		}
	}
	evs := c.waitIdle(id, 1)
	if got := len(deltas(t, evs)); got != 1000 {
		t.Errorf("got %d bytes of deltas, want 1000", got)
	}
}

// TestConnectionCloseEndsEverything closes the client in the middle of turns
// and tool waits; the connection's sessions and goroutines must go away.
func TestConnectionCloseEndsEverything(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{
		textModel("hang", sim.Hang()),
		toolModel(nil),
	}})
	rwc, conn := srv.DialConn()
	c := newClient(t, rwc)
	a := c.createSession(map[string]any{"model": "hang"})
	b := c.createSession(map[string]any{"model": "m", "requestPermission": true, "tools": []any{lookupTool}})
	c.send(a, "x")
	c.send(b, "y")
	c.waitType(a, protocol.EventAssistantTurnStart)
	c.waitType(b, protocol.EventPermissionRequested)
	if got := len(srv.LiveSessions()); got != 2 {
		t.Fatalf("live sessions = %d", got)
	}

	rwc.Close()
	select {
	case <-conn.Done():
	case <-time.After(guard):
		t.Fatal("connection did not end")
	}
	if got := srv.LiveSessions(); len(got) != 0 {
		t.Errorf("live sessions after close = %v", got)
	}
	if st := srv.Stats(); st.RunningTurns != 0 || st.Connections != 0 {
		t.Errorf("stats after close = %+v", st)
	}
}

func TestServerClose(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: []sim.Model{textModel("m", sim.Hang())}})
	rwc, conn := srv.DialConn()
	c := newClient(t, rwc)
	id := c.createSession(nil)
	c.send(id, "x")
	c.waitType(id, protocol.EventAssistantTurnStart)

	srv.Close() // waits for everything
	select {
	case <-conn.Done():
	default:
		t.Fatal("Close returned before the connection ended")
	}
	if err := c.call(protocol.MethodPing, nil, nil); err == nil {
		t.Error("ping after Close succeeded")
	}
	if _, err := srv.ServeConn(context.Background(), nopRWC{}); err != sim.ErrServerClosed {
		t.Errorf("ServeConn after Close: %v", err)
	}
	srv.Close() // again: no-op
}

type nopRWC struct{}

func (nopRWC) Read([]byte) (int, error)    { return 0, context.Canceled }
func (nopRWC) Write(b []byte) (int, error) { return len(b), nil }
func (nopRWC) Close() error                { return nil }

func TestDialAfterClose(t *testing.T) {
	srv := sim.NewServer(sim.Options{})
	srv.Close()
	rwc, c := srv.DialConn()
	select {
	case <-c.Done():
	default:
		t.Fatal("connection of a closed server is not done")
	}
	if err := c.WriteRaw([]byte("x")); err == nil {
		t.Error("WriteRaw succeeded")
	}
	if _, err := c.EmitUnknownSessionEvent("x"); err == nil {
		t.Error("EmitUnknownSessionEvent succeeded")
	}
	if a := c.Call(context.Background(), "x", nil); a.Err == nil {
		t.Errorf("Call = %+v", a)
	}
	if _, err := rwc.Write([]byte("x")); err == nil {
		t.Error("the client end is open")
	}
}
