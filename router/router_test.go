package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// open registers a session the peer already knows.
func open(t *testing.T, r *Router, id string) *session.Channel {
	t.Helper()
	ch, err := r.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func receiveEvent(t *testing.T, ch *session.Channel) session.Event {
	t.Helper()
	m, err := ch.Receive(testutil.Context(t, hangGuard))
	if err != nil {
		t.Fatalf("receive on %s: %v", ch.ID(), err)
	}
	ev, err := m.Event()
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// Contract 9 (see the package doc).
func TestCallGetsItsResponse(t *testing.T) {
	r, p := newPeer(t, Config{})
	ctx := testutil.Context(t, hangGuard)
	errc := make(chan error, 1)
	var res struct{ Message string }
	go func() { errc <- r.Call(ctx, "ping", map[string]string{"message": "hi"}, &res) }()
	f := p.expect("ping")
	if string(f.Params) != `{"message":"hi"}` {
		t.Errorf("params = %s", f.Params)
	}
	p.respond(f, `{"message":"pong: hi"}`)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if res.Message != "pong: hi" {
		t.Errorf("result = %+v", res)
	}
	if s := r.Stats(); s.Responses != 1 {
		t.Errorf("Responses = %d, want 1", s.Responses)
	}
}

func TestCallErrorResponse(t *testing.T) {
	r, p := newPeer(t, Config{})
	errc := make(chan error, 1)
	go func() { errc <- r.Call(testutil.Context(t, hangGuard), "status", nil, nil) }()
	f := p.expect("status")
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Unhandled method status"}}`, *f.ID))
	err := <-errc
	var ce *CallError
	if !errors.As(err, &ce) || ce.Code != -32601 || ce.Method != "status" || !strings.Contains(err.Error(), "Unhandled method") {
		t.Fatalf("err = %v, want a CallError -32601", err)
	}
}

// Contract 1: a session whose consumer does not read fails alone and never
// delays another session or a response.
// Contracts 2 and 5 (see the package doc).
func TestStuckSessionDoesNotBlockOthers(t *testing.T) {
	r, p := newPeer(t, Config{MaxSessionBufferBytes: 64 << 10})
	stuck := open(t, r, "stuck")
	live := open(t, r, "live")
	ctx := testutil.Context(t, hangGuard)

	// Far past the stuck session's bound; nobody reads it. net.Pipe is
	// synchronous, so each write returns only once the reader took it: were
	// the reader to block on the stuck session, this loop would hang.
	chunk := strings.Repeat("x", 1000)
	for i := 0; i < 500; i++ {
		p.delta("stuck", chunk)
		if i%50 == 0 {
			p.delta("live", fmt.Sprint(i))
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- r.Call(ctx, "ping", nil, nil) }()
	p.respond(p.expect("ping"), `{}`)
	if err := <-errc; err != nil {
		t.Fatalf("call behind a stuck session: %v", err)
	}
	for i := 0; i < 500; i += 50 {
		var d struct{ DeltaContent string }
		ev := receiveEvent(t, live)
		if err := ev.UnmarshalData(&d); err != nil || d.DeltaContent != fmt.Sprint(i) {
			t.Fatalf("live session got %q, want %d", d.DeltaContent, i)
		}
	}
	_, err := stuck.Receive(ctx)
	if !errors.Is(err, session.ErrFellBehind) {
		t.Fatalf("stuck session: err = %v, want ErrFellBehind", err)
	}
	s := r.Stats()
	if s.FellBehind != 1 {
		t.Errorf("FellBehind = %d, want 1", s.FellBehind)
	}
	if s.DroppedRefused == 0 {
		t.Errorf("DroppedRefused = 0; the stuck session's later events should be counted")
	}
	// A request to the failed session is answered, not left hanging.
	p.send(`{"jsonrpc":"2.0","id":"q1","method":"tool.call","params":{"sessionId":"stuck","toolName":"x"}}`)
	f := p.next()
	if f.Error == nil || f.Error.Code != session.CodeUnavailable {
		t.Fatalf("request to a failed session: got %+v, want an error answer", f)
	}
	p.roundTrip(r) // counted once queued: after the answer reached us
	if s := r.Stats(); s.RequestsRefused != 1 || s.RepliesFailed != 0 {
		t.Errorf("RequestsRefused = %d, RepliesFailed = %d; want 1, 0", s.RequestsRefused, s.RepliesFailed)
	}
}

// Contract 2: one session's messages arrive in the order read, across many
// interleaved sessions.
// Contract 3 (see the package doc).
func TestPerSessionOrder(t *testing.T) {
	r, p := newPeer(t, Config{})
	const sessions, events = 8, 200
	chans := make([]*session.Channel, sessions)
	for i := range chans {
		chans[i] = open(t, r, fmt.Sprint("s", i))
	}
	go func() {
		for k := 0; k < events; k++ {
			for i := 0; i < sessions; i++ {
				p.delta(fmt.Sprint("s", i), fmt.Sprint(k))
			}
		}
	}()
	for i, ch := range chans {
		for k := 0; k < events; k++ {
			var d struct{ DeltaContent string }
			if err := receiveEvent(t, ch).UnmarshalData(&d); err != nil || d.DeltaContent != fmt.Sprint(k) {
				t.Fatalf("session %d message %d = %q", i, k, d.DeltaContent)
			}
		}
	}
}

// Contract 3a: with a client-chosen id, session.start is delivered whether
// it comes before or after the create response.
// Contract 7 (see the package doc).
func TestCreateClientIDBothOrders(t *testing.T) {
	for _, startFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("startFirst=", startFirst), func(t *testing.T) {
			r, p := newPeer(t, Config{})
			type out struct {
				ch  *session.Channel
				err error
			}
			done := make(chan out, 1)
			var res struct{ SessionID string }
			go func() {
				ch, err := r.Create(testutil.Context(t, hangGuard), "abc", map[string]string{"sessionId": "abc", "model": "m"}, &res)
				done <- out{ch, err}
			}()
			f := p.expect("session.create")
			if !strings.Contains(string(f.Params), `"sessionId":"abc"`) {
				t.Fatalf("params = %s", f.Params)
			}
			if startFirst {
				p.event("abc", "session.start", `{"sessionId":"abc"}`)
				p.respond(f, `{"sessionId":"abc"}`)
			} else {
				p.respond(f, `{"sessionId":"abc"}`)
				p.event("abc", "session.start", `{"sessionId":"abc"}`)
			}
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			if res.SessionID != "abc" {
				t.Errorf("result = %+v", res)
			}
			if ev := receiveEvent(t, o.ch); ev.Type != "session.start" {
				t.Fatalf("first event = %s, want session.start", ev.Type)
			}
			if s := r.Stats(); s.DroppedUnknown != 0 {
				t.Errorf("DroppedUnknown = %d", s.DroppedUnknown)
			}
		})
	}
}

func TestCreateClientIDFailureRemovesRoute(t *testing.T) {
	r, p := newPeer(t, Config{})
	errc := make(chan error, 1)
	go func() {
		_, err := r.Create(testutil.Context(t, hangGuard), "bad", map[string]string{"sessionId": "bad"}, nil)
		errc <- err
	}()
	f := p.expect("session.create")
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown model"}}`, *f.ID))
	if err := <-errc; err == nil {
		t.Fatal("create succeeded")
	}
	if s := r.Stats(); s.Sessions != 0 {
		t.Fatalf("Sessions = %d after a failed create", s.Sessions)
	}
	if _, err := r.Open("bad"); err != nil {
		t.Fatalf("the id should be free again: %v", err)
	}
}

// Contract 3b: with a server-assigned id, creation is serialised and nothing
// of the new session is lost, session.start included, in either order; an
// event that precedes session.start is held and handed over in order.
// Contract 7 (see the package doc).
func TestCreateAssignedBothOrders(t *testing.T) {
	for _, startFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("startFirst=", startFirst), func(t *testing.T) {
			r, p := newPeer(t, Config{})
			type out struct {
				ch  *session.Channel
				err error
			}
			done := make(chan out, 1)
			go func() {
				ch, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
				done <- out{ch, err}
			}()
			f := p.expect("session.create")
			p.event("srv-1", "session.info", `{"n":0}`) // before session.start: held
			if startFirst {
				p.event("srv-1", "session.start", `{"sessionId":"srv-1"}`)
				p.event("srv-1", "session.info", `{"n":1}`)
				p.respond(f, `{"sessionId":"srv-1"}`)
			} else {
				p.respond(f, `{"sessionId":"srv-1"}`)
				// Race-free: the response binds the route before returning.
			}
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			if !startFirst {
				p.event("srv-1", "session.start", `{"sessionId":"srv-1"}`)
				p.event("srv-1", "session.info", `{"n":1}`)
			}
			want := []string{"session.info", "session.start", "session.info"}
			for _, w := range want {
				if ev := receiveEvent(t, o.ch); ev.Type != w {
					t.Fatalf("got %s, want %s", ev.Type, w)
				}
			}
			if o.ch.ID() != "srv-1" {
				t.Errorf("ID = %q", o.ch.ID())
			}
		})
	}
}

// An event held for an id the response does not name is not handed over,
// and a held request for it is answered.
func TestCreateAssignedDropsStrangers(t *testing.T) {
	r, p := newPeer(t, Config{})
	done := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		done <- err
	}()
	f := p.expect("session.create")
	p.event("other", "session.info", "")
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tool.call","params":{"sessionId":"other"}}`)
	p.respond(f, `{"sessionId":"mine"}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := p.next()
	if a.Error == nil || string(*a.ID) != "7" {
		t.Fatalf("held request for a stranger was not answered: %+v", a)
	}
	if s := r.Stats(); s.DroppedUnknown != 2 {
		t.Errorf("DroppedUnknown = %d, want 2", s.DroppedUnknown)
	}
}

// Contract 4: close deregisters; later events are counted and dropped and
// later requests answered with an error.
func TestCloseDeregisters(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	p.event("s1", "x", "")
	receiveEvent(t, ch)
	if r.Stats().Sessions != 1 {
		t.Fatal("no route")
	}
	if err := ch.Close(testutil.Context(t, hangGuard)); err != nil {
		t.Fatal(err)
	}
	if err := ch.Close(testutil.Context(t, hangGuard)); err != nil { // idempotent
		t.Fatal(err)
	}
	if s := r.Stats(); s.Sessions != 0 {
		t.Fatalf("Sessions = %d after close", s.Sessions)
	}
	p.event("s1", "x", "")
	p.send(`{"jsonrpc":"2.0","id":9,"method":"tool.call","params":{"sessionId":"s1"}}`)
	a := p.next()
	if a.Error == nil || a.Error.Code != session.CodeUnavailable {
		t.Fatalf("request to a closed session: %+v", a)
	}
	p.roundTrip(r) // counted once queued: after the answer reached us
	if s := r.Stats(); s.DroppedUnknown != 2 || s.RequestsRefused != 1 {
		t.Errorf("stats = %+v, want 2 dropped and 1 refused", s)
	}
	if _, err := ch.Receive(testutil.Context(t, hangGuard)); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Receive after close = %v", err)
	}
}

// Close answers the requests the channel still held, and does no more: the
// session is not ended on the server (its owner does that, with a call).
// Contract 4 (see the package doc).
func TestCloseAnswersUnreadRequests(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	ctx := testutil.Context(t, hangGuard)
	p.send(`{"jsonrpc":"2.0","id":"t1","method":"tool.call","params":{"sessionId":"s1"}}`)
	// Wait until the request is in the mailbox.
	for n, _ := ch.Buffered(); n == 0; n, _ = ch.Buffered() {
		select {
		case <-ctx.Done():
			t.Fatal("request never arrived")
		default:
		}
	}
	if err := ch.Close(ctx); err != nil {
		t.Fatal(err)
	}
	a := p.next()
	if a.Error == nil || string(*a.ID) != `"t1"` {
		t.Fatalf("unread request was not answered on close: %+v", a)
	}
	// The next frame is a call made after Close: Close wrote nothing else.
	errc := make(chan error, 1)
	go func() { errc <- r.Call(ctx, "ping", nil, nil) }()
	p.respond(p.expect("ping"), `{}`)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Contract 5: the connection's end reaches every pending call and channel
// at once, with an error wrapping ErrStopped and the cause.
// Contract 8 (see the package doc).
func TestPeerCloseFailsEveryone(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	ctx := testutil.Context(t, hangGuard)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- r.Call(ctx, "slow", nil, nil) }()
	}
	for i := 0; i < 3; i++ {
		p.expect("slow")
	}
	wg.Add(1)
	go func() { defer wg.Done(); _, err := ch.Receive(ctx); errs <- err }()
	p.conn.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "closed by the peer") {
			t.Errorf("err = %v, want ErrStopped with the cause", err)
		}
	}
	<-r.Done()
	if err := r.Call(ctx, "after", nil, nil); !errors.Is(err, ErrStopped) {
		t.Errorf("call after stop = %v", err)
	}
	if _, err := r.Open("s2"); !errors.Is(err, ErrStopped) {
		t.Errorf("open after stop = %v", err)
	}
}

// Messages buffered before the stop are still delivered, then the error.
// Contract 8 (see the package doc).
func TestStopKeepsBufferedMessages(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	p.event("s1", "a", "")
	p.event("s1", "b", "")
	p.conn.Close()
	<-r.Done()
	for _, w := range []string{"a", "b"} {
		if ev := receiveEvent(t, ch); ev.Type != w {
			t.Fatalf("got %s want %s", ev.Type, w)
		}
	}
	if _, err := ch.Receive(testutil.Context(t, hangGuard)); !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v", err)
	}
}

// Contract 8 (see the package doc).
func TestCloseWithErrorGivesCause(t *testing.T) {
	r, _ := newPeer(t, Config{})
	ch := open(t, r, "s1")
	cause := errors.New("copilot exited with status 3")
	r.CloseWithError(cause)
	_, err := ch.Receive(testutil.Context(t, hangGuard))
	if !errors.Is(err, ErrStopped) || !errors.Is(err, cause) {
		t.Fatalf("err = %v", err)
	}
	r.Close() // the first cause stands
	if !errors.Is(r.Err(), cause) {
		t.Fatalf("Err = %v", r.Err())
	}
}

// Contract 10: bad input is counted and skipped, or ends the connection with
// a clear error; never a panic.
func TestMalformedFramesAreSkipped(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	p.send(`{not json`)
	p.send(`42`)
	p.send(`{}`)
	p.send(`[]`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"x","result":1}`)
	p.send(`{"jsonrpc":"2.0","id":12345,"result":{}}`) // unknown id
	p.send(`{"jsonrpc":"2.0","id":"zz","error":{"code":1,"message":"m"}}`)
	p.event("nobody", "x", "")
	p.event("s1", "still.alive", "")
	if ev := receiveEvent(t, ch); ev.Type != "still.alive" {
		t.Fatalf("got %s", ev.Type)
	}
	s := r.Stats()
	if s.Malformed != 5 || s.UnknownResponses != 2 || s.DroppedUnknown != 1 {
		t.Errorf("stats = %+v, want 5 malformed, 2 unknown responses, 1 dropped", s)
	}
}

func TestDuplicateResponseCounted(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	errc := make(chan error, 1)
	go func() { errc <- r.Call(testutil.Context(t, hangGuard), "once", nil, nil) }()
	f := p.expect("once")
	p.respond(f, `1`)
	p.respond(f, `2`)
	p.event("s1", "sync", "")
	receiveEvent(t, ch) // the reader has passed both responses
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Responses != 1 || s.UnknownResponses != 1 {
		t.Errorf("stats = %+v", s)
	}
}

// Contract 10 (see the package doc).
func TestFramingErrorsStopTheRouter(t *testing.T) {
	cases := map[string]struct {
		bytes string
		want  error
	}{
		"oversize":     {"Content-Length: 999999999\r\n\r\n", wire.ErrFrameTooLarge},
		"no length":    {"Content-Type: x\r\n\r\n{}", wire.ErrBadHeader},
		"bad length":   {"Content-Length: -4\r\n\r\n", wire.ErrBadHeader},
		"no colon":     {"garbage\r\n\r\n", wire.ErrBadHeader},
		"bare newline": {"Content-Length: 2\n\n{}", wire.ErrBadHeader},
		"endless":      {"Content-Length: 1" + strings.Repeat("1", 9000), wire.ErrBadHeader},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, p := newPeer(t, Config{MaxFrameBytes: 1 << 20})
			ch := open(t, r, "s1")
			go p.raw([]byte(c.bytes))
			_, err := ch.Receive(testutil.Context(t, hangGuard))
			if !errors.Is(err, ErrStopped) || !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want ErrStopped wrapping %v", err, c.want)
			}
		})
	}
}

// Contract 7: a cancelled call removes its pending entry; its late answer
// is counted as unknown. A cancelled receive returns ctx.Err().
// Contract 9 (see the package doc).
func TestCancelledCallForgetsItself(t *testing.T) {
	r, p := newPeer(t, Config{})
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	errc := make(chan error, 1)
	go func() { errc <- r.Call(ctx, "slow", nil, nil) }()
	f := p.expect("slow")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	r.mu.Lock()
	n := len(r.pending)
	r.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d pending entries after cancel", n)
	}
	ch := open(t, r, "s1")
	p.respond(f, `{}`)
	p.event("s1", "sync", "")
	receiveEvent(t, ch)
	if s := r.Stats(); s.UnknownResponses != 1 {
		t.Errorf("UnknownResponses = %d", s.UnknownResponses)
	}
}

func TestCancelledReceive(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch := open(t, r, "s1")
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	cancel()
	if _, err := ch.Receive(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	p.event("s1", "after", "") // nothing was lost by the cancelled receive
	if ev := receiveEvent(t, ch); ev.Type != "after" {
		t.Fatal(ev.Type)
	}
}

// Contract 8: a consumer that reacts to a request by calling back into the
// router cannot deadlock it, even while another session's buffer is full
// and the peer keeps writing.
// Contract 2 (see the package doc).
func TestHandlerMayCallBack(t *testing.T) {
	r, p := newPeer(t, Config{MaxSessionBufferBytes: 16 << 10})
	ch := open(t, r, "tools")
	open(t, r, "full") // never read
	ctx := testutil.Context(t, hangGuard)
	go func() {
		for i := 0; i < 100; i++ {
			p.delta("full", strings.Repeat("y", 500))
		}
		p.send(`{"jsonrpc":"2.0","id":"tc","method":"tool.call","params":{"sessionId":"tools","toolName":"lookup","toolCallId":"c1","arguments":{}}}`)
	}()
	consumer := make(chan error, 1)
	go func() {
		step, err := ch.Next(ctx, nil, nil)
		if err != nil {
			consumer <- err
			return
		}
		if step.Tool == nil || step.Tool.Request == nil {
			consumer <- fmt.Errorf("step = %+v, want a tool.call", step)
			return
		}
		var out json.RawMessage
		if err := r.Call(ctx, "lookup.backend", nil, &out); err != nil {
			consumer <- err
			return
		}
		consumer <- step.Tool.Request.Reply(ctx, map[string]any{"result": string(out)})
	}()
	p.respond(p.expect("lookup.backend"), `"42"`)
	if err := <-consumer; err != nil {
		t.Fatal(err)
	}
	a := p.next()
	if string(*a.ID) != `"tc"` || !strings.Contains(string(a.Result), "42") {
		t.Fatalf("tool answer = %+v", a)
	}
}

func TestSubscriptions(t *testing.T) {
	r, p := newPeer(t, Config{})
	life, err := r.Subscribe("session.lifecycle")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := r.Subscribe()
	p.send(`{"jsonrpc":"2.0","method":"session.lifecycle","params":{"type":"session.created","sessionId":"s"}}`)
	p.send(`{"jsonrpc":"2.0","method":"other.note","params":{}}`)
	m, err := life.Receive(testutil.Context(t, hangGuard))
	if err != nil || m.Method != "session.lifecycle" {
		t.Fatalf("%v %v", m, err)
	}
	for _, w := range []string{"session.lifecycle", "other.note"} {
		if m, err := all.Receive(testutil.Context(t, hangGuard)); err != nil || m.Method != w {
			t.Fatalf("got %v %v want %s", m.Method, err, w)
		}
	}
	life.Close()
	all.Close()
	p.send(`{"jsonrpc":"2.0","method":"other.note","params":{}}`)
	ch := open(t, r, "sync")
	p.event("sync", "x", "")
	receiveEvent(t, ch)
	if s := r.Stats(); s.Unsubscribed != 1 {
		t.Errorf("Unsubscribed = %d", s.Unsubscribed)
	}
}

// A request naming no session, or a method nobody handles, is answered.
// Contract 4 (see the package doc).
func TestRequestWithoutSessionIsAnswered(t *testing.T) {
	_, p := newPeer(t, Config{})
	p.send(`{"jsonrpc":"2.0","id":5,"method":"hooks.invoke","params":{}}`)
	a := p.next()
	if a.Error == nil || a.Error.Code != -32601 {
		t.Fatalf("%+v", a)
	}
}

// A request naming no session goes to the subscription that named its
// method, whose answer reaches the peer; a subscription to every
// notification does not take it.
// Contract 4 (see the package doc).
func TestRequestWithoutSessionGoesToItsSubscription(t *testing.T) {
	r, p := newPeer(t, Config{})
	all, _ := r.Subscribe()
	defer all.Close()
	host, err := r.Subscribe("host.shutdown")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	p.send(`{"jsonrpc":"2.0","id":7,"method":"host.shutdown","params":{"reason":"x"}}`)
	m, err := host.Receive(testutil.Context(t, hangGuard))
	if err != nil || m.Method != "host.shutdown" || !m.IsRequest() {
		t.Fatalf("%+v %v", m, err)
	}
	if err := m.Reply(testutil.Context(t, hangGuard), map[string]bool{"ok": true}); err != nil {
		t.Fatal(err)
	}
	if a := p.next(); a.Error != nil || string(a.Result) != `{"ok":true}` {
		t.Fatalf("answer %+v", a)
	}
	// Its subscription gone, the request is refused at once again.
	host.Close()
	p.send(`{"jsonrpc":"2.0","id":8,"method":"host.shutdown","params":{}}`)
	if a := p.next(); a.Error == nil || a.Error.Code != -32601 {
		t.Fatalf("after close: %+v", a)
	}
}

// brokenWriter is a connection whose writes fail and whose reads block
// until it is closed: a peer gone on one side only.
type brokenWriter struct{ closed chan struct{} }

func (b *brokenWriter) Read([]byte) (int, error) { <-b.closed; return 0, errors.New("closed") }
func (b *brokenWriter) Write([]byte) (int, error) {
	return 0, errors.New("broken pipe")
}
func (b *brokenWriter) Close() error {
	select {
	case <-b.closed:
	default:
		close(b.closed)
	}
	return nil
}

// A write failure stops the router like a read failure: the call whose
// request was lost does not hang, and every waiter gets ErrStopped.
// Contract 8 (see the package doc).
func TestWriteFailureStopsTheRouter(t *testing.T) {
	r := mustNew(t, &brokenWriter{closed: make(chan struct{})}, Config{})
	defer r.Close()
	ch, _ := r.Open("s1")
	err := r.Call(context.Background(), "ping", nil, nil)
	if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("call: %v", err)
	}
	if _, err := ch.Receive(testutil.Context(t, hangGuard)); !errors.Is(err, ErrStopped) {
		t.Fatalf("receive: %v", err)
	}
}

// session.start bound one id but the response named another: a request
// already delivered to the wrong route is answered, not left hanging.
// Contracts 4 and 7 (see the package doc).
func TestCreateAssignedMismatchAnswersRequests(t *testing.T) {
	r, p := newPeer(t, Config{})
	done := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		done <- err
	}()
	f := p.expect("session.create")
	p.event("x", "session.start", `{"sessionId":"x"}`)
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tool.call","params":{"sessionId":"x"}}`)
	p.respond(f, `{"sessionId":"y"}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := p.next()
	if a.Error == nil || string(*a.ID) != "7" {
		t.Fatalf("the request to the stale route was not answered: %+v", a)
	}
	if r.Stats().Sessions != 1 {
		t.Errorf("Sessions = %d, want only y", r.Stats().Sessions)
	}
}

// A caller that gives up after session.start bound its session learns the
// id, to destroy it.
// Contract 7 (see the package doc).
func TestCreateAssignedAbandoned(t *testing.T) {
	r, p := newPeer(t, Config{})
	cancel, done := startAbandonable(t, r)
	p.expect("session.create")
	ch := open(t, r, "sync")
	p.event("late", "session.start", `{"sessionId":"late"}`)
	p.event("sync", "x", "")
	receiveEvent(t, ch) // the reader has bound "late"
	cancel()
	err := <-done
	var ab *AbandonedError
	if !errors.As(err, &ab) || ab.SessionID != "late" || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.Stats().Sessions != 1 {
		t.Errorf("the abandoned route is still registered")
	}
}

// A session whose consumer is merely descheduled is not failed: its
// consumer is held, as a goroutine waiting for a core is, until a burst of
// events has put its channel past the bound, then receives slowly while the
// rest arrives, and it gets them all (see the buffer policy in the package
// doc). With the bound alone it failed after about ten of these events.
// The hold (the channel's delivery hook says when the bound is passed)
// makes every run test the policy, whatever the machine's load.
// Contract 5 (see the package doc).
func TestDescheduledSessionDoesNotFail(t *testing.T) {
	const bound = 256 << 10
	r, p := newPeer(t, Config{MaxSessionBufferBytes: bound})
	ch := open(t, r, "s")
	ctx := testutil.Context(t, hangGuard)
	past := make(chan struct{})
	var once sync.Once
	ch.SetNotify(func() { // on the router's reader, after each delivery
		if _, bytes := ch.Buffered(); bytes > bound {
			once.Do(func() { close(past) })
		}
	})

	const events = 30 // 30 × 24 KB: about three times the bound
	done := make(chan error, 1)
	go func() {
		select {
		case <-past:
		case <-ctx.Done():
			done <- errors.New("the events never put the channel past its bound: the test does not test the policy")
			return
		}
		for i := range events {
			ev, err := ch.Receive(ctx)
			if err != nil {
				done <- err
				return
			}
			if _, err := ev.Event(); err != nil {
				done <- err
				return
			}
			if i%2 == 0 {
				runtime.Gosched()
			} else {
				time.Sleep(time.Millisecond)
			}
		}
		done <- nil
	}()
	chunk := strings.Repeat("y", 24<<10)
	for range events {
		p.delta("s", chunk)
	}
	if err := <-done; err != nil {
		t.Fatalf("the consumer: %v", err)
	}
	if s := r.Stats(); s.FellBehind != 0 {
		t.Errorf("FellBehind = %d", s.FellBehind)
	}
}

// Contract 7: a server-assigned creation whose response names an id that
// is already routed fails with ErrSessionExists; the existing channel keeps
// its one owner and its messages.
func TestCreateAssignedExistingIDIsRefused(t *testing.T) {
	r, p := newPeer(t, Config{})
	mine := open(t, r, "taken")
	done := make(chan error, 1)
	go func() {
		ch, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		if ch != nil {
			err = errors.New("got a channel for a routed id")
		}
		done <- err
	}()
	p.respond(p.expect("session.create"), `{"sessionId":"taken"}`)
	if err := <-done; !errors.Is(err, ErrSessionExists) {
		t.Fatalf("err = %v, want ErrSessionExists", err)
	}
	p.event("taken", "still.mine", "")
	if ev := receiveEvent(t, mine); ev.Type != "still.mine" {
		t.Fatalf("the existing channel got %q", ev.Type)
	}
	if r.Stats().Sessions != 1 {
		t.Errorf("Sessions = %d, want 1", r.Stats().Sessions)
	}
}

// Contract 7: a creation given up before its response, whose session.start
// comes after the response (the real CLI's order), still names the session
// to destroy: Assigned delivers the id the late response names, no route is
// left, and the next creation is not mistaken for it.
func TestCreateAssignedAbandonedBeforeResponse(t *testing.T) {
	r, p := newPeer(t, Config{})
	cancel, done := startAbandonable(t, r)
	f := p.expect("session.create")
	cancel()
	err := <-done
	var ab *AbandonedError
	if !errors.As(err, &ab) || ab.SessionID != "" || ab.Assigned == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// The next creation waits until the abandoned one's response is in.
	next := make(chan error, 1)
	go func() {
		ch, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		if err == nil && ch.ID() != "second" {
			err = fmt.Errorf("second creation got %s", ch.ID())
		}
		next <- err
	}()
	p.respond(f, `{"sessionId":"late"}`)
	p.event("late", "session.start", `{"sessionId":"late"}`)
	id, ok := ab.Await(testutil.Context(t, hangGuard))
	if !ok || id != "late" {
		t.Fatalf("Await = %q, %v; want late", id, ok)
	}
	f2 := p.expect("session.create")
	p.event("second", "session.start", `{"sessionId":"second"}`)
	p.respond(f2, `{"sessionId":"second"}`)
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Sessions != 1 {
		t.Errorf("Sessions = %d, want only the second", s.Sessions)
	}
}

// An abandoned creation whose router stops before the response: Assigned
// is closed with nothing on it, so its owner does not wait forever.
func TestCreateAssignedAbandonedThenStopped(t *testing.T) {
	r, p := newPeer(t, Config{})
	cancel, done := startAbandonable(t, r)
	p.expect("session.create")
	cancel()
	var ab *AbandonedError
	if err := <-done; !errors.As(err, &ab) {
		t.Fatalf("err = %v", err)
	}
	r.Close()
	if id, ok := ab.Await(testutil.Context(t, hangGuard)); ok {
		t.Fatalf("Await = %q after the stop", id)
	}
}

// Contract 4: the counters add up — each message read lands in exactly one
// of the counters Stats.Read sums, whatever became of it.
func TestCountersAddUp(t *testing.T) {
	r, p := newPeer(t, Config{})
	open(t, r, "s1") // its consumer does not read: delivered is enough
	life, err := r.Subscribe("session.lifecycle", "host.ask")
	if err != nil {
		t.Fatal(err)
	}
	defer life.Close()

	sent := 0
	send := func(v string) { p.send(v); sent++ }
	p.roundTrip(r) // a response
	sent++
	send(`{"jsonrpc":"2.0","id":999,"result":{}}`) // an unknown response
	send(`{not json`)                              // malformed
	for range 3 {                                  // routed
		p.event("s1", "assistant.message_delta", `{"deltaContent":"x"}`)
		sent++
	}
	p.event("ghost", "session.idle", "") // dropped: unknown session
	sent++
	send(`{"jsonrpc":"2.0","id":"q1","method":"tool.call","params":{"sessionId":"s1","toolName":"t"}}`)    // routed
	send(`{"jsonrpc":"2.0","id":"q2","method":"tool.call","params":{"sessionId":"ghost","toolName":"t"}}`) // dropped, refused
	send(`{"jsonrpc":"2.0","method":"session.lifecycle","params":{"type":"session.created"}}`)             // published
	send(`{"jsonrpc":"2.0","method":"other.news","params":{}}`)                                            // unsubscribed
	send(`{"jsonrpc":"2.0","id":"q3","method":"host.ask","params":{}}`)                                    // published
	send(`{"jsonrpc":"2.0","id":"q4","method":"nobody.asks","params":{}}`)                                 // unsubscribed, refused
	for range 2 {                                                                                          // the refusals of q2 and q4
		if f := p.next(); f.Error == nil {
			t.Fatalf("got %+v, want a refusal", f)
		}
	}
	p.roundTrip(r) // orders the reads: everything before it was counted
	sent++

	s := r.Stats()
	if got := s.Read(); got != uint64(sent) {
		t.Fatalf("Read() = %d, want the %d messages sent: %+v", got, sent, s)
	}
	want := Stats{Responses: 2, UnknownResponses: 1, Malformed: 1, Routed: 4, DroppedUnknown: 2, Published: 2, Unsubscribed: 2, RequestsRefused: 2, Sessions: 1}
	if s != want {
		t.Fatalf("Stats = %+v, want %+v", s, want)
	}
}

// An abandoned creation whose late response (taken by the reader) and the
// router's stop race to end it: only the one that takes it off the router
// drops what it held — one count, one answer, and no concurrent use of the
// held map (-race sees it). Run many times: the order varies.
func TestLateSettleRacingStopDropsOnce(t *testing.T) {
	for range 20 {
		r, p := newPeer(t, Config{})
		cancel, done := startAbandonable(t, r)
		p.expect("session.create")
		p.event("other", "session.info", "") // held: a creation is in flight
		p.roundTrip(r)                       // the reader has held it
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the creation did not give up")
		}
		r.mu.Lock()
		h := r.creating
		r.mu.Unlock()
		if h == nil || h.late == nil {
			t.Fatal("the abandoned creation is not awaiting its response")
		}
		var wg sync.WaitGroup
		wg.Go(func() { h.settleLate(&jsonrpc2.Response{Result: rawJSON(`{"sessionId":"late"}`)}) })
		r.Close()
		wg.Wait()
		if n := r.Stats().DroppedUnknown; n != 1 {
			t.Fatalf("DroppedUnknown = %d, want 1", n)
		}
		p.close()
	}
}

// startAbandonable starts a server-assigned creation that the test gives
// up with cancel; done receives CreateAssigned's error.
func startAbandonable(t *testing.T, r *Router) (cancel context.CancelFunc, done <-chan error) {
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	errc := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(ctx, map[string]string{"model": "m"}, nil)
		errc <- err
	}()
	return cancel, errc
}

func rawJSON(s string) *json.RawMessage {
	raw := json.RawMessage(s)
	return &raw
}

// A router its user closed closes every channel of it: the error wraps
// ErrStopped and ErrClosed, and errors.Is finds session.ErrClosed in it,
// while the message says "router closed" once.
func TestCloseIsAChannelClose(t *testing.T) {
	r, _ := newPeer(t, Config{})
	ch := open(t, r, "s1")
	r.Close()
	_, err := ch.Receive(testutil.Context(t, hangGuard))
	if !errors.Is(err, ErrStopped) || !errors.Is(err, ErrClosed) || !errors.Is(err, session.ErrClosed) {
		t.Fatalf("err = %v, want ErrStopped, ErrClosed and session.ErrClosed", err)
	}
	if err.Error() != "router stopped: router closed" {
		t.Errorf("err = %q", err)
	}
}
