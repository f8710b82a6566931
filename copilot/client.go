package copilot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/lifetime"
	"github.com/quorum-go/quorum/router"
)

// Client is a connection to one Copilot CLI, usually a child process it
// started, over which any number of sessions run at once.
type Client struct {
	opts Options
	log  zerolog.Logger

	ctx    context.Context // ends when the client closes; bounds restarts
	cancel context.CancelFunc

	mu         sync.Mutex
	cur        *connection
	restarting chan struct{} // non-nil while a restart runs; closed after
	gaveUp     bool          // the supervisor could not restart the child
	closed     bool
	restarts   int

	lifecycle lifecycleListeners // OnLifecycle's

	// goroutines are every goroutine the client starts: supervisors,
	// watchers, subscribers, and the work of sessions (spawn). Close
	// closes it last, once the connection is closed, since the watchers
	// end with the connection.
	goroutines lifetime.Group
}

// connection is one connection to a CLI: a router, its handshake, and the
// child behind it (nil for Connect). A Client holds one at a time; a restart
// replaces it with a new one, so whoever needs the router asks the Client
// for its current connection (see current) instead of keeping it.
type connection struct {
	r     *router.Router
	child *child
	info  ConnectResult
}

// close stops the connection's router and then its child, if any, giving
// the child grace to exit before its process group is killed.
func (cn *connection) close(grace time.Duration) {
	cn.r.CloseWithError(ErrClosed) // wraps router.ErrClosed: the router's own Close cause
	if cn.child != nil {
		cn.child.stop(grace)
	}
}

// Start starts the Copilot CLI as a child process in headless server mode,
// connects to it over Options.Transport and checks the protocol version.
// Close the client to stop the child. Options that Options.Validate
// refuses are refused here, with its error, before anything starts.
func Start(ctx context.Context, opts Options) (*Client, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	c := newClient(opts)
	cn, err := c.startConnection(ctx)
	if err != nil {
		c.cancel()
		c.goroutines.Close() // the failed connection's goroutines end with it
		return nil, err
	}
	c.cur = cn
	if c.opts.Restart != nil {
		c.goroutines.Go(func() { c.supervise(cn) })
	}
	return c, nil
}

// Connect runs the client over an existing connection to a CLI server (a
// TCP connection to a CLI started elsewhere, or an in-memory pipe to a
// simulator) and checks the protocol version. The client owns conn, and
// closes it if Connect fails. Options are validated as for Start; those
// about the child process are then ignored.
func Connect(ctx context.Context, conn io.ReadWriteCloser, opts Options) (*Client, error) {
	if err := opts.Validate(); err != nil {
		conn.Close()
		return nil, err
	}
	c := newClient(opts)
	r, err := router.New(conn, c.opts.Router)
	if err != nil {
		conn.Close() // the client owns conn
		c.cancel()
		return nil, err
	}
	if err := c.serve(r); err != nil {
		r.Close()
		c.cancel()
		c.goroutines.Close()
		return nil, err
	}
	info, err := handshake(ctx, r, c.opts)
	if err != nil {
		r.Close()
		c.cancel()
		c.goroutines.Close()
		return nil, err
	}
	c.cur = &connection{r: r, info: info}
	c.watchLiveness(c.cur)
	return c, nil
}

func newClient(opts Options) *Client {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{opts: opts, log: *opts.Logger, ctx: ctx, cancel: cancel}
}

// startConnection starts a child, routes its connection and shakes hands,
// all within StartTimeout.
func (c *Client) startConnection(ctx context.Context) (*connection, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	ch, err := startChild(ctx, c.opts)
	if err != nil {
		return nil, err
	}
	r, err := router.New(ch.conn, c.opts.Router)
	if err != nil {
		ch.stop(0)
		return nil, err
	}
	if err := c.serve(r); err != nil {
		r.Close()
		ch.stop(0)
		return nil, err
	}
	// The child's death is the router's end, with the exit status and the
	// end of stderr as the cause every waiter sees. Refused, the client is
	// closing (a restart that Close overtook): the connection is not wanted.
	watching := c.goroutines.Go(func() {
		select {
		case <-ch.exited:
			r.CloseWithError(ch.exitCause())
		case <-r.Done():
		}
	})
	if !watching {
		r.Close()
		ch.stop(0)
		return nil, ErrClosed
	}
	info, err := handshake(ctx, r, c.opts)
	if err != nil {
		r.Close()
		ch.stop(0)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			err = fmt.Errorf("%w: no handshake within %v (%v); its stderr: %s", ErrStartTimeout, c.opts.StartTimeout, err, ch.stderrTail())
		}
		return nil, err
	}
	cn := &connection{r: r, child: ch, info: info}
	c.watchLiveness(cn)
	return cn, nil
}

// serve starts reading what r brings besides the sessions' messages: the
// requests that name no session (Options.Handlers) and session.lifecycle
// (OnLifecycle). Both subscribe before serve returns, so that nothing sent
// after the handshake begins is missed; both end when r stops.
func (c *Client) serve(r *router.Router) error {
	if err := c.serveConnection(r); err != nil {
		return err
	}
	return c.serveLifecycle(r)
}

// handshake sends connect and checks the protocol version; a server
// without connect is asked with ping instead.
func handshake(ctx context.Context, r *router.Router, o Options) (ConnectResult, error) {
	var info ConnectResult
	rpc := protocol.NewServerRPC(r)
	res, err := rpc.Connect(ctx, protocol.ConnectRequest{})
	if err == nil {
		info = *res
	}
	var ce *router.CallError
	if errors.As(err, &ce) && ce.Code == -32601 {
		var p *PingResult
		if p, err = rpc.Ping(ctx, protocol.PingRequest{Message: "quorum"}); err == nil {
			info = ConnectResult{Ok: true, ProtocolVersion: p.ProtocolVersion}
		}
	}
	if err != nil {
		return info, fmt.Errorf("copilot: handshake with the Copilot CLI: %w", err)
	}
	if info.ProtocolVersion != ProtocolVersion {
		return info, &VersionError{Got: info.ProtocolVersion, Want: ProtocolVersion, CLIVersion: info.Version}
	}
	o.Logger.Debug().Str("version", info.Version).Int64("protocol", info.ProtocolVersion).Msg("connected to the Copilot CLI")
	return info, nil
}

// current returns the current connection, waiting for a restart in
// progress.
func (c *Client) current(ctx context.Context) (*connection, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		cn, wait := c.cur, c.restarting
		// Between the child's death and the supervisor taking it up, the
		// connection is dead but no restart shows yet: wait for the
		// supervisor rather than fail a call that a moment later would work.
		if wait == nil && c.opts.Restart != nil && !c.gaveUp && cn.child != nil && cn.r.Err() != nil {
			wait = cn.child.supervised
		} else if wait == nil {
			c.mu.Unlock()
			return cn, nil
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Router returns the router of the current connection, for calls this
// package does not wrap.
func (c *Client) Router() *router.Router {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.r
}

// Info returns what the CLI said in the handshake.
func (c *Client) Info() ConnectResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.info
}

// Restarts counts the restarts of a supervised child.
func (c *Client) Restarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// Close stops every session and every call in flight (they get an error
// wrapping ErrStopped and ErrClosed), closes the
// connection, stops the child gracefully within
// Options.ShutdownTimeout and then kills its process group. It returns
// once every goroutine the client started has ended. Safe to call twice.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cn := c.cur
	c.mu.Unlock()
	c.cancel()
	cn.close(c.opts.ShutdownTimeout)
	c.goroutines.Close()
	// A restart may have installed a newer connection while we closed the
	// old one.
	c.mu.Lock()
	last := c.cur
	c.mu.Unlock()
	if last != cn {
		last.close(c.opts.ShutdownTimeout)
	}
	return nil
}

// spawn runs a session's work (a dispatcher, an abort, a form's handler)
// on a goroutine that Close waits for, and reports false, starting
// nothing, once Close has begun. c.mu orders it with Close's first step:
// the group itself refuses only when Close closes it, after the
// connection, and work started in between would run for a client its
// user has already closed.
func (c *Client) spawn(fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed && c.goroutines.Go(fn)
}

// call makes a call on the current connection.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	cn, err := c.current(ctx)
	if err != nil {
		return err
	}
	return cn.r.Call(ctx, method, params, result)
}

// RPC returns every connection-wide method of the CLI's protocol, typed:
// c.RPC().Models.List(ctx, protocol.ModelsListRequest{}). Each call goes to
// the current connection, waiting for a restart in progress, as the
// client's own calls do.
func (c *Client) RPC() *protocol.ServerRPC { return protocol.NewServerRPC(clientCaller{c}) }

// clientCaller makes a call on the client's current connection.
type clientCaller struct{ c *Client }

func (cc clientCaller) Call(ctx context.Context, method string, params, result any) error {
	return cc.c.call(ctx, method, params, result)
}

// Ping checks that the CLI answers.
func (c *Client) Ping(ctx context.Context, message string) (PingResult, error) {
	p, err := c.RPC().Ping(ctx, protocol.PingRequest{Message: message})
	if err != nil {
		return PingResult{}, err
	}
	return *p, nil
}

// Models lists the models the CLI offers.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	var res struct {
		Models []Model `json:"models"`
	}
	if err := c.call(ctx, protocol.MethodModelsList, struct{}{}, &res); err != nil {
		return nil, err
	}
	return res.Models, nil
}

// AuthStatus reports whether the CLI is logged in.
func (c *Client) AuthStatus(ctx context.Context) (AuthStatus, error) {
	var s AuthStatus
	err := c.call(ctx, protocol.MethodAuthGetStatus, struct{}{}, &s)
	return s, err
}

// RequireAuth returns an error wrapping ErrNotAuthenticated, which says how
// to log in, unless the CLI is logged in.
func (c *Client) RequireAuth(ctx context.Context) error {
	s, err := c.AuthStatus(ctx)
	if err != nil {
		return err
	}
	if !s.IsAuthenticated {
		if s.StatusMessage != "" {
			return fmt.Errorf("%w (%s)", ErrNotAuthenticated, s.StatusMessage)
		}
		return ErrNotAuthenticated
	}
	return nil
}
