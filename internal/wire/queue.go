package wire

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// queueWriter is an io.Writer whose Write appends to a bounded in-memory
// queue and returns at once; one goroutine drains the queue to the real
// writer. Two buffers take turns so the steady state allocates nothing, and
// everything queued while a write was in progress goes out in one write.
//
// Each Write is queued whole or not at all, so a caller that writes one
// frame per Write never leaves half a frame on the wire.
type queueWriter struct {
	w   io.Writer
	max int

	mu sync.Mutex
	// pending is queued and not yet handed to the drain goroutine. spare is
	// the drain goroutine's last buffer, kept for reuse. pending, spare and
	// the buffer being written are always distinct arrays: Write appends to
	// pending while the drain goroutine writes its buffer unlocked.
	pending  []byte
	spare    []byte
	inflight int   // bytes the drain goroutine is writing; they count against max
	writeErr error // the first write error
	closed   bool

	wake     chan struct{}
	failed   chan struct{} // closed when writeErr is set
	stopped  chan struct{}
	stopOnce sync.Once
	drained  chan struct{}
}

func newQueueWriter(w io.Writer, maxBacklog int) *queueWriter {
	q := &queueWriter{
		w:       w,
		max:     maxBacklog,
		wake:    make(chan struct{}, 1),
		failed:  make(chan struct{}),
		stopped: make(chan struct{}),
		drained: make(chan struct{}),
	}
	go q.drain()
	return q
}

// Write queues a copy of p. It never waits for the peer. It fails, queuing
// nothing, when the stream is closed or broken or when p would take the
// bytes not yet written past the bound.
func (q *queueWriter) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closed:
		return 0, ErrStreamClosed
	case q.writeErr != nil:
		return 0, q.writeErr
	}
	if backlog := len(q.pending) + q.inflight; backlog+len(p) > q.max {
		return 0, fmt.Errorf("%w (%d bytes unwritten, %d more refused)", ErrWriteBacklog, backlog, len(p))
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
			// A wake-up left over from writes an earlier round took.
			q.mu.Unlock()
			continue
		}
		// Take the spare rather than share it: were pending and spare the
		// same array, the next round would append to the buffer in flight.
		buf := q.pending
		q.pending, q.spare = q.spare[:0], nil
		q.inflight = len(buf)
		q.mu.Unlock()

		_, err := q.w.Write(buf)

		q.mu.Lock()
		q.inflight = 0
		// An error caused by Close closing the connection is not a failure.
		if err != nil && q.writeErr == nil && !q.closed {
			q.writeErr = fmt.Errorf("wire: writing to the peer: %w", err)
			close(q.failed)
		}
		if cap(buf) <= keepBody {
			q.spare = buf[:0]
		}
		end := q.closed || q.writeErr != nil
		q.mu.Unlock()
		if end {
			return
		}
	}
}

// close makes later writes fail with ErrStreamClosed, discards what is
// queued and tells the drain goroutine to end. It does not wait: a write
// blocked on the peer returns only once the caller closes the connection,
// after which wait returns.
func (q *queueWriter) close() {
	q.mu.Lock()
	q.closed = true
	q.pending, q.spare = nil, nil
	q.mu.Unlock()
	q.stopOnce.Do(func() { close(q.stopped) })
}

// wait returns once the drain goroutine has ended, or reports false after
// limit: a connection whose Close does not interrupt a blocked Write keeps
// the goroutine until that Write returns, and Close must not wait on it.
func (q *queueWriter) wait(limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-q.drained:
		return true
	case <-t.C:
		return false
	}
}

// failure is the first write error, if any. Closing is not one.
func (q *queueWriter) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.writeErr
}
