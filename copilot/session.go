package copilot

import (
	"context"
	"errors"
	"fmt"
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
	// policySlots bounds the policies running at once (askPolicy).
	policySlots chan struct{}
	onEvent     func(Event)
	// workspace is where the CLI keeps the session's state (WorkspacePath).
	workspace string
	// inactivity is SessionConfig.TurnInactivity.
	inactivity time.Duration
	handlers   *protocol.Handlers
	log        zerolog.Logger

	caps      atomic.Pointer[SessionCapabilities] // what create or resume answered, as capabilities.changed updates it
	destroyed atomic.Bool                         // Destroy or Delete succeeded
	deleted   atomic.Bool                         // Delete succeeded
	switched  atomic.Pointer[string]              // the model of the last SetModel

	// The session's coordination (coordination.go, which states the
	// ordering contract): reader passes the channel between a turn and
	// the dispatcher; turns is what one turn leaves for the next.
	reader *handover
	turns  turnState
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
		case errors.As(err, &ab) && ab.SessionID != "":
			c.destroyLater(s.r, ab.SessionID)
		case errors.As(err, &ab):
			// Given up before the response: the router names the session
			// when its late response comes.
			c.spawn(func() {
				if id, ok := ab.Await(c.ctx); ok {
					c.destroyLater(s.r, id)
				}
			})
		case !cfg.AssignedID && ctx.Err() != nil:
			c.destroyLater(s.r, params.SessionID)
		}
		return nil, fmt.Errorf("copilot: creating a %s session: %w", cfg.Model, err)
	}
	s.id = s.ch.ID()
	s.workspace = res.WorkspacePath
	s.setCapabilities(res.Capabilities)
	if cfg.AssignedID {
		// prepare named the logger after an id the CLI did not use. Nothing
		// logs before the dispatcher starts.
		s.log = c.log.With().Str("session", s.id).Logger()
	}
	s.startReading()
	return s, nil
}

// ResumeSession attaches to a session that exists on the CLI (created
// earlier on this connection or saved by the CLI), with a new configuration:
// the CLI applies what cfg sets (system message, working directory, tools,
// provider, MCP servers, custom agents, …) from the next turn on. cfg's ID
// and AssignedID are not used: the session's id is id. cfg's Model may be
// empty: the session keeps the model it had (Session.Model says which).
// What cfg leaves at its zero value is not sent, and the CLI may keep the
// session's own: CLI 1.0.102 keeps a BuiltinTools list set before (a nil
// BuiltinTools does not offer every built-in tool again).
//
// A session this client has open (a *Session not closed, destroyed or
// deleted) can be resumed too; there is one owner per session id, so the
// new *Session takes over from the old one once the CLI has accepted the
// resume. From then on the new one receives every event and request of the
// session, those the old one had not read yet first, in order: none is
// lost, none delivered twice. The old one is ended: a turn it was reading
// fails with an error wrapping ErrSuperseded (its rest goes to the new
// Session, which answers its tool calls and permission requests), and so
// do its later turns, Send, Abort, Destroy and Delete (a channel taken
// with Channel ends with ErrSuperseded too); Close releases it.
// What the CLI sent before it answered the resume is the old Session's,
// and a permission request its policy is still deciding is answered by
// that policy (whose context ends with the old turn).
// A resume the CLI refuses leaves the old Session as it was.
func (c *Client) ResumeSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	if err := requireID("resuming a session", id); err != nil {
		return nil, err
	}
	cfg.ID, cfg.AssignedID = id, false
	s, params, err := c.prepareFor(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	// A session not open here is routed before the resume is sent, so that
	// nothing the CLI sends meanwhile is lost; an open one keeps its owner
	// until the CLI has accepted the resume (a refusal changes nothing).
	s.ch, err = s.r.Open(id)
	open := errors.Is(err, router.ErrSessionExists)
	if err != nil && !open {
		return nil, err
	}
	var res protocol.SessionCreateResult
	if err := s.r.Call(ctx, protocol.MethodSessionResume, params, &res); err != nil {
		if !open {
			s.ch.Close(context.Background())
		}
		return nil, fmt.Errorf("copilot: resuming session %s: %w", id, err)
	}
	if open {
		if s.ch, err = s.r.Supersede(id); err != nil {
			return nil, fmt.Errorf("copilot: resuming session %s: %w", id, err)
		}
	}
	s.id = id
	if s.model == "" && res.ModelState != nil {
		s.model = res.ModelState.ModelID // the model the session kept
	}
	s.workspace = res.WorkspacePath
	s.setCapabilities(res.Capabilities)
	s.startReading()
	return s, nil
}

// destroyLater destroys a session whose creation was abandoned, within a
// bounded time, without holding up the caller.
func (c *Client) destroyLater(r *router.Router, id string) {
	c.spawn(func() {
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		defer cancel()
		_ = r.Call(ctx, protocol.MethodSessionDestroy, protocol.SessionIDParams{SessionID: id}, nil)
	})
}

// ID is the session id.
func (s *Session) ID() string { return s.id }

// WorkspacePath is the folder where the CLI keeps the session's state (its
// events, plan and files), as session.create or session.resume answered;
// empty when the CLI did not say.
func (s *Session) WorkspacePath() string { return s.workspace }

// Model is the model the session was created with, or last switched to
// with SetModel.
func (s *Session) Model() string {
	if m := s.switched.Load(); m != nil {
		return *m
	}
	return s.model
}

// SetModel switches the session to model: the CLI's next model request
// (of this turn, if one runs, or of the next) asks for it, and the
// conversation goes on as it was. CLI 1.0.102 accepts any model id here:
// one the model API cannot serve fails the next turn. For a provider, a
// reasoning effort or the auto model's tier, call s.RPC().Model.SwitchTo.
func (s *Session) SetModel(ctx context.Context, model string) error {
	res, err := s.RPC().Model.SwitchTo(ctx, protocol.SessionModelSwitchToParams{ModelID: model})
	if err != nil {
		return fmt.Errorf("copilot: switching session %s to model %s (Client.Models lists the models): %w", s.id, model, err)
	}
	if res.ModelID != "" {
		model = res.ModelID
	}
	s.switched.Store(&model)
	return nil
}

// Channel hands the session's raw message channel to the caller, for
// callers that read events themselves. From then on the caller is the
// channel's only reader between turns: SessionConfig.OnEvent and
// Handlers no longer see what arrives then, and the caller answers the
// requests it reads. Stream still reads its own turns.
func (s *Session) Channel() *session.Channel {
	s.reader.handOver()
	return s.ch
}

// RPC returns every method of the CLI's protocol that acts on one session,
// typed, with this session's id filled in: s.RPC().Model.SwitchTo(ctx,
// protocol.SessionModelSwitchToParams{ModelID: "gpt-5"}). The calls go
// over the session's connection.
func (s *Session) RPC() *protocol.SessionRPC { return protocol.NewSessionRPC(s.r, s.id) }

// Abort stops the turn in progress.
func (s *Session) Abort(ctx context.Context) error {
	if err := s.superseded("aborting"); err != nil {
		return err
	}
	_, err := s.RPC().Abort(ctx, protocol.SessionAbortParams{})
	return err
}

// superseded returns an error wrapping ErrSuperseded, saying what was not
// done, once ResumeSession has handed this session to another *Session:
// what it would send now would act on the new owner's session.
func (s *Session) superseded(doing string) error {
	if err := s.ch.Err(); errors.Is(err, ErrSuperseded) {
		return fmt.Errorf("copilot: %s session %s: nothing was sent, as this *Session was superseded; use the one ResumeSession returned: %w", doing, s.id, err)
	}
	return nil
}

// Messages returns the session's recorded events.
func (s *Session) Messages(ctx context.Context) ([]Event, error) {
	var res protocol.SessionMessagesResult
	err := s.r.Call(ctx, protocol.MethodSessionGetMessages, protocol.SessionIDParams{SessionID: s.id}, &res)
	return res.Events, err
}

// Destroy disconnects the session: it stops it on the CLI and deregisters
// it here. The CLI keeps the session on disk: ListSessions still lists it,
// and ResumeSession can take it up again; Delete removes it. A session
// with Hooks reads on until the CLI has answered: CLI 1.0.102 asks its
// Hooks.OnSessionEnd before it answers (so a session with hooks must not
// be destroyed from its own handlers — OnEvent, a tool, a hook, a policy
// — whose return the hook waits for); one without is deregistered first.
// Idempotent. A Destroy that fails (its context ended, say) may be called
// again; the session is deregistered either way.
func (s *Session) Destroy(ctx context.Context) error {
	if err := s.superseded("destroying"); err != nil {
		return err
	}
	defer s.release(ctx)()
	if s.destroyed.Load() {
		return nil
	}
	err := s.r.Call(ctx, protocol.MethodSessionDestroy, protocol.SessionIDParams{SessionID: s.id}, nil)
	if err == nil || errors.Is(err, ErrStopped) {
		// A stopped connection took the session with it.
		s.destroyed.Store(true)
		return nil
	}
	return fmt.Errorf("copilot: destroying session %s: %w", s.id, err)
}

// Delete stops the session and removes it from the CLI: from disk and
// from ListSessions, so it cannot be resumed. It deregisters it here too
// (a session with Hooks once the CLI has answered, as for Destroy). It is one session.delete, which on CLI 1.0.102 also stops
// a live session and its turn (no destroy is needed first). Idempotent; a
// Delete that fails may be called again. A session the CLI no longer keeps
// (one deleted elsewhere) is refused with an error wrapping ErrRefused.
func (s *Session) Delete(ctx context.Context) error {
	if err := s.superseded("deleting"); err != nil {
		return err
	}
	defer s.release(ctx)()
	if s.deleted.Load() {
		return nil
	}
	if err := deleteSession(ctx, s.r, s.id); err != nil {
		return err
	}
	s.destroyed.Store(true)
	s.deleted.Store(true)
	return nil
}

// release deregisters the session, for Destroy and Delete, at once or, for
// a session with hooks, when the function it returns is called, after the
// CLI has answered: the CLI runs the sessionEnd hook before it answers,
// and a deregistered session would refuse it.
func (s *Session) release(ctx context.Context) func() {
	closeIt := func() { s.ch.Close(ctx) }
	if s.handlers.HooksInvoke == nil {
		closeIt() // nothing more is read for it
		return func() {}
	}
	return closeIt
}

// Close deregisters the session locally without ending it on the CLI. It
// releases a superseded Session too (see ResumeSession), leaving the
// session to its new owner.
func (s *Session) Close() error {
	return s.ch.Close(context.Background())
}
