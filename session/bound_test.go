package session

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// The buffer bound (mailbox.go): past MaxBufferedBytes a channel fails only
// once its consumer has received nothing for MaxStall, or at four times the
// bound. The tests that need time to pass use a clock of their own; those
// under CPU contention assert what happens, never how long it took.

// fakeClock is a channel's clock, moved by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// withClock gives ch a clock the test moves. Call it before any Deliver.
func withClock(ch *Channel) *fakeClock {
	c := &fakeClock{t: time.Unix(1_000_000_000, 0)}
	ch.mb.now = c.now
	return c
}

// padded is a session.event whose params are about n bytes.
func padded(n int) Message {
	return eventMsg("test.pad", `{"pad":"`+strings.Repeat("p", max(n-160, 0))+`"}`)
}

// A consumer that stops receiving past the bound fails once MaxStall has
// passed: the channel fails once (Overflowed), answers every request it held
// and the one that overflowed it, and refuses the rest.
// Contract 2 (see the package doc).
func TestStalledConsumerFails(t *testing.T) {
	rec := &recorder{}
	// The bound is exactly what the first ten messages take.
	var first []Message
	var held []jsonrpc2.ID
	total := 0
	for i := range 10 {
		m := numbered(i)
		if i%3 == 1 {
			m = request(uint64(100+i), rec)
			held = append(held, m.ID)
		}
		first = append(first, m)
		total += m.Size()
	}
	ch, sink := mustNew(t, "sess-42", Config{MaxBufferedBytes: total, MaxStall: time.Second}, nil)
	defer ch.Close(context.Background())
	clock := withClock(ch)
	deliver(t, sink, first...)
	if msgs, bytes := ch.Buffered(); msgs != 10 || bytes != total {
		t.Fatalf("Buffered = %d, %d; want 10, %d", msgs, bytes, total)
	}

	// Past the bound, the consumer is watched from now; within MaxStall it
	// may still be merely waiting for a core.
	past := request(200, rec)
	held = append(held, past.ID)
	deliver(t, sink, past)
	clock.advance(time.Second)
	deliver(t, sink, numbered(10))
	if len(rec.all()) != 0 || isDone(ch) || ch.Err() != nil {
		t.Fatal("the channel reacted before its consumer had stalled for MaxStall")
	}

	clock.advance(time.Millisecond)
	// Every held request is answered, and this one; refused counts this
	// one only (the held ones were delivered, and counted, before).
	if d, refused := sink.Deliver(request(201, rec)); d != Overflowed || refused != 1 {
		t.Fatalf("the message after MaxStall without a receive: %v, %d refused; want Overflowed, 1", d, refused)
	}
	rec.wantUnavailable(t, append(held, num(201))...)
	if d, refused := sink.Deliver(request(202, rec)); d != Refused || refused != 1 {
		t.Fatalf("after the overflow: %v, %d refused; want Refused, 1", d, refused)
	}
	rec.wantUnavailable(t, num(202))
	if d, refused := sink.Deliver(numbered(99)); d != Refused || refused != 0 {
		t.Fatalf("a notification after the overflow: %v, %d refused; want Refused, 0", d, refused)
	}
	if n := len(rec.all()); n != len(held)+2 {
		t.Errorf("%d answers, want %d (notifications are not answered)", n, len(held)+2)
	}

	if !isDone(ch) {
		t.Error("Done still open after the overflow")
	}
	if msgs, bytes := ch.Buffered(); msgs != 0 || bytes != 0 {
		t.Errorf("Buffered = %d, %d after the overflow dropped everything", msgs, bytes)
	}
	for range 2 {
		_, err := ch.Receive(testutil.Context(t, hangGuard))
		if !errors.Is(err, ErrFellBehind) || !strings.Contains(err.Error(), "sess-42") || !strings.Contains(err.Error(), "nothing received") {
			t.Fatalf("Receive: err = %v, want ErrFellBehind naming the session and the stall", err)
		}
	}
	if err := ch.Err(); !errors.Is(err, ErrFellBehind) {
		t.Errorf("Err = %v", err)
	}
}

// Every receive starts the wait anew: a consumer that keeps receiving,
// however slowly, is not failed for stalling.
func TestReceivingRestartsTheStallClock(t *testing.T) {
	ch, sink := newChannel(t, Config{MaxBufferedBytes: 4000, MaxStall: time.Second})
	clock := withClock(ch)
	ctx := testutil.Context(t, hangGuard)
	for range 6 {
		deliver(t, sink, padded(1000)) // past the bound from the fourth on
	}
	for range 5 {
		clock.advance(900 * time.Millisecond)
		if _, err := ch.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		clock.advance(900 * time.Millisecond)
		deliver(t, sink, padded(1000)) // 1.8 s since the last delivery, 0.9 s since the receive
	}
	clock.advance(1001 * time.Millisecond)
	if d, _ := sink.Deliver(padded(1000)); d != Overflowed {
		t.Fatalf("after MaxStall without a receive: %v, want Overflowed", d)
	}
}

// Back within the bound, the watch ends: a later excursion past it starts
// a fresh one.
// Contract 2 (see the package doc).
func TestWithinTheBoundNothingIsWatched(t *testing.T) {
	ch, sink := newChannel(t, Config{MaxBufferedBytes: 2500, MaxStall: time.Second})
	clock := withClock(ch)
	ctx := testutil.Context(t, hangGuard)
	deliver(t, sink, padded(1000), padded(1000), padded(1000)) // past the bound: watched
	for range 3 {
		if _, err := ch.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	clock.advance(time.Hour)
	deliver(t, sink, padded(1000), padded(1000), padded(1000)) // past it again, watched from now
	clock.advance(time.Second)
	deliver(t, sink, padded(1000))
	if ch.Err() != nil {
		t.Fatalf("failed for a stall that began before the buffer was emptied: %v", ch.Err())
	}
}

// At four times the bound the channel fails whatever its consumer does:
// memory stays bounded for a consumer that never reads and for one that
// reads too slowly, and one message larger than the bound is still
// accepted into an empty channel (the frame limit bounds it).
// Contract 6 (see the package doc).
func TestBurstBackstop(t *testing.T) {
	const bound = 10_000
	for _, receiving := range []bool{false, true} {
		ch, sink := newChannel(t, Config{MaxBufferedBytes: bound, MaxStall: time.Hour})
		withClock(ch) // time stands still: only bytes can fail it
		ctx := testutil.Context(t, hangGuard)
		if d, _ := sink.Deliver(padded(3 * bound)); d != Delivered {
			t.Fatalf("one message larger than the bound, into an empty channel: %v", d)
		}
		if _, err := ch.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		most, delivered := 0, 0
		for ; delivered < 100; delivered++ {
			if receiving && delivered%5 == 4 {
				if _, err := ch.Receive(ctx); err != nil {
					t.Fatal(err)
				}
			}
			m := padded(1000)
			_, bytes := ch.Buffered()
			if d, _ := sink.Deliver(m); d == Overflowed {
				if bytes+m.Size() <= 4*bound {
					t.Fatalf("receiving=%v: failed at %d bytes, within four times the bound", receiving, bytes+m.Size())
				}
				break
			}
			_, bytes = ch.Buffered()
			most = max(most, bytes)
		}
		if delivered == 100 || most > 4*bound {
			t.Fatalf("receiving=%v: %d delivered, up to %d bytes buffered; want a failure within %d", receiving, delivered, most, 4*bound)
		}
		if err := ch.Err(); !errors.Is(err, ErrFellBehind) || !strings.Contains(err.Error(), "times its bound") {
			t.Fatalf("receiving=%v: Err = %v", receiving, err)
		}
	}
}

// The default bound is DefaultMaxBufferedBytes, watched for
// DefaultMaxStall, with the backstop at four times it.
func TestDefaultBound(t *testing.T) {
	fill := func(advance time.Duration) (n, total int) {
		ch, sink := newChannel(t, Config{})
		clock := withClock(ch)
		pad := strings.Repeat("d", 64<<10)
		for ; ; n++ {
			m := NewNotification(protocol.NotificationSessionEvent, json.RawMessage(`"`+pad+`"`))
			if d, _ := sink.Deliver(m); d != Delivered {
				return n, total + m.Size()
			}
			total += m.Size()
			if total > DefaultMaxBufferedBytes {
				clock.advance(advance)
			}
			if n > 1000 {
				t.Fatal("no bound")
			}
		}
	}
	if n, total := fill(0); total <= 4*DefaultMaxBufferedBytes || total-total/(n+1) > 4*DefaultMaxBufferedBytes {
		t.Errorf("with no time passing, failed at %d bytes (%d messages); want just past %d", total, n, 4*DefaultMaxBufferedBytes)
	}
	if n, total := fill(DefaultMaxStall + 1); total <= DefaultMaxBufferedBytes || total > DefaultMaxBufferedBytes+3*(total/(n+1)) {
		t.Errorf("stalled for DefaultMaxStall, failed at %d bytes (%d messages); want just past %d", total, n, DefaultMaxBufferedBytes)
	}
}

// A consumer that is merely descheduled does not fail: it is held, as a
// goroutine waiting for a core is, until a burst has put well past the
// bound, then receives slowly (yielding and sleeping between receives)
// while the rest of the burst arrives, and it gets every message in order.
// With the bound alone (the policy before this one), the first burst
// failed it. The hold makes every run test the policy: the channel is past
// its bound each time the consumer starts.
// Contract 2 (see the package doc).
func TestDescheduledConsumerDoesNotFail(t *testing.T) {
	const bound = 256 << 10
	ch, sink := newChannel(t, Config{MaxBufferedBytes: bound})
	ctx := testutil.Context(t, hangGuard)

	const bursts, perBurst = 3, 30      // 30 × 24 KB: about three times the bound
	past := make(chan struct{}, bursts) // a burst has put the channel past the bound
	read := make(chan struct{}, bursts) // the consumer has read a whole burst
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for i := 0; i < bursts*perBurst; i++ {
			if i%perBurst == 0 {
				select { // held until this burst is past the bound
				case <-past:
				case <-ctx.Done():
					t.Error("the burst never passed the bound")
					return
				}
			}
			m, err := ch.Receive(ctx)
			if err != nil {
				t.Errorf("message %d: %v", i, err)
				return
			}
			if n := numberOf(t, m); n != i {
				t.Errorf("got message %d, want %d", n, i)
				return
			}
			if i%2 == 0 {
				runtime.Gosched()
			} else {
				time.Sleep(time.Millisecond)
			}
			if i%perBurst == perBurst-1 {
				read <- struct{}{}
			}
		}
	}()
	pad := strings.Repeat("b", 24<<10)
	most := 0
	for b := range bursts {
		signalled := false
		for i := range perBurst {
			n := b*perBurst + i
			m := eventMsg("test.numbered", `{"n":`+itoa(n)+`,"pad":"`+pad+`"}`)
			if d, _ := sink.Deliver(m); d != Delivered {
				t.Fatalf("burst %d, message %d: %v (%v)", b, i, d, ch.Err())
			}
			_, bytes := ch.Buffered()
			most = max(most, bytes)
			if bytes > bound && !signalled {
				signalled = true
				past <- struct{}{}
			}
		}
		if !signalled {
			t.Fatalf("burst %d never put the channel past its bound of %d bytes: the test does not test the policy", b, bound)
		}
		// The next burst comes once this one is read, as the CLI's turns do.
		select {
		case <-read:
		case <-drained:
		}
	}
	<-drained
	if most <= bound {
		t.Errorf("at most %d bytes waited, within the bound of %d: the bursts did not test the policy", most, bound)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
