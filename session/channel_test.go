package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

func isDone(ch *Channel) bool {
	select {
	case <-ch.Done():
		return true
	default:
		return false
	}
}

func request(id uint64, rec *recorder) Message {
	return NewRequest("userInput.request", num(id), json.RawMessage(`{"sessionId":"s1"}`), rec)
}

// Receiving frees the bound: a reader that keeps up never fails, however
// much goes through.
func TestBoundCountsOnlyUnread(t *testing.T) {
	size := numbered(999).Size() // the largest used
	ch, sink := newChannel(t, Config{MaxBufferedBytes: 3 * size})
	ctx := testutil.Context(t, hangGuard)
	for i := range 1000 {
		deliver(t, sink, numbered(i))
		if i%3 == 2 {
			for j := i - 2; j <= i; j++ {
				m, err := ch.Receive(ctx)
				if err != nil || numberOf(t, m) != j {
					t.Fatalf("got %+v, %v; want %d", m, err, j)
				}
			}
		}
	}
}

// Fail keeps what was read before it: Receive returns those, then the error.
func TestFailKeepsBufferedMessages(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	rec := &recorder{}
	deliver(t, sink, numbered(0), request(1, rec), numbered(2))
	stop := errors.New("connection closed by the peer")
	sink.Fail(stop)
	if !isDone(ch) || ch.Err() != stop {
		t.Fatalf("after Fail: done=%v, Err=%v", isDone(ch), ch.Err())
	}
	sink.Fail(errors.New("second failure"))
	if d, _ := sink.Deliver(request(3, rec)); d != Refused {
		t.Fatalf("Deliver after Fail = %v, want Refused", d)
	}
	rec.wantUnavailable(t, num(3))
	// An answer the replier could not queue is not counted as refused: the
	// replier reports it (the router counts RepliesFailed and stops).
	rec.mu.Lock()
	rec.refuse = errors.New("write backlog full")
	rec.mu.Unlock()
	if d, refused := sink.Deliver(request(4, rec)); d != Refused || refused != 0 {
		t.Fatalf("Deliver after Fail with an unqueueable answer = %v, %d refused; want Refused, 0", d, refused)
	}
	rec.mu.Lock()
	rec.refuse = nil
	rec.mu.Unlock()

	ctx := testutil.Context(t, hangGuard)
	for i := range 3 {
		m, err := ch.Receive(ctx)
		if err != nil {
			t.Fatalf("buffered message %d: %v", i, err)
		}
		if i == 1 {
			if !m.IsRequest() || m.ID != num(1) {
				t.Fatalf("message 1 = %+v, want the request", m)
			}
			continue
		}
		if numberOf(t, m) != i {
			t.Fatalf("message %d out of order", i)
		}
	}
	for range 2 {
		if _, err := ch.Receive(ctx); err != stop {
			t.Fatalf("after the buffer: err = %v, want the first failure", err)
		}
	}
	if len(rec.all()) != 1 {
		t.Errorf("answers: %+v; the buffered request is the consumer's to answer", rec.all())
	}
}

// A failure wakes a waiting receiver.
func TestFailWakesAReceiver(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	errc := make(chan error, 1)
	go func() {
		_, err := ch.Receive(testutil.Context(t, hangGuard))
		errc <- err
	}()
	stop := errors.New("stop")
	sink.Fail(stop)
	if err := <-errc; err != stop {
		t.Fatalf("err = %v", err)
	}
}

// closeRecorder records the ids its CloseFunc was called with.
type closeRecorder struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (c *closeRecorder) fn(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, id)
	return c.err
}

// Contract 3 (see the package doc).
func TestCloseAnswersHeldRequests(t *testing.T) {
	cr := &closeRecorder{}
	ch, sink := mustNew(t, "s7", Config{}, cr.fn)
	rec := &recorder{}
	deliver(t, sink, numbered(0), request(1, rec), numbered(2), request(2, rec))
	if err := ch.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.wantUnavailable(t, num(1), num(2))
	if rp := rec.only(t, num(1)); !strings.Contains(rp.Err.Message, "s7") {
		t.Errorf("answer %q does not name the session", rp.Err.Message)
	}
	if msgs, bytes := ch.Buffered(); msgs != 0 || bytes != 0 {
		t.Errorf("Buffered = %d, %d after Close", msgs, bytes)
	}
	if _, err := ch.Receive(testutil.Context(t, hangGuard)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Receive after Close: err = %v, want ErrClosed", err)
	}
	if !isDone(ch) || !errors.Is(ch.Err(), ErrClosed) {
		t.Errorf("Done=%v Err=%v after Close", isDone(ch), ch.Err())
	}
	if d, _ := sink.Deliver(request(3, rec)); d != Refused {
		t.Fatalf("Deliver after Close = %v, want Refused", d)
	}
	rec.wantUnavailable(t, num(3))
	if len(cr.calls) != 1 || cr.calls[0] != "s7" {
		t.Fatalf("CloseFunc calls = %q, want one for s7", cr.calls)
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	boom := errors.New("deregistering failed")
	cr := &closeRecorder{err: boom}
	ch, sink := mustNew(t, "s8", Config{}, cr.fn)
	rec := &recorder{}
	deliver(t, sink, request(1, rec))
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ch.Close(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != boom {
			t.Errorf("Close #%d = %v, want the CloseFunc's error", i, err)
		}
	}
	if err := ch.Close(context.Background()); err != boom {
		t.Errorf("a later Close = %v", err)
	}
	if len(cr.calls) != 1 || cr.calls[0] != "s8" {
		t.Fatalf("CloseFunc calls = %q, want one for s8", cr.calls)
	}
	rec.wantUnavailable(t, num(1)) // once, however many Closes
}

func TestCloseWithoutCloseFunc(t *testing.T) {
	ch, _ := mustNew(t, "s9", Config{}, nil)
	if err := ch.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ch.ID() != "s9" {
		t.Errorf("ID = %q", ch.ID())
	}
}

// Close after a failure still discards what the failure kept and answers
// the requests among it: after Close nothing is left to read or to wait on.
// Contract 3 (see the package doc).
func TestCloseAfterFailAnswersWhatWasKept(t *testing.T) {
	cr := &closeRecorder{}
	ch, sink := mustNew(t, "s10", Config{}, cr.fn)
	rec := &recorder{}
	deliver(t, sink, numbered(0), request(1, rec))
	stop := errors.New("router stopped")
	sink.Fail(stop)
	if err := ch.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.wantUnavailable(t, num(1))
	if msgs, _ := ch.Buffered(); msgs != 0 {
		t.Errorf("%d messages still buffered after Close", msgs)
	}
	if _, err := ch.Receive(testutil.Context(t, hangGuard)); err != stop {
		t.Fatalf("Receive after Close = %v, want the first failure", err)
	}
	if len(cr.calls) != 1 {
		t.Errorf("CloseFunc calls = %+v", cr.calls)
	}
}

func TestCloseWakesAReceiver(t *testing.T) {
	ch, _ := mustNew(t, "s11", Config{}, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := ch.Receive(testutil.Context(t, hangGuard))
		errc <- err
	}()
	ch.Close(context.Background())
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v", err)
	}
}

func TestSinkChannel(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	if sink.Channel() != ch {
		t.Fatal("Sink.Channel is not the channel")
	}
}

// A negative MaxBufferedBytes is refused by Validate and by New, with an
// error naming the field and wrapping ErrInvalidConfig (so is a negative
// MaxStall). Zero means the
// default, and a negative DedupeWindow (deduplication off) is allowed.
// Contract 5 (see the package doc).
func TestNewRefusesInvalidConfig(t *testing.T) {
	const want = "session: invalid configuration: Config.MaxBufferedBytes is -1; it must be positive (0 means the default, 8 MiB)"
	bad := Config{MaxBufferedBytes: -1}
	if err := bad.Validate(); !errors.Is(err, ErrInvalidConfig) || err.Error() != want {
		t.Errorf("Validate = %v, want %q", err, want)
	}
	if ch, sink, err := New("s12", bad, nil); ch != nil || sink != nil || !errors.Is(err, ErrInvalidConfig) || err.Error() != want {
		t.Errorf("New = %v, %v, %v; want nil, nil, %q", ch, sink, err, want)
	}
	const wantStall = "session: invalid configuration: Config.MaxStall is -1ms; it must be positive (0 means the default, 1s)"
	if err := (Config{MaxStall: -time.Millisecond}).Validate(); !errors.Is(err, ErrInvalidConfig) || err.Error() != wantStall {
		t.Errorf("Validate = %v, want %q", err, wantStall)
	}
	for _, ok := range []Config{{}, {DedupeWindow: -1}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", ok, err)
		}
	}
}

// Contract 4: a second Close honours its own context. While the first
// Close's CloseFunc is still running, a second Close whose context has
// ended returns that context's error instead of waiting; once the first
// finishes, a later Close returns its result.
func TestSecondCloseHonoursItsContext(t *testing.T) {
	boom := errors.New("deregistering failed")
	entered, release := make(chan struct{}), make(chan struct{})
	ch, _ := mustNew(t, "s10", Config{}, func(context.Context, string) error {
		close(entered)
		<-release
		return boom
	})
	first := make(chan error, 1)
	go func() { first <- ch.Close(context.Background()) }()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ch.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("second Close = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != boom {
		t.Fatalf("first Close = %v", err)
	}
	if err := ch.Close(context.Background()); err != boom {
		t.Fatalf("a later Close = %v, want the first's result", err)
	}
}

// A consumer woken by SetNotify reads with TryReceive and holds nothing
// while the channel is empty: notify follows each delivery, TryReceive
// takes what is buffered, says when nothing is, and reports the channel's
// end.
func TestNotifyAndTryReceive(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	if _, ok, err := ch.TryReceive(); ok || err != nil {
		t.Fatalf("empty: ok %v, err %v", ok, err)
	}
	var notified atomic.Int32
	ch.SetNotify(func() { notified.Add(1) })
	deliver(t, sink, numbered(1), numbered(2))
	if n := notified.Load(); n != 2 {
		t.Fatalf("notified %d times for 2 deliveries", n)
	}
	for want := 1; want <= 2; want++ {
		m, ok, err := ch.TryReceive()
		if !ok || err != nil {
			t.Fatalf("message %d: ok %v, err %v", want, ok, err)
		}
		if got := numberOf(t, m); got != want {
			t.Fatalf("got message %d, want %d", got, want)
		}
	}
	if _, ok, err := ch.TryReceive(); ok || err != nil {
		t.Fatalf("drained: ok %v, err %v", ok, err)
	}
	ch.SetNotify(nil)
	deliver(t, sink, numbered(3))
	if n := notified.Load(); n != 2 {
		t.Fatalf("notified after SetNotify(nil)")
	}
	ch.Close(context.Background())
	if _, ok, err := ch.TryReceive(); ok || !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: ok %v, err %v", ok, err)
	}
}
