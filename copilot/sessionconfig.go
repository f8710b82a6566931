package copilot

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// SessionConfig configures a new session. Only Model is usually needed;
// Validate says which values are refused.
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

	// OnEvent gets every event of the session, in order, at any time:
	// during turns (before the turn's own TurnHandlers.OnEvent) and between
	// them (background agents, title changes, the events of a turn started
	// with Send). It runs on one goroutine at a time and must return
	// promptly: while it runs the session reads nothing more, and a session
	// that falls behind by its buffer's bound fails alone.
	OnEvent func(Event)
	// Handlers answer the requests the CLI sends this session: the
	// schema's (Handlers.HooksInvoke, Handlers.SessionFSReadFile, …) and
	// the older ones (Handlers.UserInputRequest, …). Setting
	// UserInputRequest, ExitPlanModeRequest, AutoModeSwitchRequest or
	// HooksInvoke also tells the CLI, at creation, that it may send them.
	// A request without a handler is declined where the protocol has a
	// way to say no, and answered with an error naming the handler
	// otherwise: the CLI never waits on an unanswered request.
	Handlers protocol.Handlers

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

// askUserTool is the CLI's tool through which the model asks the user,
// with a userInput.request to the client.
const askUserTool = "ask_user"

// NoBuiltinTools, as SessionConfig.BuiltinTools, switches the CLI's own
// tools off: no shell, no file writes, no web access.
var NoBuiltinTools = []string{}

// Validate reports the first field of cfg that NewSession refuses, naming
// it, in an error wrapping ErrInvalidSessionConfig: no Model, an ID beside
// AssignedID, a Profile missing from Profiles, a tool without a name or a
// handler, with parameters that are not JSON, or with the name of another,
// a negative MaxToolCalls or MaxToolOutputBytes (zero means no limit), a
// stage without Wrap.
func (cfg SessionConfig) Validate() error {
	if cfg.Model == "" {
		return invalid(ErrInvalidSessionConfig, "Model is empty; list the available models with Client.Models")
	}
	if cfg.ID != "" && cfg.AssignedID {
		return invalid(ErrInvalidSessionConfig, "ID is %q and AssignedID is set; with AssignedID the CLI picks the id", cfg.ID)
	}
	if _, ok := cfg.Profiles[cfg.Profile]; cfg.Profile != "" && !ok {
		return invalid(ErrInvalidSessionConfig, "Profile %q is not defined in Profiles", cfg.Profile)
	}
	for i, t := range cfg.Tools {
		switch {
		case t.Name == "":
			return invalid(ErrInvalidSessionConfig, "Tools[%d] has no Name", i)
		case t.Handler == nil:
			return invalid(ErrInvalidSessionConfig, "Tools[%d] (%q) has no Handler", i, t.Name)
		case len(t.Parameters) > 0 && !json.Valid(t.Parameters):
			return invalid(ErrInvalidSessionConfig, "Tools[%d] (%q) has Parameters that are not valid JSON", i, t.Name)
		case slices.ContainsFunc(cfg.Tools[:i], func(u Tool) bool { return u.Name == t.Name }):
			return invalid(ErrInvalidSessionConfig, "Tools[%d] is named %q, as an earlier tool is", i, t.Name)
		}
	}
	if cfg.MaxToolCalls < 0 {
		return invalid(ErrInvalidSessionConfig, "MaxToolCalls is %d; it must not be negative (0 means no limit)", cfg.MaxToolCalls)
	}
	if cfg.MaxToolOutputBytes < 0 {
		return invalid(ErrInvalidSessionConfig, "MaxToolOutputBytes is %d; it must not be negative (0 means no limit)", cfg.MaxToolOutputBytes)
	}
	for i, st := range cfg.Stages {
		if st.Wrap == nil {
			return invalid(ErrInvalidSessionConfig, "Stages[%d] (%q) has no Wrap", i, st.Name)
		}
	}
	return nil
}

// prepare validates cfg and builds, on the current connection, the session
// value and the params that create or resume it.
func (c *Client) prepare(ctx context.Context, cfg SessionConfig) (*Session, protocol.SessionCreateParams, error) {
	var params protocol.SessionCreateParams
	if err := cfg.Validate(); err != nil {
		return nil, params, err
	}
	cn, err := c.current(ctx)
	if err != nil {
		return nil, params, err
	}
	allowed := cfg.Profiles[cfg.Profile] // with no Profile, unused
	id := cfg.ID
	if id == "" {
		id = uuid.NewString()
	}
	s := &Session{
		model:    cfg.Model,
		client:   c,
		r:        cn.r,
		tools:    make(map[string]Tool),
		policy:   cfg.Permissions,
		onEvent:  cfg.OnEvent,
		handlers: &cfg.Handlers,
		log:      c.log.With().Str("session", id).Logger(),
		turn:     make(chan struct{}, 1),
		own:      make(chan struct{}, 1),
	}
	if s.policy == nil {
		s.policy = DenyAll
	}
	h := &cfg.Handlers
	params = protocol.SessionCreateParams{
		SessionID:             id,
		Model:                 cfg.Model,
		WorkingDirectory:      cfg.WorkingDirectory,
		Streaming:             !cfg.DisableStreaming,
		RequestPermission:     true,
		RequestUserInput:      h.UserInputRequest != nil,
		RequestExitPlanMode:   h.ExitPlanModeRequest != nil,
		RequestAutoModeSwitch: h.AutoModeSwitchRequest != nil,
		Hooks:                 h.HooksInvoke != nil,
	}
	if cfg.SystemMessage != "" {
		params.SystemMessage = &protocol.SystemMessageConfig{Mode: "append", Content: cfg.SystemMessage}
	}
	for _, t := range cfg.Tools {
		if cfg.Profile != "" && !slices.Contains(allowed, t.Name) {
			continue // not in the profile: not even declared
		}
		s.tools[t.Name] = t
		params.Tools = append(params.Tools, protocol.ToolDefinition{
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
		// The CLI offers the model ask_user when the client answers user
		// input; availableTools would filter it out again.
		if params.RequestUserInput {
			avail = append(avail, askUserTool)
		}
		params.AvailableTools = &avail
	}
	s.pipeline = buildPipeline(toolStages(cfg, allowed), s.dispatch, s.log)
	return s, params, nil
}

// toolStages lists the stages of cfg's tool pipeline, outermost first, in
// the order SessionConfig documents.
func toolStages(cfg SessionConfig, allowed []string) []ToolStage {
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
	return stages
}
