package session

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// mailbox is an unblocking queue: the router appends from its one reader
// goroutine and never waits; the consumer receives with a context. Its bound
// (policy below) fails the mailbox instead of blocking the reader, so one
// stuck consumer cannot stall the connection.
type mailbox struct {
	id    string        // the session's, for the failure's message
	max   int           // bytes past which the consumer must keep receiving
	stall time.Duration // how long it may not, past max
	now   func() time.Time

	mu    sync.Mutex
	queue []Message
	head  int // queue[head:] are waiting
	bytes int
	taken uint64 // messages received so far
	err   error  // set once: the mailbox failed or was closed

	// While past max: since when the consumer is watched, and what it had
	// taken then. Zero while within max.
	overSince time.Time
	overTaken uint64

	// successor, set once the mailbox's session was handed to another
	// channel (Sink.Supersede), takes every later delivery.
	successor *Sink

	ready chan struct{} // one-slot signal: something was appended
	done  chan struct{} // closed when err is set

	// ctx, made when first asked for (Channel.Context), is cancelled with
	// err as its cause when err is set.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// testHookBeforeWait is nil in every program users build: only this
// package's tests set it (export_test.go, before any test runs), to hold a
// receiver in the window between finding the queue empty and waiting. It is
// a package variable rather than a field so that the mailbox itself carries
// no test seam.
var testHookBeforeWait func(b *mailbox)

// The bound. A consumer that is merely descheduled must not fail: on a
// loaded two-core machine a fast reader was seen to fail a 256 KiB bound
// after 11 events, because the reader had delivered a burst while the
// consumer's goroutine waited for a core. So bytes alone do not fail a
// mailbox, except as a backstop:
//
//   - Within max bytes unread, every message is accepted.
//   - Past max, messages are still accepted while the consumer keeps
//     receiving: it fails once it has received nothing for stall while the
//     mailbox was past max. Every message it receives starts the wait anew.
//   - At burstFactor × max it fails whatever the consumer does, so memory
//     stays bounded even for a consumer that receives, slowly, forever.
//
// The check runs when a message arrives (there is nothing to bound
// otherwise), and reads the clock only past max. One message is always
// accepted into an empty mailbox, however large (the frame limit bounds it).

// burstFactor is how far past its bound a mailbox may grow while its
// consumer keeps receiving.
const burstFactor = 4

func newMailbox(id string, maxBytes int, stall time.Duration) *mailbox {
	return &mailbox{id: id, max: maxBytes, stall: stall, now: time.Now, ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// put appends m, or refuses it when the mailbox has failed or closed. When
// the bound fails the mailbox (see above), it returns its buffered messages
// so the caller can answer the requests among them. A superseded mailbox
// appends nothing and returns its successor, which m is for.
func (b *mailbox) put(m Message) (d Delivery, dropped []Message, successor *Sink) {
	b.mu.Lock()
	if b.successor != nil {
		next := b.successor
		b.mu.Unlock()
		return Refused, nil, next
	}
	if b.err != nil {
		b.mu.Unlock()
		return Refused, nil, nil
	}
	if err := b.overLocked(m.Size()); err != nil {
		dropped = b.failLocked(err, true)
		b.mu.Unlock()
		return Overflowed, dropped, nil
	}
	b.queue = append(b.queue, m)
	b.bytes += m.Size()
	b.mu.Unlock()
	select {
	case b.ready <- struct{}{}:
	default:
	}
	return Delivered, nil, nil
}

// overLocked applies the bound to a message of size bytes about to be
// appended, and returns the failure if it must not be.
func (b *mailbox) overLocked(size int) error {
	total := b.bytes + size
	switch {
	case b.bytes == 0 || total <= b.max:
		b.overSince = time.Time{}
		return nil
	case total > burstFactor*b.max:
		return fmt.Errorf("%w (session %s: %d bytes unread, %d times its bound of %d)", ErrFellBehind, b.id, total, burstFactor, b.max)
	}
	now := b.now()
	if b.overSince.IsZero() || b.taken != b.overTaken {
		b.overSince, b.overTaken = now, b.taken // past max, or received since: watch from now
		return nil
	}
	if waited := now.Sub(b.overSince); waited > b.stall {
		return fmt.Errorf("%w (session %s: nothing received for %v with more than its bound of %d bytes unread)", ErrFellBehind, b.id, waited.Round(time.Millisecond), b.max)
	}
	return nil
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
			b.taken++
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
		if testHookBeforeWait != nil {
			testHookBeforeWait(b)
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
		if b.cancel != nil {
			b.cancel(err)
		}
	}
	if !discard || b.head == len(b.queue) {
		return nil
	}
	dropped := append([]Message(nil), b.queue[b.head:]...)
	b.queue, b.head, b.bytes = nil, 0, 0
	return dropped
}

// context returns the mailbox's context, making it on first use: cancelled,
// with the mailbox's error as its cause, once the mailbox has failed or
// been closed. A mailbox never asked for it carries none.
func (b *mailbox) context() context.Context {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithCancelCause(context.Background())
		if b.err != nil {
			b.cancel(b.err)
		}
	}
	return b.ctx
}

// buffered reports the number of messages and bytes waiting.
func (b *mailbox) buffered() (int, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue) - b.head, b.bytes
}
