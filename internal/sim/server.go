package sim

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
)

// ErrServerClosed is returned by Serve and ServeConn after Close.
var ErrServerClosed = errors.New("sim: server closed")

// Server is a simulated Copilot CLI. It serves any number of connections;
// each has its own sessions. Close stops everything it started.
type Server struct {
	opts   Options
	models map[string]*Model
	rec    recorder
	store  store // the sessions kept "on disk", for all connections

	rngMu sync.Mutex
	rng   *rand.Rand

	mu        sync.Mutex
	closed    bool
	conns     map[*Conn]struct{}
	listeners map[net.Listener]struct{}
	nextConn  int
	wg        sync.WaitGroup // connection monitors and accept loops
}

// NewServer returns a server with opts. It panics if opts are inconsistent (a
// model without ID or Respond, a DefaultModel that is not offered): that is a
// programming error in the test or program that builds it.
func NewServer(opts Options) *Server {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		panic(err)
	}
	s := &Server{
		opts:      opts,
		models:    make(map[string]*Model, len(opts.Models)),
		rng:       rand.New(rand.NewPCG(opts.Seed, 0x51_4d_5f_53)),
		conns:     make(map[*Conn]struct{}),
		listeners: make(map[net.Listener]struct{}),
	}
	for i := range opts.Models {
		s.models[opts.Models[i].ID] = &opts.Models[i]
	}
	return s
}

// Options returns the options in effect, defaults filled in.
func (s *Server) Options() Options { return s.opts }

// Dial serves one end of an in-memory synchronous pipe (net.Pipe) and returns
// the other end for a client. Closing it ends the connection.
func (s *Server) Dial() io.ReadWriteCloser {
	client, _ := s.DialConn()
	return client
}

// DialConn is Dial that also returns the server's handle on the connection,
// for fault injection and inspection. After Close, the returned client end is
// already closed and the handle is done.
func (s *Server) DialConn() (io.ReadWriteCloser, *Conn) {
	client, server := net.Pipe()
	c, err := s.ServeConn(context.Background(), server)
	if err != nil {
		client.Close()
	}
	return client, c
}

// ServeConn serves rwc until the peer closes it, ctx is done, the
// connection's Close is called or the server closes. It does not block; wait
// on the returned Conn's Done. rwc is closed when serving ends. After Close
// it closes rwc and returns ErrServerClosed with a Conn that is already done.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) (*Conn, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		rwc.Close()
		c := newConn(ctx, s, 0, rwc)
		c.closing = true
		c.work.Close() // returns at once: nothing was started, and nothing will be
		c.cancel()
		c.out.close()
		close(c.done)
		return c, ErrServerClosed
	}
	s.nextConn++
	c := newConn(ctx, s, s.nextConn, rwc)
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		c.serve()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	return c, nil
}

// Serve accepts connections on ln and serves each until ctx is done, ln
// fails or the server closes; it closes ln before returning. It returns nil
// when ctx ended it, ErrServerClosed after Close, or ln's error.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			switch {
			case closed:
				return ErrServerClosed
			case ctx.Err() != nil:
				return nil
			}
			return err
		}
		if _, err := s.ServeConn(ctx, nc); err != nil {
			return err
		}
	}
}

// Close ends every connection and listener and waits until every goroutine
// the server started has returned. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	conns := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	lns := make([]net.Listener, 0, len(s.listeners))
	for ln := range s.listeners {
		lns = append(lns, ln)
	}
	s.mu.Unlock()

	for _, ln := range lns {
		ln.Close()
	}
	for _, c := range conns {
		c.Close()
	}
	s.wg.Wait()
	return nil
}

// Conns returns the connections being served now, oldest first.
func (s *Server) Conns() []*Conn {
	s.mu.Lock()
	out := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *Conn) int { return a.id - b.id })
	return out
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats {
	st := s.rec.snapshot()
	conns := s.Conns()
	st.Connections = len(conns)
	for _, c := range conns {
		st.LiveSessions += len(c.SessionIDs())
	}
	return st
}

// Calls returns how many times method was received.
func (s *Server) Calls(method string) int {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return s.rec.calls[method]
}

// LiveSessions returns the ids of the sessions that exist on any connection,
// sorted.
func (s *Server) LiveSessions() []string {
	var ids []string
	for _, c := range s.Conns() {
		ids = append(ids, c.SessionIDs()...)
	}
	slices.Sort(ids)
	return ids
}

// MaxConcurrentTurns returns the largest number of turns that ran at once.
func (s *Server) MaxConcurrentTurns() int {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return s.rec.maxTurns
}

// Answers returns the answers clients sent to server→client requests, in the
// order they arrived.
func (s *Server) Answers() []Answer {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return slices.Clone(s.rec.answers)
}

// Received returns the requests and notifications clients sent, in the
// order the server read them, when Options.RecordCalls is set (else none).
func (s *Server) Received() []Received {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return slices.Clone(s.rec.received)
}

// model returns the model with id, or nil.
func (s *Server) model(id string) *Model { return s.models[id] }

// startBefore decides one creation's session.start placement.
func (s *Server) startBefore() bool {
	switch s.opts.StartOrder {
	case StartAfter:
		return false
	case StartRandom:
		s.rngMu.Lock()
		defer s.rngMu.Unlock()
		return s.rng.IntN(2) == 0
	}
	return true
}
