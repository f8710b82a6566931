package session

import (
	"context"
	"sync"
)

// mailbox is an unblocking queue: the router appends from its one reader
// goroutine and never waits; the consumer receives with a context. It holds
// at most max bytes (by Message.size). Passing the bound fails the mailbox
// instead of blocking the reader, so one stuck consumer cannot stall the
// connection.
type mailbox struct {
	max      int
	overflow error // the failure when a put passes max

	mu    sync.Mutex
	queue []Message
	head  int // queue[head:] are waiting
	bytes int
	err   error // set once: the mailbox failed or was closed

	ready chan struct{} // one-slot signal: something was appended
	done  chan struct{} // closed when err is set

	// beforeWait, if set (by tests only), runs when get has found the queue
	// empty and is about to wait.
	beforeWait func()
}

func newMailbox(maxBytes int, overflow error) *mailbox {
	return &mailbox{max: maxBytes, overflow: overflow, ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// put appends m, or refuses it when the mailbox has failed or closed. When
// m would pass the bound, the mailbox fails with b.overflow and returns its
// buffered messages so the caller can answer the requests among them.
func (b *mailbox) put(m Message) (d Delivery, dropped []Message) {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return Refused, nil
	}
	// One message is always accepted into an empty mailbox, however large
	// (the frame limit bounds it): only a backlog means the consumer fell
	// behind.
	if b.bytes > 0 && b.bytes+m.Size() > b.max {
		dropped = b.failLocked(b.overflow, true)
		b.mu.Unlock()
		return Overflowed, dropped
	}
	b.queue = append(b.queue, m)
	b.bytes += m.Size()
	b.mu.Unlock()
	select {
	case b.ready <- struct{}{}:
	default:
	}
	return Delivered, nil
}

// get returns the next message, waiting for one until ctx ends. Once the
// mailbox has failed, get still returns what was buffered before the error
// unless the failure discarded it, then the error.
func (b *mailbox) get(ctx context.Context) (Message, error) {
	for {
		b.mu.Lock()
		if b.head < len(b.queue) {
			m := b.queue[b.head]
			b.queue[b.head] = Message{} // let the params be collected
			b.head++
			b.bytes -= m.Size()
			if b.head == len(b.queue) {
				b.queue, b.head = b.queue[:0], 0
			} else if b.head > 1024 && b.head*2 > len(b.queue) {
				n := copy(b.queue, b.queue[b.head:])
				clear(b.queue[n:])
				b.queue, b.head = b.queue[:n], 0
			}
			more := b.head < len(b.queue)
			b.mu.Unlock()
			if more {
				// Another receiver may be waiting on the one-slot signal.
				select {
				case b.ready <- struct{}{}:
				default:
				}
			}
			return m, nil
		}
		err := b.err
		b.mu.Unlock()
		if err != nil {
			return Message{}, err
		}
		if ctx.Err() != nil {
			return Message{}, ctx.Err()
		}
		if b.beforeWait != nil {
			b.beforeWait()
		}
		select {
		case <-b.ready:
		case <-b.done:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// fail sets err unless already set. With discard, buffered messages are
// dropped and returned; otherwise they stay receivable ahead of the error.
// Discarding applies even when the mailbox had already failed: a Close
// after the router's failure must still drop, and answer, what the failure
// kept.
func (b *mailbox) fail(err error, discard bool) []Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failLocked(err, discard)
}

func (b *mailbox) failLocked(err error, discard bool) []Message {
	if b.err == nil {
		b.err = err
		close(b.done)
	}
	if !discard || b.head == len(b.queue) {
		return nil
	}
	dropped := append([]Message(nil), b.queue[b.head:]...)
	b.queue, b.head, b.bytes = nil, 0, 0
	return dropped
}

// buffered reports the number of messages and bytes waiting.
func (b *mailbox) buffered() (int, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue) - b.head, b.bytes
}
