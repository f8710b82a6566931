package router

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// Router is one JSON-RPC connection demultiplexed into per-session
// channels. The design calls it MessageRouter. See the package doc for the
// concurrency contract.
type Router struct {
	cfg    Config
	log    zerolog.Logger
	stream *wire.Stream
	conn   *jsonrpc2.Conn

	mu       sync.Mutex
	routes   map[string]*session.Sink
	pending  map[jsonrpc2.ID]*pendingCall
	subs     []*Subscription
	creating *creationHold // non-nil while CreateAssigned waits (hold.go)
	err      error         // set once, when the router stops

	nextID     atomic.Uint64
	createSlot chan struct{} // one token: serialises assigned-id creations
	done       chan struct{} // closed when the router stops
	watched    chan struct{} // closed when the disconnect watcher has run
	count      counters

	replyOnce   sync.Once
	replyFailed chan struct{} // closed when an answer could not be queued (reply.go)
	replyErr    error         // why; set before replyFailed is closed
}

// testHookBeforeDeliver is nil in every program users build: only this
// package's tests set it (export_test.go, before any test runs), to hold the
// reader between looking a session's route up and delivering to it. It is a
// package variable rather than a field so that the Router carries no test
// seam.
var testHookBeforeDeliver func(r *Router, id string)

// New starts routing messages read from rwc, which may be a child's stdio,
// a TCP connection or an in-memory pipe. The router owns rwc and closes it
// when it stops. Call Close to release it.
//
// A cfg that Config.Validate refuses is refused here, with its error
// (wrapping ErrInvalidConfig): nothing is started and rwc stays the
// caller's.
func New(rwc io.ReadWriteCloser, cfg Config) (*Router, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	r := &Router{
		cfg:        cfg,
		log:        *cfg.Logger,
		routes:     make(map[string]*session.Sink),
		pending:    make(map[jsonrpc2.ID]*pendingCall),
		createSlot: make(chan struct{}, 1),
		done:       make(chan struct{}),
		watched:    make(chan struct{}),

		replyFailed: make(chan struct{}),
	}
	r.stream = wire.NewStream(rwc, wire.Limits{
		MaxFrameBytes:        cfg.MaxFrameBytes,
		MaxWriteBacklogBytes: cfg.MaxWriteBacklogBytes,
	}, wire.Hooks{Malformed: r.onMalformed, DetachParams: true, RouteKey: "sessionId"})
	// jsonrpc2's read loop is the one reader. Responses reach us through
	// OnRecv (see call.go for why we correlate them ourselves); requests and
	// notifications through handler.
	r.conn = jsonrpc2.NewConn(context.Background(), r.stream, handler{r},
		jsonrpc2.OnRecv(r.onRecv),
		jsonrpc2.SetLogger(jsonrpcLogger{r}))
	go r.watch()
	return r, nil
}

// watch turns the connection's end into the router's stop, with the reason.
func (r *Router) watch() {
	defer close(r.watched)
	select {
	case <-r.conn.DisconnectNotify():
	case <-r.stream.WriteFailed():
		// The read side may never notice (a peer that stopped reading but
		// still holds the connection open): stop on the write failure.
		r.stop(r.stream.Err())
		r.conn.Close()
		return
	case <-r.replyFailed:
		// An answer could not be queued: a peer that does not read its
		// answers is broken, and one left waiting on a request would hang.
		r.stop(r.replyErr)
		r.conn.Close()
		return
	}
	cause := r.stream.Err()
	switch {
	case cause == nil:
		cause = fmt.Errorf("%w (no read error)", ErrConnectionClosed)
	case errors.Is(cause, io.EOF), errors.Is(cause, io.ErrUnexpectedEOF):
		cause = fmt.Errorf("%w: %w", ErrConnectionClosed, cause)
	}
	r.stop(cause)
}

// Done is closed when the router has stopped.
func (r *Router) Done() <-chan struct{} { return r.done }

// Err returns why the router stopped (wrapping ErrStopped and the cause),
// or nil while it runs.
func (r *Router) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close stops the router with ErrClosed as the cause and closes the
// connection. It returns once the router's goroutines have ended. It is
// safe to call more than once and concurrently.
func (r *Router) Close() error { return r.CloseWithError(ErrClosed) }

// CloseWithError stops the router and gives cause as the reason to every
// waiter (wrapped with ErrStopped). The copilot package uses it to report a
// child's exit status. If the router had already stopped, the first cause
// stands.
func (r *Router) CloseWithError(cause error) error {
	r.stop(cause)
	_ = r.conn.Close() // ends the read loop: the stream closes the connection
	<-r.watched
	r.stream.Close()
	// The read loop returns right after its read fails. A connection whose
	// Close does not interrupt a blocked Read would keep it; bound the wait
	// rather than wedge Close on such a connection.
	select {
	case <-r.stream.ReadDone():
	case <-time.After(2 * time.Second):
		r.log.Warn().Msg("router: the connection's Close did not interrupt its Read; the reader ends when the Read does")
	}
	return nil
}

// stop fans the end out once: every pending call, channel and subscription
// gets the same error.
func (r *Router) stop(cause error) {
	r.mu.Lock()
	if r.err != nil {
		r.mu.Unlock()
		return
	}
	r.err = stoppedError(cause)
	err := r.err
	routes, subs, held := r.routes, r.subs, r.creating
	r.routes, r.subs, r.creating = make(map[string]*session.Sink), nil, nil
	r.pending = make(map[jsonrpc2.ID]*pendingCall)
	r.mu.Unlock()

	close(r.done) // every Call waiting selects on it
	for _, rt := range routes {
		rt.Fail(err)
	}
	for _, s := range subs {
		s.sink.Fail(err)
	}
	if held != nil {
		held.drop()
		held.settle("") // an abandoned creation's owner learns nothing more
	}
	if !errors.Is(cause, ErrClosed) {
		r.log.Debug().Err(err).Msg("router stopped")
	}
}

// onMalformed counts and logs a skipped frame. It runs on the reader.
func (r *Router) onMalformed(err error, body []byte) {
	r.count.malformed.Add(1)
	if len(body) > 200 {
		body = body[:200]
	}
	r.log.Warn().Err(err).Bytes("frame", body).Msg("router: skipped a malformed frame")
}

// jsonrpcLogger sends jsonrpc2's own messages to our logger. Its note about
// responses with no pending call is expected for every response, since we
// correlate responses ourselves, and is dropped.
type jsonrpcLogger struct{ r *Router }

func (l jsonrpcLogger) Printf(format string, v ...any) {
	if strings.Contains(format, "no corresponding request") {
		return
	}
	l.r.log.Debug().Msgf(strings.TrimSuffix(format, "\n"), v...)
}
