package session

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// DefaultMaxBufferedBytes is the default bound on what one session may have
// buffered and unread while its consumer does not receive (see the package
// doc for the policy). At the CLI's typical 400-byte event this is about
// 20,000 events.
const DefaultMaxBufferedBytes = 8 << 20

// DefaultMaxStall is the default of Config.MaxStall: far longer than a
// goroutine waits for a core on a loaded machine, far shorter than anyone
// waits for a stuck session to be noticed.
const DefaultMaxStall = time.Second

// DefaultMaxTurnTextBytes is the default of Config.MaxTurnTextBytes: far
// beyond any model's answer (a 200k-token context is under 1 MiB of text),
// far below what would threaten a process's memory.
const DefaultMaxTurnTextBytes = 16 << 20

// CodeUnavailable is the JSON-RPC error code sent in answer to a request
// whose session is unknown, closed or failed.
const CodeUnavailable = -32001

// Config configures one Channel. The zero value means the defaults.
type Config struct {
	// MaxBufferedBytes bounds the unread messages (by params size plus a
	// small fixed overhead each) of a consumer that does not receive: past
	// it, the channel fails once its consumer has received nothing for
	// MaxStall, and at four times it whatever the consumer does. Default
	// DefaultMaxBufferedBytes.
	MaxBufferedBytes int
	// MaxStall is how long a consumer may go without receiving while more
	// than MaxBufferedBytes wait. Default DefaultMaxStall.
	MaxStall time.Duration
	// MaxTurnTextBytes bounds the text one Next (or ReadTurn) accumulates,
	// every agent's deltas and messages together: past it, the read fails
	// with an error wrapping ErrTurnTooLarge, and the caller should abort
	// the turn. Default DefaultMaxTurnTextBytes.
	MaxTurnTextBytes int
	// DedupeWindow is how many recent event ids Receive remembers to drop
	// an event the CLI sends again. Default DefaultDedupeWindow; negative
	// switches deduplication off.
	DedupeWindow int
}

// CloseFunc is how a Channel leaves its router: it removes the route. The
// router supplies it, so this package does not import the router. Ending
// the session on the server is not a channel's business: its owner does
// that (copilot.Session.Destroy).
type CloseFunc func(ctx context.Context, id string) error

// Channel is the consumer's end of one session's queue (the design's
// SessionChannel): it receives, reads turns and closes; its router appends
// through the channel's [Sink]. See the package doc for the queue's parts
// and the concurrency contract.
type Channel struct {
	id      string
	mb      *mailbox
	onClose CloseFunc

	maxTurnText int // Config.MaxTurnTextBytes

	// seen holds the ids of the events delivered, to drop repeats; a
	// channel that supersedes another shares its predecessor's, so that an
	// event the CLI repeats across the hand-over is delivered once.
	seen       *seenEvents
	duplicates atomic.Int64

	// notify, if set, is called after each message the router delivers.
	notify atomic.Pointer[func()]

	closeMu  sync.Mutex
	closing  bool          // a Close has begun
	closed   chan struct{} // closed when the first Close has finished
	closeErr error         // the first Close's result, set before closed
}

// Validate reports a field of c that New refuses, naming it, in an error
// wrapping ErrInvalidConfig: a negative MaxBufferedBytes, MaxStall or
// MaxTurnTextBytes. Zero
// means the default; a negative DedupeWindow is allowed (it switches
// deduplication off).
func (c Config) Validate() error {
	if c.MaxBufferedBytes < 0 {
		// The default is a whole number of MiB.
		return fmt.Errorf("%w: Config.MaxBufferedBytes is %d; it must be positive (0 means the default, %d MiB)",
			ErrInvalidConfig, c.MaxBufferedBytes, DefaultMaxBufferedBytes>>20)
	}
	if c.MaxTurnTextBytes < 0 {
		return fmt.Errorf("%w: Config.MaxTurnTextBytes is %d; it must be positive (0 means the default, %d MiB)",
			ErrInvalidConfig, c.MaxTurnTextBytes, DefaultMaxTurnTextBytes>>20)
	}
	if c.MaxStall < 0 {
		return fmt.Errorf("%w: Config.MaxStall is %v; it must be positive (0 means the default, %v)",
			ErrInvalidConfig, c.MaxStall, DefaultMaxStall)
	}
	return nil
}

// New returns a channel for session id and the Sink its router delivers
// through. onClose may be nil (nothing to deregister from). A cfg that
// Config.Validate refuses is refused here, with its error.
func New(id string, cfg Config, onClose CloseFunc) (*Channel, *Sink, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if cfg.MaxBufferedBytes == 0 {
		cfg.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if cfg.DedupeWindow == 0 {
		cfg.DedupeWindow = DefaultDedupeWindow
	}
	if cfg.MaxStall == 0 {
		cfg.MaxStall = DefaultMaxStall
	}
	if cfg.MaxTurnTextBytes == 0 {
		cfg.MaxTurnTextBytes = DefaultMaxTurnTextBytes
	}
	c := &Channel{id: id, maxTurnText: cfg.MaxTurnTextBytes, mb: newMailbox(id, cfg.MaxBufferedBytes, cfg.MaxStall), onClose: onClose, seen: &seenEvents{d: newDedupe(cfg.DedupeWindow)}, closed: make(chan struct{})}
	return c, &Sink{c: c}, nil
}

// ID is the session id.
func (c *Channel) ID() string { return c.id }

// Receive returns the next message in the order the router read them. It
// waits until one arrives, the channel fails or closes, or ctx ends (then
// it returns ctx.Err() and nothing is lost: the next Receive gets the
// message). After a failure it returns the error for every later call.
//
// A session event whose id was already delivered (the CLI sometimes sends
// an event twice) is dropped and counted (Duplicates). The event is decoded
// here, on the consumer's goroutine, once: Message.Event returns that
// decoding.
func (c *Channel) Receive(ctx context.Context) (Message, error) {
	for {
		m, err := c.mb.get(ctx)
		if err != nil || m.Method != protocol.NotificationSessionEvent {
			return m, err
		}
		if m.decodeEvent() && !c.firstDelivery(m.ev.event.ID) {
			c.duplicates.Add(1)
			continue
		}
		return m, nil
	}
}

// TryReceive is Receive without the wait: ok is false when no message is
// buffered. A consumer that is woken by SetNotify reads with it, so that
// it holds no goroutine while the channel is empty.
func (c *Channel) TryReceive() (m Message, ok bool, err error) {
	m, err = c.Receive(expired)
	switch {
	case err == nil:
		return m, true, nil
	case err == context.Canceled && c.Err() == nil:
		return Message{}, false, nil
	}
	return Message{}, false, err
}

// expired is a context that has ended: Receive with it takes what is
// buffered and never waits.
var expired = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// SetNotify has fn called after each message the router delivers to the
// channel, on the router's reader goroutine: fn must not block (starting
// a goroutine to read is what it is for). nil stops the calls.
func (c *Channel) SetNotify(fn func()) {
	if fn == nil {
		c.notify.Store(nil)
		return
	}
	c.notify.Store(&fn)
}

// firstDelivery reports whether an event id is delivered for the first time.
func (c *Channel) firstDelivery(id string) bool {
	c.seen.mu.Lock()
	defer c.seen.mu.Unlock()
	return c.seen.d.firstTime(id)
}

// seenEvents is a channel's deduplication window and its lock.
type seenEvents struct {
	mu sync.Mutex
	d  *dedupe
}

// Duplicates returns how many repeated events Receive has dropped.
func (c *Channel) Duplicates() int64 { return c.duplicates.Load() }

// Done is closed when the channel has failed or been closed.
func (c *Channel) Done() <-chan struct{} { return c.mb.done }

// Context returns a context that ends when the channel does (Done): its
// router stopped (the connection ended, the peer exited, the router was
// closed), the channel failed, was closed or was superseded. Its cause
// (context.Cause) is Err. It is for work done on the session's behalf —
// a handler answering one of its requests — that has nothing left to do
// once the session can no longer be answered. It holds no goroutine.
func (c *Channel) Context() context.Context { return c.mb.context() }

// Err is why the channel stopped, or nil while it works.
func (c *Channel) Err() error {
	c.mb.mu.Lock()
	defer c.mb.mu.Unlock()
	return c.mb.err
}

// Buffered reports how many messages, and how many bytes of them, wait.
func (c *Channel) Buffered() (messages, bytes int) { return c.mb.buffered() }

// Close deregisters the channel from its router: later messages for the
// session are dropped and counted by the router, later requests answered
// with an error. Unread messages are discarded and every request among them
// is answered with an error, so the peer never waits on a closed session.
// Receive returns ErrClosed afterwards (or the channel's earlier failure,
// if it had failed before). The session itself lives on on the server.
// Only the first call has an effect (its ctx is handed to the CloseFunc),
// and every call returns its result. A later call waits for the first to
// finish or for its own ctx to end, whichever comes first, returning
// ctx.Err() in the second case (contract 4 of the package doc).
func (c *Channel) Close(ctx context.Context) error {
	c.closeMu.Lock()
	first := !c.closing
	c.closing = true
	c.closeMu.Unlock()
	if !first {
		select {
		case <-c.closed:
			return c.closeErr
		case <-ctx.Done():
			return fmt.Errorf("session: closing %s: %w", c.id, ctx.Err())
		}
	}
	dropped := c.mb.fail(fmt.Errorf("%w (session %s)", ErrClosed, c.id), true)
	refuse(dropped, "session "+c.id+" was closed by the client")
	if c.onClose != nil {
		c.closeErr = c.onClose(ctx, c.id)
	}
	close(c.closed)
	return c.closeErr
}

// Sink is the router's end of a Channel: the one that appends. Its methods
// never block. The router's table of routes holds Sinks, so that the
// consumer's end (the Channel it hands out) cannot deliver or fail.
type Sink struct{ c *Channel }

// Delivery is the outcome of Sink.Deliver.
type Delivery uint8

const (
	// Delivered: the message is in the channel.
	Delivered Delivery = iota
	// Overflowed: the message made the channel pass its bound; the channel
	// has just failed with ErrFellBehind and dropped what it held.
	Overflowed
	// Refused: the channel had already closed or failed.
	Refused
)

// Deliver appends m to the channel without waiting. A request that is not
// delivered has been answered with an error already (as have the requests
// an overflow drops); refused is 1 when m was such a request and its
// answer was queued, for the caller's counters (the dropped ones were
// delivered before, and counted then). An answer that could not be queued
// is the Replier's to report (the router stops).
func (s *Sink) Deliver(m Message) (d Delivery, refused int) {
	d, dropped, next := s.c.mb.put(m)
	if next != nil {
		return next.Deliver(m) // superseded: the successor takes it
	}
	if d != Delivered {
		refuse(dropped, "session "+s.c.id+" fell behind and was failed")
		refused = refuse([]Message{m}, "session "+s.c.id+" is not accepting messages")
		return d, refused
	}
	if fn := s.c.notify.Load(); fn != nil {
		(*fn)()
	}
	return d, 0
}

// Supersede hands the session from s's channel to next's, a channel of
// the same session not yet delivered to nor read: the messages s's
// channel holds unread move, in order, to the front of next's; s's
// channel ends with cause (which should wrap ErrSuperseded), so its next
// Receive returns cause; and every later Deliver to s goes to next. A
// message s's consumer received before stays received: each message is
// received by exactly one of the two. next shares s's window of event ids,
// so an event the peer repeats is dropped on either side of the hand-over.
// A channel that had already ended (closed, failed) hands nothing over,
// but its later deliveries go to next too. The router calls it with its
// route table locked and then routes the session to next.
func (s *Sink) Supersede(next *Sink, cause error) {
	old, nb := s.c.mb, next.c.mb
	old.mu.Lock()
	defer old.mu.Unlock()
	moved := old.queue[old.head:]
	movedBytes := old.bytes
	old.queue, old.head, old.bytes = nil, 0, 0
	if old.err == nil {
		old.err = cause
		close(old.done)
	}
	old.successor = next
	next.c.seen = s.c.seen
	nb.mu.Lock()
	nb.queue = append(moved, nb.queue[nb.head:]...)
	nb.head = 0
	nb.bytes += movedBytes
	nb.mu.Unlock()
	if len(moved) > 0 {
		select {
		case nb.ready <- struct{}{}:
		default:
		}
	}
}

// Fail ends the channel with err. Messages already buffered stay
// receivable ahead of err: they were read before the failure.
func (s *Sink) Fail(err error) { s.c.mb.fail(err, false) }

// Channel returns the channel this sink feeds.
func (s *Sink) Channel() *Channel { return s.c }

// ID is the session id of the channel this sink feeds.
func (s *Sink) ID() string { return s.c.id }

// refuse answers every request among msgs with CodeUnavailable and returns
// how many answers were queued. Replies go through the router's
// non-blocking writer, so this is safe on its reader. An answer that cannot
// be queued is not lost silently: the router's Replier counts it and stops
// the router, ending the connection.
func refuse(msgs []Message, why string) (queued int) {
	for _, m := range msgs {
		if m.IsRequest() && m.RespondError(context.Background(), CodeUnavailable, why) == nil {
			queued++
		}
	}
	return queued
}
