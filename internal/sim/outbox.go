package sim

import (
	"context"
	"errors"
	"sync"
)

// errConnClosed is what queued writes report once their connection is gone.
var errConnClosed = errors.New("sim: connection closed")

// outItem is one thing for the writer to put on the wire: a reply, a
// notification, a server→client request or raw fault bytes.
type outItem struct {
	write func() error
	done  chan<- error // optional; receives write's result (buffered by the sender)
}

func (it outItem) finish(err error) {
	if it.done != nil {
		it.done <- err
	}
}

// outbox is the single ordered path from the server to one client. Anyone may
// push without waiting, so the read loop never blocks on the client; one
// writer goroutine drains it. Turn goroutines call waitRoom first, which gives
// backpressure to producers of events without ever touching replies.
//
// Order on the wire is push order: that is what makes "session.start before
// the create response" and fault injection "between these two frames" exact.
type outbox struct {
	limit int

	mu     sync.Mutex
	items  []outItem
	wake   chan struct{} // one slot: items were pushed or the box closed
	room   chan struct{} // closed (and replaced) whenever the writer takes items
	closed bool
}

func newOutbox(limit int) *outbox {
	return &outbox{limit: limit, wake: make(chan struct{}, 1), room: make(chan struct{})}
}

// push queues it. It never blocks. After close it fails it at once and
// reports false.
func (o *outbox) push(it outItem) bool {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		it.finish(errConnClosed)
		return false
	}
	o.items = append(o.items, it)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

// waitRoom waits until fewer than limit items are queued, ctx is done or the
// box closes.
func (o *outbox) waitRoom(ctx context.Context) error {
	for {
		o.mu.Lock()
		if o.closed {
			o.mu.Unlock()
			return errConnClosed
		}
		if len(o.items) < o.limit {
			o.mu.Unlock()
			return nil
		}
		room := o.room
		o.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close stops the box: later pushes fail, the writer fails what is still
// queued and returns.
func (o *outbox) close() {
	o.mu.Lock()
	if !o.closed {
		o.closed = true
		close(o.room)
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// run is the writer loop. onError is called once, with the first write error;
// later items are failed without being written because the stream is broken.
func (o *outbox) run(onError func(error)) {
	var broken error
	for {
		o.mu.Lock()
		for len(o.items) == 0 && !o.closed {
			o.mu.Unlock()
			<-o.wake
			o.mu.Lock()
		}
		batch := o.items
		o.items = nil
		closed := o.closed
		if !closed {
			close(o.room)
			o.room = make(chan struct{})
		}
		o.mu.Unlock()

		for _, it := range batch {
			if closed && broken == nil {
				broken = errConnClosed
			}
			if broken != nil {
				it.finish(broken)
				continue
			}
			err := it.write()
			it.finish(err)
			if err != nil {
				broken = err
				onError(err)
			}
		}
		if closed {
			return
		}
	}
}
