package wire

import (
	"fmt"
	"io"
	"sync"
)

// queueWriter is an io.Writer whose Write appends to a bounded in-memory
// queue and returns at once; one goroutine drains the queue to the real
// writer. Two buffers take turns so the steady state allocates nothing, and
// everything queued while a write was in progress goes out in one write.
type queueWriter struct {
	w   io.Writer
	max int

	mu      sync.Mutex
	pending []byte // queued, not yet handed to the drain goroutine
	spare   []byte // the drain goroutine's last buffer, ready for reuse
	err     error  // first write error, or ErrStreamClosed
	wake    chan struct{}
	stopped chan struct{}
	drained chan struct{}
}

func newQueueWriter(w io.Writer, maxBacklog int) *queueWriter {
	q := &queueWriter{
		w:       w,
		max:     maxBacklog,
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		drained: make(chan struct{}),
	}
	go q.drain()
	return q
}

// Write queues a copy of p. It never waits for the peer.
func (q *queueWriter) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return 0, q.err
	}
	if len(q.pending)+len(p) > q.max {
		return 0, fmt.Errorf("%w (%d bytes queued)", ErrWriteBacklog, len(q.pending))
	}
	q.pending = append(q.pending, p...)
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (q *queueWriter) drain() {
	defer close(q.drained)
	for {
		select {
		case <-q.wake:
		case <-q.stopped:
			return
		}
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.mu.Unlock()
			continue
		}
		// Hand the writer the filled buffer and let Write fill the spare. The
		// spare is taken, not shared: the two must never alias.
		buf := q.pending
		q.pending, q.spare = q.spare[:0], nil
		q.mu.Unlock()
		_, err := q.w.Write(buf)
		q.mu.Lock()
		if err != nil && q.err == nil {
			q.err = fmt.Errorf("wire: writing to the peer: %w", err)
		}
		if cap(buf) <= keepBody {
			q.spare = buf[:0]
		} else {
			q.spare = nil
		}
		failed := q.err != nil
		q.mu.Unlock()
		if failed {
			return
		}
	}
}

// stop makes later writes fail and ends the drain goroutine once any write in
// progress returns; the caller closes the underlying connection first so that
// a write blocked on the peer returns.
func (q *queueWriter) stop() {
	q.mu.Lock()
	if q.err == nil {
		q.err = ErrStreamClosed
	}
	q.pending = nil
	q.mu.Unlock()
	select {
	case <-q.stopped:
	default:
		close(q.stopped)
	}
	<-q.drained
}

// failure is the first write error, if any.
func (q *queueWriter) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}
