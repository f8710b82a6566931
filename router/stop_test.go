package router

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

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
		if !errors.Is(err, ErrStopped) || !errors.Is(err, ErrConnectionClosed) || !strings.Contains(err.Error(), "closed by the peer") {
			t.Errorf("err = %v, want ErrStopped wrapping ErrConnectionClosed", err)
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
		"oversize":     {"Content-Length: 999999999\r\n\r\n", ErrFrameTooLarge},
		"no length":    {"Content-Type: x\r\n\r\n{}", ErrBadHeader},
		"bad length":   {"Content-Length: -4\r\n\r\n", ErrBadHeader},
		"no colon":     {"garbage\r\n\r\n", ErrBadHeader},
		"bare newline": {"Content-Length: 2\n\n{}", ErrBadHeader},
		"endless":      {"Content-Length: 1" + strings.Repeat("1", 9000), ErrBadHeader},
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
