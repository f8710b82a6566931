package copilottest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
)

// An Option configures a Server: a Model to offer, LoggedOut,
// ClientOptions, PremiumMultiplier, PremiumQuota or NoPremiumQuota.
type Option interface {
	apply(*config)
}

type config struct {
	models      []Model
	loggedOut   bool
	client      copilot.Options
	multipliers map[string]float64 // PremiumMultiplier
	quota       *Quota             // PremiumQuota
	noQuota     bool               // NoPremiumQuota
}

func (m Model) apply(c *config) { c.models = append(c.models, m) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// LoggedOut makes the server a CLI with no usable login, as on a machine
// where nobody ran copilot login: auth.getStatus says so
// (copilot.Client.RequireAuth fails with copilot.ErrNotAuthenticated) and
// every turn fails with an authentication session.error.
func LoggedOut() Option {
	return optionFunc(func(c *config) { c.loggedOut = true })
}

// ClientOptions configures the client NewServer connects (a Logger, the
// Router's limits, Handlers for requests that name no session). Options
// about the CLI's process are ignored, as by copilot.Connect.
func ClientOptions(o copilot.Options) Option {
	return optionFunc(func(c *config) { c.client = o })
}

// Server is a simulated Copilot CLI serving in this process, with a client
// connected to it. Its methods are safe for concurrent use.
type Server struct {
	srv    *sim.Server
	client *copilot.Client
	wire   *wire
	faults *faults

	closeOnce sync.Once
	closeErr  error
}

// ErrInvalidModel is wrapped by the error of a Server built with a Model
// it cannot offer (no ID, no Respond, or an ID offered twice), or with no
// Model at all.
var ErrInvalidModel = errors.New("copilottest: invalid model")

// NewServer starts a server offering the given models (at least one) and
// connects a client to it. The test's cleanup closes
// both; a mistake in the options fails the test at once.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(t.Context(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Start is NewServer for code that has no testing.TB — an Example, a
// TestMain, a benchmark's shared setup — and closes the server itself
// with Close. ctx bounds the client's handshake.
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if len(cfg.models) == 0 {
		return nil, fmt.Errorf("%w: no Model given: pass at least one (quorumtest.NewServer offers the models package quorum's strategies run on)", ErrInvalidModel)
	}
	var models []sim.Model
	seen := map[string]bool{}
	for i, m := range cfg.models {
		switch {
		case m.ID == "":
			return nil, fmt.Errorf("%w: model %d has no ID", ErrInvalidModel, i)
		case m.Respond == nil:
			return nil, fmt.Errorf("%w: model %q has no Respond script", ErrInvalidModel, m.ID)
		case seen[m.ID]:
			return nil, fmt.Errorf("%w: model %q is offered twice", ErrInvalidModel, m.ID)
		}
		seen[m.ID] = true
		models = append(models, m.toSim())
	}
	if err := cfg.applyMultipliers(models); err != nil {
		return nil, err
	}
	quota, err := cfg.engineQuota()
	if err != nil {
		return nil, err
	}
	f := &faults{}
	s := &Server{
		srv: sim.NewServer(sim.Options{
			Models:          models,
			RecordCalls:     true,
			EventCopies:     f.copies,
			Unauthenticated: cfg.loggedOut,
			PremiumQuota:    quota,
			NoPremiumQuota:  cfg.noQuota,
		}),
		wire:   &wire{},
		faults: f,
	}
	c, err := copilot.Connect(ctx, s.Dial(), cfg.client)
	if err != nil {
		s.srv.Close()
		return nil, fmt.Errorf("copilottest: connecting the client: %w", err)
	}
	s.client = c
	return s, nil
}

// Client returns the client NewServer connected. Close closes it; closing
// it earlier is allowed.
func (s *Server) Client() *copilot.Client { return s.client }

// Dial opens a new connection to the server and returns the client's end,
// for copilot.Connect (or any JSON-RPC client). Each connection has its
// own sessions; closing the end closes the connection.
func (s *Server) Dial() io.ReadWriteCloser {
	client, server := net.Pipe()
	if _, err := s.srv.ServeConn(context.Background(), s.wire.tap(server)); err != nil {
		client.Close() // the server is closed: the connection ends at once
	}
	return wrapClientEnd(client)
}

// Close closes the client and the server, and returns once every
// goroutine they started has ended. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if s.client != nil {
			s.closeErr = s.client.Close()
		}
		s.srv.Close()
	})
	return s.closeErr
}

// Sessions returns the ids of the sessions alive on the server (created or
// resumed, and not destroyed), on every connection, sorted.
func (s *Server) Sessions() []string { return s.srv.LiveSessions() }

// CloseConnections closes every connection now, after what was already
// queued on it, with no error and no goodbye: the client sees the CLI go
// away. The server goes on accepting new connections (Dial).
func (s *Server) CloseConnections() {
	for _, c := range s.srv.Conns() {
		c.CloseAbruptly()
	}
}

// wrapClientEnd lets the package's own tests check every connection's
// traffic against the CLI's schemas; it is nil otherwise.
var wrapClientEnd = func(rwc io.ReadWriteCloser) io.ReadWriteCloser { return rwc }
