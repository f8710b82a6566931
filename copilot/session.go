package copilot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// SessionConfig configures a new session. Only Model is usually needed.
type SessionConfig struct {
	// ID is the session id to use; default a new UUID. With AssignedID the
	// server picks it instead (creations are then serialised).
	ID         string
	AssignedID bool

	Model string
	// SystemMessage is appended to the CLI's system prompt.
	SystemMessage string
	// WorkingDirectory is the session's working directory on the CLI side.
	WorkingDirectory string
	// DisableStreaming asks for whole messages instead of text deltas.
	DisableStreaming bool

	// BuiltinTools names the CLI's own tools (bash, view, edit, ...) the
	// model may use. nil offers all of them; NoBuiltinTools offers none.
	BuiltinTools []string
	// Tools are client tools, run in this process by their Handler.
	Tools []Tool
	// Permissions decides the CLI's permission requests. Default DenyAll.
	Permissions PermissionPolicy

	// The tool pipeline, assembled in this order around every tool call:
	// Trace (records), MaxToolCalls (per-turn limit), Profile (only the
	// profile's tools are declared and callable), Stages (yours),
	// MaxToolOutputBytes (truncation).
	Trace              *ToolTrace
	MaxToolCalls       int
	Profile            string
	Profiles           map[string][]string
	Stages             []ToolStage
	MaxToolOutputBytes int
}

// NoBuiltinTools, as SessionConfig.BuiltinTools, switches the CLI's own
// tools off: no shell, no file writes, no web access.
var NoBuiltinTools = []string{}

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
// create request is sent, so session.start is never lost.
func (c *Client) NewSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	l, err := c.link(ctx)
	if err != nil {
		return nil, err
	}
	s, params, err := c.prepare(l, cfg)
	if err != nil {
		return nil, err
	}
	var res CreateResult
	if cfg.AssignedID {
		params.SessionID = ""
		s.ch, err = l.r.CreateAssigned(ctx, params, &res)
	} else {
		s.ch, err = l.r.Create(ctx, params.SessionID, params, &res)
	}
	if err != nil {
		// The CLI may have created it after we gave up: destroy it, so a
		// cancelled creation leaves nothing behind.
		var ab *router.AbandonedError
		switch {
		case errors.As(err, &ab):
			c.destroyLater(l.r, ab.SessionID)
		case !cfg.AssignedID && ctx.Err() != nil:
			c.destroyLater(l.r, params.SessionID)
		}
		return nil, fmt.Errorf("copilot: creating a %s session: %w", cfg.Model, err)
	}
	s.id = s.ch.ID()
	return s, nil
}

// ResumeSession attaches to a session that exists on the CLI (created
// earlier on this connection or saved by the CLI), with a new configuration
// for tools and permissions.
func (c *Client) ResumeSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	l, err := c.link(ctx)
	if err != nil {
		return nil, err
	}
	cfg.ID = id
	s, params, err := c.prepare(l, cfg)
	if err != nil {
		return nil, err
	}
	if s.ch, err = l.r.Open(id); err != nil {
		return nil, err
	}
	if err := l.r.Call(ctx, methodSessionResume, params, nil); err != nil {
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

// prepare validates cfg and builds the session value and create params.
func (c *Client) prepare(l *link, cfg SessionConfig) (*Session, createParams, error) {
	if cfg.Model == "" {
		return nil, createParams{}, errors.New("copilot: SessionConfig.Model is empty; list the available models with Client.Models")
	}
	id := cfg.ID
	if id == "" {
		id = uuid.NewString()
	}
	s := &Session{
		model:  cfg.Model,
		client: c,
		r:      l.r,
		tools:  make(map[string]Tool),
		policy: cfg.Permissions,
		log:    c.log.With().Str("session", id).Logger(),
		turn:   make(chan struct{}, 1),
	}
	if s.policy == nil {
		s.policy = DenyAll
	}
	var allowed []string
	if cfg.Profile != "" {
		var ok bool
		if allowed, ok = cfg.Profiles[cfg.Profile]; !ok {
			return nil, createParams{}, fmt.Errorf("copilot: tool profile %q is not defined in SessionConfig.Profiles", cfg.Profile)
		}
	}
	params := createParams{
		SessionID:         id,
		Model:             cfg.Model,
		WorkingDirectory:  cfg.WorkingDirectory,
		Streaming:         !cfg.DisableStreaming,
		RequestPermission: true,
	}
	if cfg.SystemMessage != "" {
		params.SystemMessage = &systemMessage{Mode: "append", Content: cfg.SystemMessage}
	}

	for _, t := range cfg.Tools {
		if t.Name == "" || t.Handler == nil {
			return nil, createParams{}, fmt.Errorf("copilot: tool %q needs a name and a handler", t.Name)
		}
		if cfg.Profile != "" && !slices.Contains(allowed, t.Name) {
			continue // not in the profile: not even declared
		}
		s.tools[t.Name] = t
		params.Tools = append(params.Tools, toolDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters, SkipPermission: t.SkipPermission,
		})
	}
	if cfg.BuiltinTools != nil {
		// availableTools filters client tools too (seen on CLI 1.0.102):
		// list ours beside the built-ins the caller allowed.
		avail := append([]string{}, cfg.BuiltinTools...)
		for _, t := range params.Tools {
			avail = append(avail, t.Name)
		}
		params.AvailableTools = &avail
	}
	var stages []ToolStage
	if cfg.Trace != nil {
		stages = append(stages, cfg.Trace.Stage())
	}
	if cfg.MaxToolCalls > 0 {
		stages = append(stages, LimitToolCalls(cfg.MaxToolCalls))
	}
	if cfg.Profile != "" {
		stages = append(stages, ProfileTools(cfg.Profile, allowed))
	}
	stages = append(stages, cfg.Stages...)
	if cfg.MaxToolOutputBytes > 0 {
		stages = append(stages, TruncateToolOutput(cfg.MaxToolOutputBytes))
	}
	s.pipeline = buildPipeline(stages, s.dispatch, s.log)
	return s, params, nil
}

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Model is the model the session was created with.
func (s *Session) Model() string { return s.model }

// Channel is the session's raw message channel, for callers that read
// events themselves instead of using Stream.
func (s *Session) Channel() *session.Channel { return s.ch }

// Reply is the outcome of one turn.
type Reply struct {
	MessageID string
	Text      string
	Usage     Usage
	ToolCalls int
	Duration  time.Duration
}

// TurnHandlers observe a turn. Each may be nil.
type TurnHandlers struct {
	OnDelta func(text string)
	OnEvent func(Event)
}

// Ask sends prompt and returns the model's final answer.
func (s *Session) Ask(ctx context.Context, prompt string) (string, error) {
	r, err := s.Stream(ctx, prompt, TurnHandlers{})
	return r.Text, err
}

// Stream sends prompt and reads the turn to its end, passing text deltas
// and events to h as they arrive, and answering tool calls and permission
// requests through the session's tools and policy. When ctx ends mid-turn,
// the turn is aborted on the CLI and ctx's error returned.
func (s *Session) Stream(ctx context.Context, prompt string, h TurnHandlers) (Reply, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
	defer func() { <-s.turn }()
	if err := s.waitAbort(ctx); err != nil {
		return Reply{}, err
	}
	if s.dirty {
		if err := s.drainTurn(ctx); err != nil {
			return Reply{}, err
		}
	}
	start := time.Now()
	var reply Reply
	var res sendResult
	if err := s.r.Call(ctx, methodSessionSend, sendParams{SessionID: s.id, Prompt: prompt}, &res); err != nil {
		if ctx.Err() != nil {
			// The send went out before the caller gave up, so the turn may
			// be running: stop it, and have the next turn drain what is left.
			s.dirty = true
			s.abortAfterCancel()
		}
		return reply, fmt.Errorf("copilot: sending to session %s: %w", s.id, err)
	}
	reply.MessageID = res.MessageID
	s.dirty = true

	ctx = withTurn(ctx, &turnState{})
	handlers := &session.Handlers{
		OnDelta: h.OnDelta,
		OnEvent: func(ev Event) {
			switch ev.Type {
			case EventUsage:
				var u Usage
				if ev.Decode(&u) == nil {
					reply.Usage.Add(u)
				}
			case EventAutoModeSwitch:
				// After a rate limit the CLI asks whether to switch models
				// and waits, idle, until answered. We never switch: the
				// caller chose the model. The session.error before it
				// already carries the reason.
				s.declineModelSwitch(ctx, ev)
			}
			if h.OnEvent != nil {
				h.OnEvent(ev)
			}
		},
	}
	var texts []string
	var limitErr error
	var denied string // what the policy refused, if anything
	for {
		step, err := s.ch.Next(ctx, handlers)
		if step.Text != "" {
			texts = append(texts, step.Text)
		}
		if err != nil {
			reply.Text, reply.Duration = strings.Join(texts, "\n\n"), time.Since(start)
			if ctx.Err() != nil {
				s.abortAfterCancel()
				return reply, ctx.Err()
			}
			if errors.Is(err, session.ErrAborted) && limitErr != nil {
				err = limitErr
			} else if errors.Is(err, session.ErrAborted) && denied != "" {
				// The CLI ends the turn when a permission is refused.
				err = fmt.Errorf("%w: %s (the CLI then ends the turn: %w)", ErrPermissionDenied, denied, err)
			}
			if endedAtIdle(err) {
				s.dirty = false
			}
			return reply, err
		}
		switch {
		case step.Tool != nil:
			reply.ToolCalls++
			if err := s.runTool(ctx, step.Tool); errors.Is(err, ErrToolLimit) && limitErr == nil {
				limitErr = err
				if aerr := s.Abort(ctx); aerr != nil {
					s.log.Warn().Err(aerr).Msg("aborting after the tool-call limit")
				}
			}
		case step.Permission != nil:
			if !s.answerPermission(ctx, step.Permission) && denied == "" {
				denied = permissionLabel(step.Permission)
			}
		default:
			s.dirty = false
			reply.Text, reply.Duration = strings.Join(texts, "\n\n"), time.Since(start)
			if limitErr != nil {
				return reply, limitErr
			}
			return reply, nil
		}
	}
}

// abortAfterCancel stops a turn whose caller gave up, within a bounded time.
// The abort runs in the background so the cancelled caller returns at
// once; the next turn waits for it (see waitAbort), so that it cannot abort
// the new turn instead.
func (s *Session) abortAfterCancel() {
	done := make(chan struct{})
	s.aborting = done
	started := s.client.background(func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(s.client.ctx, 5*time.Second)
		defer cancel()
		if err := s.Abort(ctx); err != nil {
			s.log.Debug().Err(err).Msg("aborting a cancelled turn")
		}
	})
	if !started {
		close(done) // the client is closed: nothing left to abort
	}
}

// waitAbort waits for the abort of the previous, cancelled turn.
func (s *Session) waitAbort(ctx context.Context) error {
	if s.aborting == nil {
		return nil
	}
	select {
	case <-s.aborting:
		s.aborting = nil
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drainQuiet is how long drainTurn waits for the rest of an abandoned turn
// before it concludes that no turn was running (a send that the CLI refused,
// or one whose turn ended before the abort).
const drainQuiet = 2 * time.Second

// drainTurn reads what is left of an unfinished turn, up to session.idle.
func (s *Session) drainTurn(ctx context.Context) error {
	for {
		quiet, cancel := context.WithTimeout(ctx, drainQuiet)
		step, err := s.ch.Next(quiet, nil)
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			s.dirty = false // nothing more came: no turn was left running
			return nil
		}
		if err != nil && !endedAtIdle(err) {
			return err
		}
		switch {
		case step.Tool != nil:
			s.answerTool(ctx, step.Tool, "", errors.New("the turn was abandoned"))
		case step.Permission != nil:
			s.answerPermissionKind(ctx, step.Permission, permissionReject)
		default:
			s.dirty = false
			return nil
		}
	}
}

// endedAtIdle reports whether a turn's error came with its closing
// session.idle (a failed or aborted turn), so nothing of it is left to read.
// Any other error (the caller's context, the channel's end) left it unread.
func endedAtIdle(err error) bool {
	return errors.Is(err, session.ErrTurnFailed) || errors.Is(err, session.ErrAborted)
}

// runTool runs one tool call through the pipeline and answers it.
func (s *Session) runTool(ctx context.Context, t *session.ToolRequest) error {
	out, err := s.pipeline(ctx, ToolCall{SessionID: s.id, ID: t.ToolCallID, Name: t.ToolName, Arguments: t.Arguments})
	s.answerTool(ctx, t, out, err)
	return err
}

// dispatch is the innermost stage: find the tool and run it safely.
func (s *Session) dispatch(ctx context.Context, call ToolCall) (string, error) {
	t, ok := s.tools[call.Name]
	if !ok {
		return "", fmt.Errorf("no tool named %q is registered in this session", call.Name)
	}
	return safeHandler(t.Handler)(ctx, call)
}

// answerTool gives a tool's result to the CLI, in whichever protocol it
// asked.
func (s *Session) answerTool(ctx context.Context, t *session.ToolRequest, out string, err error) {
	res := toolResult{TextResultForLLM: out, ResultType: "success"}
	if err != nil {
		res = toolResult{TextResultForLLM: "Error: " + err.Error(), ResultType: "failure", Error: err.Error()}
	}
	var aerr error
	if t.Request != nil {
		aerr = t.Request.Reply(ctx, legacyToolCallResult{Result: res})
	} else {
		aerr = s.r.Call(ctx, methodHandleToolCall, handleToolCallParams{SessionID: s.id, RequestID: t.RequestID, Result: &res}, nil)
	}
	if aerr != nil {
		s.log.Warn().Err(aerr).Str("tool", t.ToolName).Msg("answering a tool call")
	}
}

// answerPermission asks the policy and answers; it reports the approval.
func (s *Session) answerPermission(ctx context.Context, p *session.PermissionRequest) bool {
	ok, err := s.policy(ctx, PermissionRequest{SessionID: s.id, Kind: p.Kind, ToolName: p.ToolName, Details: p.Details})
	if err != nil {
		s.log.Warn().Err(err).Msg("permission policy failed; denying")
		ok = false
	}
	kind := permissionReject
	if ok {
		kind = permissionApproveOnce
	}
	s.answerPermissionKind(ctx, p, kind)
	return ok
}

func permissionLabel(p *session.PermissionRequest) string {
	if p.ToolName != "" {
		return fmt.Sprintf("%s permission for tool %s was denied by the session's policy", p.Kind, p.ToolName)
	}
	return fmt.Sprintf("%s permission was denied by the session's policy", p.Kind)
}

// declineModelSwitch answers auto_mode_switch.requested with "no".
func (s *Session) declineModelSwitch(ctx context.Context, ev Event) {
	var d struct {
		RequestID string `json:"requestId"`
	}
	if ev.Decode(&d) != nil || d.RequestID == "" {
		return
	}
	err := s.r.Call(ctx, methodHandleAutoModeSwitch, map[string]string{
		"sessionId": s.id, "requestId": d.RequestID, "response": "no",
	}, nil)
	if err != nil {
		s.log.Warn().Err(err).Msg("declining the CLI's model switch")
	}
}

func (s *Session) answerPermissionKind(ctx context.Context, p *session.PermissionRequest, kind string) {
	err := s.r.Call(ctx, methodHandlePermission, handlePermissionParams{
		SessionID: s.id, RequestID: p.RequestID, Result: permissionResult{Kind: kind},
	}, nil)
	if err != nil {
		s.log.Warn().Err(err).Msg("answering a permission request")
	}
}

// Send sends a prompt without reading the turn; read it from Channel.
func (s *Session) Send(ctx context.Context, prompt string) (string, error) {
	var res sendResult
	err := s.r.Call(ctx, methodSessionSend, sendParams{SessionID: s.id, Prompt: prompt}, &res)
	return res.MessageID, err
}

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
