package copilot

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

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
	log      zerolog.Logger

	turn      chan struct{} // one token: the turn lock, honouring contexts
	dirty     bool          // a turn was left unfinished; drain it first
	destroyed atomic.Bool   // Destroy succeeded
	aborting  chan struct{} // closed when the abort of a cancelled turn is done
}

// NewSession creates a session. Its events are routed from before the
// create request is sent, so session.start is never lost. A cfg that
// SessionConfig.Validate refuses is refused here, with its error.
func (c *Client) NewSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	s, params, err := c.prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var res CreateResult
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
	if err := s.r.Call(ctx, methodSessionResume, params, nil); err != nil {
		s.ch.Close(context.Background())
		return nil, fmt.Errorf("copilot: resuming session %s: %w", id, err)
	}
	s.id = id
	return s, nil
}

// destroyLater destroys a session whose creation was abandoned, within a
// bounded time, without holding up the caller.
func (c *Client) destroyLater(r *router.Router, id string) {
	c.background(func() {
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		defer cancel()
		_ = r.Call(ctx, methodSessionDestroy, sessionIDParams{SessionID: id}, nil)
	})
}

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Model is the model the session was created with.
func (s *Session) Model() string { return s.model }

// Channel is the session's raw message channel, for callers that read
// events themselves instead of using Stream.
func (s *Session) Channel() *session.Channel { return s.ch }

// Abort stops the turn in progress.
func (s *Session) Abort(ctx context.Context) error {
	return s.r.Call(ctx, methodSessionAbort, sessionIDParams{SessionID: s.id}, nil)
}

// Messages returns the session's recorded events.
func (s *Session) Messages(ctx context.Context) ([]Event, error) {
	var res struct {
		Events []Event `json:"events"`
	}
	err := s.r.Call(ctx, methodSessionMessages, sessionIDParams{SessionID: s.id}, &res)
	return res.Events, err
}

// Destroy ends the session on the CLI and deregisters it. Idempotent.
// A Destroy that fails (its context ended, say) may be called again.
func (s *Session) Destroy(ctx context.Context) error {
	s.ch.Close(ctx) // deregister first: nothing more is read for it
	if s.destroyed.Load() {
		return nil
	}
	err := s.r.Call(ctx, methodSessionDestroy, sessionIDParams{SessionID: s.id}, nil)
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
