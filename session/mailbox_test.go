package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// One producer, one consumer running at once: every message arrives once,
// in the order delivered.
// Contract 1 (see the package doc).
func TestReceiveKeepsOrder(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	const n = 5000
	go func() {
		for i := range n {
			if d, _ := sink.Deliver(numbered(i)); d != Delivered {
				t.Errorf("message %d not delivered", i)
				return
			}
		}
	}()
	ctx := testutil.Context(t, hangGuard)
	for i := range n {
		m, err := ch.Receive(ctx)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if got := numberOf(t, m); got != i {
			t.Fatalf("message %d arrived as number %d", i, got)
		}
	}
	if msgs, bytes := ch.Buffered(); msgs != 0 || bytes != 0 {
		t.Errorf("Buffered = %d messages, %d bytes after reading all", msgs, bytes)
	}
}

func TestReceiveWaitsForAMessage(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	// The test hook says when Receive has found the channel empty and is
	// about to wait: the delivery below comes to a waiting receiver.
	waiting := make(chan struct{}, 1)
	setBeforeWait(t, ch.mb, func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	})
	got := make(chan Message, 1)
	errc := make(chan error, 1)
	go func() {
		m, err := ch.Receive(testutil.Context(t, hangGuard))
		if err != nil {
			errc <- err
			return
		}
		got <- m
	}()
	testutil.Receive(t, "Receive reaching its wait", hangGuard, waiting)
	select {
	case m := <-got:
		t.Fatalf("Receive returned %+v with nothing delivered", m)
	case err := <-errc:
		t.Fatalf("Receive failed with nothing delivered: %v", err)
	default:
	}
	deliver(t, sink, numbered(7))
	select {
	case m := <-got:
		if numberOf(t, m) != 7 {
			t.Fatalf("got %+v", m)
		}
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(hangGuard):
		t.Fatal("Receive did not return after a delivery")
	}
}

// Contracts 1 and 4 (see the package doc).
func TestReceiveContextEndLosesNothing(t *testing.T) {
	ch, sink := newChannel(t, Config{})

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ch.Receive(cancelled); err != context.Canceled {
		t.Fatalf("cancelled context: err = %v, want context.Canceled", err)
	}
	expiring, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if _, err := ch.Receive(expiring); err != context.DeadlineExceeded {
		t.Fatalf("expiring context: err = %v, want context.DeadlineExceeded", err)
	}
	if ch.Err() != nil {
		t.Fatalf("a context's end failed the channel: %v", ch.Err())
	}
	deliver(t, sink, numbered(1), numbered(2))
	ctx := testutil.Context(t, hangGuard)
	for want := 1; want <= 2; want++ {
		m, err := ch.Receive(ctx)
		if err != nil || numberOf(t, m) != want {
			t.Fatalf("after the timeouts: got %+v, %v; want number %d", m, err, want)
		}
	}

	// Receives cut short while messages arrive: whatever a cut-short
	// Receive did not return, a later one does.
	const n = 2000
	received := 0
	next := 0
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		type result struct {
			m   Message
			err error
		}
		res := make(chan result, 1)
		go func() {
			m, err := ch.Receive(ctx)
			res <- result{m, err}
		}()
		go cancel()
		deliver(t, sink, numbered(i))
		r := <-res
		cancel()
		if r.err == nil {
			if got := numberOf(t, r.m); got != next {
				t.Fatalf("got number %d, want %d", got, next)
			}
			next++
			received++
		} else if r.err != context.Canceled {
			t.Fatalf("err = %v", r.err)
		}
	}
	for next < n {
		m, err := ch.Receive(testutil.Context(t, hangGuard))
		if err != nil {
			t.Fatalf("%d of %d messages lost: %v", n-next, n, err)
		}
		if got := numberOf(t, m); got != next {
			t.Fatalf("got number %d, want %d", got, next)
		}
		next++
	}
	t.Logf("%d of %d taken by the racing receives", received, n)
}

// Several receivers share one channel: each message goes to exactly one of
// them, and each receiver sees the messages it got in delivery order.
func TestConcurrentReceiversGetEachMessageOnce(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	const receivers, n = 8, 20000
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	defer cancel()

	var mu sync.Mutex
	seen := make([]int, n)
	total := 0
	allIn := make(chan struct{})
	var wg sync.WaitGroup
	for range receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			for {
				m, err := ch.Receive(ctx)
				if err != nil {
					return
				}
				k := numberOf(t, m)
				if k <= last {
					t.Errorf("a receiver got %d after %d", k, last)
				}
				last = k
				mu.Lock()
				seen[k]++
				total++
				if total == n {
					close(allIn)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		deliver(t, sink, numbered(i))
	}
	select {
	case <-allIn:
	case <-time.After(hangGuard):
		mu.Lock()
		t.Errorf("only %d of %d messages received", total, n)
		mu.Unlock()
	}
	cancel()
	wg.Wait()
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("message %d received %d times", k, c)
		}
	}
}

// The wake-up signal holds one token. Two deliveries that land while no
// receiver is parked leave one token for two messages; the receiver that
// takes the first message must pass the wake-up on, or the other sleeps
// while a message waits. The test hook holds both receivers between
// finding the queue empty and waiting, the window where this happens.
func TestWakeUpIsPassedOn(t *testing.T) {
	const receivers = 2
	ch, sink := newChannel(t, Config{})
	var inWindow sync.WaitGroup
	inWindow.Add(receivers)
	gate := make(chan struct{})
	setBeforeWait(t, ch.mb, func() {
		inWindow.Done()
		<-gate
	})
	ctx := testutil.Context(t, hangGuard)
	got := make(chan int, receivers)
	for range receivers {
		go func() {
			m, err := ch.Receive(ctx)
			if err != nil {
				got <- -1
				return
			}
			got <- numberOf(t, m)
		}()
	}
	inWindow.Wait()
	setBeforeWait(t, ch.mb, nil) // later waits go straight through
	deliver(t, sink, numbered(0), numbered(1))
	close(gate)
	seen := make(map[int]bool)
	for range receivers {
		select {
		case k := <-got:
			if k < 0 || seen[k] {
				t.Fatalf("got %d (already: %v)", k, seen)
			}
			seen[k] = true
		case <-time.After(hangGuard):
			msgs, _ := ch.Buffered()
			ch.Close(context.Background()) // release the stuck receiver
			t.Fatalf("a receiver is still waiting while %d message(s) wait", msgs)
		}
	}
}

// Receivers that each take one message and leave, racing a burst of
// deliveries: every one gets a message.
func TestBurstWakesEveryReceiver(t *testing.T) {
	const rounds, receivers = 300, 4
	for round := range rounds {
		ch, sink := mustNew(t, "s1", Config{}, nil)
		ctx := testutil.Context(t, hangGuard)
		got := make(chan int, receivers)
		for range receivers {
			go func() {
				m, err := ch.Receive(ctx)
				if err != nil {
					got <- -1
					return
				}
				got <- numberOf(t, m)
			}()
		}
		for i := range receivers {
			deliver(t, sink, numbered(i))
		}
		seen := make(map[int]bool)
		for range receivers {
			select {
			case k := <-got:
				if k < 0 || seen[k] {
					t.Fatalf("round %d: got %d (already: %v)", round, k, seen)
				}
				seen[k] = true
			case <-time.After(hangGuard):
				msgs, _ := ch.Buffered()
				ch.Close(context.Background())
				t.Fatalf("round %d: a receiver is still waiting while %d messages wait", round, msgs)
			}
		}
		ch.Close(context.Background())
	}
}

// Past 1024 consumed messages with a backlog the queue compacts; order and
// the Buffered counts survive it.
func TestCompactionKeepsOrder(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	ctx := testutil.Context(t, hangGuard)
	delivered, received := 0, 0
	var sizes []int // sizes of the waiting messages, oldest first
	put := func(k int) {
		for range k {
			m := numbered(delivered)
			deliver(t, sink, m)
			sizes = append(sizes, m.Size())
			delivered++
		}
	}
	get := func(k int) {
		for range k {
			m, err := ch.Receive(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := numberOf(t, m); got != received {
				t.Fatalf("got number %d, want %d", got, received)
			}
			received++
			sizes = sizes[1:]
		}
	}
	check := func() {
		t.Helper()
		wantBytes := 0
		for _, s := range sizes {
			wantBytes += s
		}
		if msgs, bytes := ch.Buffered(); msgs != len(sizes) || bytes != wantBytes {
			t.Fatalf("Buffered = %d messages, %d bytes; want %d, %d", msgs, bytes, len(sizes), wantBytes)
		}
	}
	// One big backlog, read past the compaction point.
	put(3000)
	get(1600)
	check()
	put(2000)
	check()
	// A queue that never empties while thousands go through it.
	for range 2000 {
		put(3)
		get(2)
	}
	check()
	get(delivered - received)
	check()
	if msgs, bytes := ch.Buffered(); msgs != 0 || bytes != 0 {
		t.Fatalf("Buffered = %d, %d at the end", msgs, bytes)
	}
	if delivered != received {
		t.Fatalf("delivered %d, received %d", delivered, received)
	}
	// Still usable once drained.
	put(1)
	get(1)
}
