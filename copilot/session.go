package copilot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// Session is one model session on a Client. One turn runs at a time;
// different sessions run concurrently.
type Session struct {
	id       string
	model    string
	client   *Client
	r        *router.Router
	ch       *session.Channel
	tools    map[string]Tool
	pipeline ToolHandler
	policy   PermissionPolicy
	onEvent  func(Event)
	handlers *protocol.Handlers
	log      zerolog.Logger

	turn      chan struct{} // one token: the turn lock, honouring contexts
	destroyed atomic.Bool   // Destroy succeeded
	aborting  chan struct{} // closed when the abort of a cancelled turn is done

	// The channel's reader (dispatch.go): own is its token; readCancel
	// stops the dispatcher's read, wanted counts turns waiting for the
	// token, handedOver says the caller took the channel (Channel).
	own        chan struct{}
	mu         sync.Mutex
	readCancel context.CancelFunc
	wanted     int
	handedOver bool
	// dirty: a turn was left unfinished; what is left of it is drained
	// (turn.go) or refused (dispatch.go). Only the holder of own uses it.
	dirty bool
}

// NewSession creates a session. Its events are routed from before the
// create request is sent, so session.start is never lost. A cfg that
// SessionConfig.Validate refuses is refused here, with its error.
func (c *Client) NewSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	s, params, err := c.prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var res protocol.SessionCreateResult
	if cfg.AssignedID {
		params.SessionID = ""
		s.ch, err = s.r.CreateAssigned(ctx, params, &res)
	} else {
		s.ch, err = s.r.Create(ctx, params.SessionID, params, &res)
	}
	if err != nil {
		// The CLI may have created it after we gave up: destroy it, so a
		// cancelled creation leaves nothing behind.
		var ab *router.AbandonedError
		switch {
		case errors.As(err, &ab):
			c.destroyLater(s.r, ab.SessionID)
		case !cfg.AssignedID && ctx.Err() != nil:
			c.destroyLater(s.r, params.SessionID)
		}
		return nil, fmt.Errorf("copilot: creating a %s session: %w", cfg.Model, err)
	}
	s.id = s.ch.ID()
	s.startDispatch()
	return s, nil
}

// ResumeSession attaches to a session that exists on the CLI (created
// earlier on this connection or saved by the CLI), with a new configuration
// for tools and permissions. cfg's ID and AssignedID are not used: the
// session's id is id.
func (c *Client) ResumeSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	cfg.ID, cfg.AssignedID = id, false
	s, params, err := c.prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if s.ch, err = s.r.Open(id); err != nil {
		return nil, err
	}
	if err := s.r.Call(ctx, protocol.MethodSessionResume, params, nil); err != nil {
		s.ch.Close(context.Background())
		return nil, fmt.Errorf("copilot: resuming session %s: %w", id, err)
	}
	s.id = id
	s.startDispatch()
	return s, nil
}

// destroyLater destroys a session whose creation was abandoned, within a
// bounded time, without holding up the caller.
func (c *Client) destroyLater(r *router.Router, id string) {
	c.background(func() {
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		defer cancel()
		_ = r.Call(ctx, protocol.MethodSessionDestroy, protocol.SessionIDParams{SessionID: id}, nil)
	})
}

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Model is the model the session was created with.
func (s *Session) Model() string { return s.model }

// Channel hands the session's raw message channel to the caller, for
// callers that read events themselves. From then on the caller is the
// channel's only reader between turns: SessionConfig.OnEvent and
// Handlers no longer see what arrives then, and the caller answers the
// requests it reads. Stream still reads its own turns.
func (s *Session) Channel() *session.Channel {
	s.mu.Lock()
	s.handedOver = true
	if s.readCancel != nil {
		s.readCancel()
	}
	s.mu.Unlock()
	return s.ch
}

// RPC returns every method of the CLI's protocol that acts on one session,
// typed, with this session's id filled in: s.RPC().Model.SwitchTo(ctx,
// protocol.SessionModelSwitchToParams{ModelID: "gpt-5"}). The calls go
// over the session's connection.
func (s *Session) RPC() *protocol.SessionRPC { return protocol.NewSessionRPC(s.r, s.id) }

// Abort stops the turn in progress.
func (s *Session) Abort(ctx context.Context) error {
	_, err := s.RPC().Abort(ctx, protocol.SessionAbortParams{})
	return err
}

// Messages returns the session's recorded events.
func (s *Session) Messages(ctx context.Context) ([]Event, error) {
	var res protocol.SessionMessagesResult
	err := s.r.Call(ctx, protocol.MethodSessionGetMessages, protocol.SessionIDParams{SessionID: s.id}, &res)
	return res.Events, err
}

// Destroy ends the session on the CLI and deregisters it. Idempotent.
// A Destroy that fails (its context ended, say) may be called again.
func (s *Session) Destroy(ctx context.Context) error {
	s.ch.Close(ctx) // deregister first: nothing more is read for it
	if s.destroyed.Load() {
		return nil
	}
	err := s.r.Call(ctx, protocol.MethodSessionDestroy, protocol.SessionIDParams{SessionID: s.id}, nil)
	if err == nil || errors.Is(err, router.ErrStopped) {
		// A stopped connection took the session with it.
		s.destroyed.Store(true)
		return nil
	}
	return fmt.Errorf("copilot: destroying session %s: %w", s.id, err)
}

// Close deregisters the session locally without ending it on the CLI.
func (s *Session) Close() error {
	return s.ch.Close(context.Background())
}
