package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/lifetime"
)

// Conn is the server's side of one client connection: its sessions, its
// ordered write path, and the fault-injection methods (faults.go).
type Conn struct {
	srv    *Server
	id     int
	stream *frameStream
	out    *outbox
	rpc    *jsonrpc2.Conn // set by serve before the writer starts

	ctx    context.Context // cancelled when the connection ends
	cancel context.CancelFunc

	closeOnce sync.Once
	closeReq  chan struct{}
	done      chan struct{}
	readErr   atomic.Pointer[error]

	mu sync.Mutex // a leaf lock: never held while taking a session's lock
	// closing refuses new sessions once serve has taken the map to end
	// them, so none is registered after its teardown.
	closing  bool
	sessions map[string]*session
	double   *string // DoubleAnswer's armed method ("" = any), or nil

	// work runs the goroutines the connection waits for at teardown (a
	// session's turns, a turn's helper); serve closes it after the writer
	// ends, where it refuses any later one.
	work lifetime.Group
}

func newConn(ctx context.Context, s *Server, id int, rwc io.ReadWriteCloser) *Conn {
	cctx, cancel := context.WithCancel(ctx)
	c := &Conn{
		srv:      s,
		id:       id,
		stream:   newFrameStream(rwc, s.opts.MaxFrameBytes),
		out:      newOutbox(s.opts.OutboxFrames),
		ctx:      cctx,
		cancel:   cancel,
		closeReq: make(chan struct{}),
		done:     make(chan struct{}),
		sessions: make(map[string]*session),
	}
	c.stream.onBadMessage = c.badMessage
	return c
}

// serve runs the connection until it ends, then tears it down.
func (c *Conn) serve() {
	c.rpc = jsonrpc2.NewConn(c.ctx, recordingStream{c}, handler{c}, jsonrpc2.SetLogger(logger(c.srv.opts.Logf)))
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.out.run(func(err error) {
			c.srv.opts.Logf("sim: conn %d: write failed: %v", c.id, err)
			c.Close()
		})
	}()

	select {
	case <-c.rpc.DisconnectNotify():
	case <-c.ctx.Done():
	case <-c.closeReq:
	}

	c.mu.Lock()
	c.closing = true
	sessions := c.sessions
	c.sessions = map[string]*session{}
	c.mu.Unlock()

	c.cancel()
	for _, s := range sessions {
		s.kill()
	}
	c.out.close()
	c.rpc.Close()
	<-writerDone
	// A goroutine started since closing was set (a send's runner on the
	// read loop, a turn's helper) runs in the cancelled context of a killed
	// session and ends at once; Close refuses the rest and waits for all.
	c.work.Close()
	close(c.done)
}

// Close ends the connection at once: queued frames are dropped and the
// transport is closed. It does not wait; see Done.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { close(c.closeReq) })
	return nil
}

// Done is closed when the connection has ended and every goroutine it started
// has returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns the read error that ended the connection: io.EOF for a clean
// close by the peer, a framing error, or the error reads got once the
// connection was closed from this side. Nil while the connection runs.
func (c *Conn) Err() error {
	if p := c.readErr.Load(); p != nil {
		return *p
	}
	return nil
}

// SessionIDs returns the ids of this connection's live sessions, sorted.
func (c *Conn) SessionIDs() []string {
	c.mu.Lock()
	ids := make([]string, 0, len(c.sessions))
	for id := range c.sessions {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	slices.Sort(ids)
	return ids
}

// session returns the live session with id, or nil.
func (c *Conn) session(id string) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[id]
}

// notify queues a notification whose params are already JSON. The frame is
// encoded here, on the caller's goroutine (a turn's, usually), so that the one
// writer only copies bytes: with hundreds of sessions the writer is the
// serial part.
func (c *Conn) notify(method string, params json.RawMessage) bool {
	m, _ := json.Marshal(method)
	body := make([]byte, 0, len(params)+len(m)+40)
	body = append(body, `{"jsonrpc":"2.0","method":`...)
	body = append(body, m...)
	body = append(body, `,"params":`...)
	body = append(body, params...)
	body = append(body, '}')
	f := frame(body)
	return c.out.push(outItem{write: func() error { return c.srv.rec.sent(c.stream.WriteRaw(f)) }})
}

// reply queues the response to a request; twice when double is set.
func (c *Conn) reply(id jsonrpc2.ID, result json.RawMessage, rerr *jsonrpc2.Error, double bool) {
	c.out.push(outItem{write: func() error {
		for range 1 + boolInt(double) {
			var err error
			if rerr != nil {
				err = c.rpc.ReplyWithError(c.ctx, id, rerr)
			} else {
				err = c.rpc.Reply(c.ctx, id, result)
			}
			if err := c.srv.rec.sent(err); err != nil {
				return err
			}
		}
		return nil
	}})
}

// call sends a server→client request in order with the other traffic and
// waits for the answer, ctx, or the end of the connection. Real answers are
// recorded on the server.
func (c *Conn) call(ctx context.Context, method string, params any) Answer {
	return c.startCall(ctx, method, params)()
}

// startCall queues a server→client request at once, in order with the other
// traffic, and returns the function that waits for its answer (or ctx, or
// the end of the connection), so that a turn can send more before waiting.
func (c *Conn) startCall(ctx context.Context, method string, params any) func() Answer {
	a := Answer{Method: method}
	raw, err := json.Marshal(params)
	if err != nil {
		a.Err = err
		return func() Answer { return a }
	}
	a.Params = raw
	rawParams := json.RawMessage(raw)
	var waiter jsonrpc2.Waiter // set by the writer before it reports on sent
	sent := make(chan error, 1)
	c.out.push(outItem{
		write: func() error {
			w, err := c.rpc.DispatchCall(c.ctx, method, rawParams)
			waiter = w
			return c.srv.rec.sent(err)
		},
		done: sent,
	})
	return func() Answer {
		select {
		case err := <-sent:
			if err != nil {
				a.Err = err
				return a
			}
		case <-ctx.Done():
			a.Err = ctx.Err()
			return a
		}
		var result json.RawMessage
		err := waiter.Wait(ctx, &result)
		var rerr *jsonrpc2.Error
		switch {
		case err == nil:
			a.Result = result
		case errors.As(err, &rerr):
			a.Error = &RPCError{Code: rerr.Code, Message: rerr.Message}
			if rerr.Data != nil {
				a.Error.Data = *rerr.Data
			}
		default:
			a.Err = err
			return a
		}
		c.srv.rec.answer(a)
		return a
	}
}

// badMessage answers a skipped frame, from the read loop, without blocking.
func (c *Conn) badMessage(id json.RawMessage, code int64, msg string) {
	c.srv.rec.badFrame()
	c.srv.opts.Logf("sim: conn %d: skipped a frame: %s", c.id, msg)
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": msg},
	})
	c.out.push(outItem{write: func() error { return c.srv.rec.sent(c.stream.WriteRaw(frame(body))) }})
}

// takeDouble reports whether a request for method should be answered twice,
// disarming DoubleAnswer if so.
func (c *Conn) takeDouble(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.double == nil || (*c.double != "" && *c.double != method) {
		return false
	}
	c.double = nil
	return true
}

// handler is the jsonrpc2.Handler. jsonrpc2 calls it on its read loop, one
// message at a time in arrival order; it never blocks: it changes state and
// queues what must be written.
type handler struct{ c *Conn }

func (h handler) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	c := h.c
	c.srv.rec.call(c.id, req, c.srv.opts.RecordCalls)
	if req.Notif {
		return // the CLI's protocol has no client→server notifications
	}
	double := c.takeDouble(req.Method)
	r := &request{method: req.Method}
	if req.Params != nil {
		r.params = *req.Params
	}
	result, err := c.dispatch(r)
	var raw json.RawMessage
	if err == nil {
		raw, err = json.Marshal(result)
	}
	c.reply(req.ID, raw, toRPCError(err), double)
	for _, fn := range r.after {
		fn()
	}
}

// dispatch runs the method's handler, turning a panic into an internal error.
func (c *Conn) dispatch(r *request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, &jsonrpc2.Error{Code: CodeInternalError, Message: fmt.Sprintf("sim: %s panicked: %v", r.method, p)}
		}
	}()
	fn := methods[r.method]
	if fn == nil || (r.method == protocol.MethodConnect && c.srv.opts.NoConnect) {
		return nil, &jsonrpc2.Error{Code: CodeMethodNotFound, Message: "Unhandled method " + r.method}
	}
	return fn(c, r)
}

// recordingStream notes the read error that ends the connection.
type recordingStream struct{ c *Conn }

func (s recordingStream) WriteObject(obj any) error { return s.c.stream.WriteObject(obj) }
func (s recordingStream) Close() error              { return s.c.stream.Close() }
func (s recordingStream) ReadObject(v any) error {
	err := s.c.stream.ReadObject(v)
	if err != nil {
		s.c.readErr.CompareAndSwap(nil, &err)
	}
	return err
}

type logger func(format string, args ...any)

func (l logger) Printf(format string, args ...any) { l(format, args...) }

// ptr returns a pointer to v, for the protocol types' optional fields.
func ptr[T any](v T) *T { return &v }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
