package copilot

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

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
	// ReasoningEffort is how hard a model that supports it reasons:
	// "low", "medium", "high", "xhigh" or "max"; empty is the model's
	// default.
	ReasoningEffort string
	// ReasoningSummary asks a model that supports it for a summary of its
	// reasoning (protocol.ReasoningSummaryConcise or …Detailed), or for
	// none (…None); empty is the model's default.
	ReasoningSummary protocol.ReasoningSummary
	// ClientName names the application in the User-Agent of the CLI's
	// model requests.
	ClientName string

	// SystemMessage is added after the CLI's system prompt; SystemMode
	// SystemReplace makes it the whole prompt instead, and SystemCustomize
	// changes the CLI's prompt section by section (SystemSections, keyed
	// by Section… ids) before adding it.
	SystemMessage  string
	SystemMode     SystemMode
	SystemSections map[string]SectionOverride

	// WorkingDirectory is the session's working directory on the CLI side;
	// AdditionalDirectories are more directories the agent may use.
	WorkingDirectory      string
	AdditionalDirectories []string
	// ConfigDirectory is where the session keeps its configuration and
	// state, instead of the CLI's own.
	ConfigDirectory string
	// DisableStreaming asks for whole messages instead of text deltas.
	DisableStreaming bool
	// TurnInactivity, if positive, ends a turn with ErrTurnInactive (and
	// aborts it on the CLI) when no event comes from the CLI for that long
	// — not counting the time the client itself spends on a tool or a
	// permission. Zero: no limit.
	TurnInactivity time.Duration
	// StreamSubAgents streams sub-agents' text deltas too (to
	// TurnHandlers.OnAgentDelta); without it the CLI sends only their
	// whole messages. Either way their text is kept apart from the main
	// reply, in Reply.AgentText.
	StreamSubAgents bool

	// BuiltinTools names the CLI's own tools (bash, view, edit, ...) the
	// model may use. nil offers all of them; NoBuiltinTools() offers none.
	BuiltinTools []string
	// ExcludedTools names tools the model is not offered: built-in ones,
	// client Tools or MCP servers' tools. It applies besides BuiltinTools.
	ExcludedTools []string
	// Tools are client tools, run in this process by their Handler.
	Tools []Tool
	// MCPServers are MCP servers whose tools the model may use, by name.
	MCPServers map[string]MCPServer
	// CustomAgents are agents of the session's own, to which the main
	// agent may hand work; Agent, when set, names the one that runs the
	// session's turns.
	CustomAgents []CustomAgent
	Agent        string
	// SkillDirectories are directories of skills (SKILL.md files) the
	// agent may load, beside the CLI's own; DisabledSkills names skills it
	// may not. InstructionDirectories are more directories searched for
	// custom instruction files (AGENTS.md, copilot-instructions.md, …).
	SkillDirectories       []string
	DisabledSkills         []string
	InstructionDirectories []string
	// InfiniteSessions, when set, tunes or switches off the compaction
	// that keeps a long session within the model's context window.
	InfiniteSessions *InfiniteSessions

	// Provider, when set, is a model provider of your own (bring your own
	// key: OpenAI-compatible, Azure or Anthropic) that the session uses
	// instead of GitHub Copilot's; Model is then the provider's model.
	Provider *protocol.ProviderConfig
	// GitHubToken authenticates this session as the token's owner, instead
	// of the CLI's login.
	GitHubToken string

	// Permissions decides the CLI's permission requests. Default DenyAll.
	Permissions PermissionPolicy
	// Hooks are Go functions the CLI calls before and after tool calls,
	// when a prompt is submitted, and at other points; see Hooks.
	Hooks *Hooks
	// OnElicitation fills in the forms the CLI asks the user for
	// (elicitation.requested: from an MCP server's tool, or another client
	// calling session.ui.elicitation); setting it tells the CLI at creation
	// that this client can. It runs on a goroutine of its own, since a
	// person may take a while; its context ends when the CLI no longer
	// waits (the request was answered elsewhere or the turn aborted), the
	// session ends or the client closes, and it must return then. An error
	// or a nil response cancels the form.
	OnElicitation func(ctx context.Context, req *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error)

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
	// Trace (records), MaxToolCalls (per-turn limit; for calls between
	// Stream turns — a Send's turn, a background agent — per run up to
	// session.idle), Profile (only the
	// profile's tools are declared and callable), Stages (yours),
	// MaxToolOutputBytes (truncation).
	Trace              *ToolTrace
	MaxToolCalls       int
	Profile            string
	Profiles           map[string][]string
	Stages             []ToolStage
	MaxToolOutputBytes int

	// ExtraParams are session.create (and session.resume) params that no
	// field above names, by their wire name, for what the CLI reads and
	// this type does not type yet: {"enableCitations": true},
	// {"sessionLimits": …}, {"organizationCustomInstructions": "…"}. Each
	// value is sent as encoding/json marshals it. A name a field above
	// sends (model, tools, systemMessage, …) is refused: those come from
	// the fields.
	ExtraParams map[string]any
}

// InfiniteSessions tunes how the CLI keeps a long session within the
// model's context window: it compacts the conversation in the background
// once the window is BackgroundCompactionThreshold full (a fraction) and
// makes the session wait for compaction at BufferExhaustionThreshold.
// Zero thresholds are the CLI's defaults (0.80 and 0.95).
type InfiniteSessions struct {
	// Disabled switches compaction off: a session that fills the window
	// fails.
	Disabled                      bool
	BackgroundCompactionThreshold float64
	BufferExhaustionThreshold     float64
}

// reasoningEfforts are the values ReasoningEffort takes besides empty.
var reasoningEfforts = []string{"low", "medium", "high", "xhigh", "max"}

// askUserTool is the CLI's tool through which the model asks the user,
// with a userInput.request to the client.
const askUserTool = "ask_user"

// NoBuiltinTools(), as SessionConfig.BuiltinTools, switches the CLI's own
// tools off: no shell, no file writes, no web access. A function, not a
// variable, so that no code can set it to nil and turn every tool back on
// in the sessions of code that trusts it.
func NoBuiltinTools() []string { return []string{} }

// Validate reports the first field of cfg that NewSession refuses, naming
// it, in an error wrapping ErrInvalidSessionConfig: no Model, an ID beside
// AssignedID, a Profile missing from Profiles, a tool without a name or a
// handler, with parameters that are not JSON, or with the name of another,
// a negative MaxToolCalls or MaxToolOutputBytes (zero means no limit), a
// stage without Wrap; a ReasoningEffort or ReasoningSummary the CLI does
// not know; an unknown SystemMode, SystemReplace without a SystemMessage,
// SystemSections outside SystemCustomize or with an unknown action; an
// empty entry in ExcludedTools, DisabledSkills or a directory list; an MCP
// server that is
// neither local nor remote, or both; a custom agent without a name or a
// prompt, or named twice, or an Agent not among them; thresholds of
// InfiniteSessions outside 0 to 1, or in the wrong order; a Provider
// without BaseURL or of an unknown Type; Hooks or section Transforms
// beside the Handlers they would replace; an ExtraParams entry with an
// empty name, the name of a param a field sends, or a value encoding/json
// cannot marshal.
func (cfg SessionConfig) Validate() error {
	if cfg.Model == "" {
		return invalid(ErrInvalidSessionConfig, "Model is empty; list the available models with Client.Models")
	}
	if cfg.ID != "" && cfg.AssignedID {
		return invalid(ErrInvalidSessionConfig, "ID is %q and AssignedID is set; with AssignedID the CLI picks the id", cfg.ID)
	}
	if cfg.TurnInactivity < 0 {
		return invalid(ErrInvalidSessionConfig, "TurnInactivity is %v; it must not be negative (0 means no limit)", cfg.TurnInactivity)
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
	return cfg.validateAgentFields()
}

// validateAgentFields checks the fields that shape the CLI's agent: model
// options, system prompt, tools and agents, directories, provider, hooks.
func (cfg SessionConfig) validateAgentFields() error {
	if err := validateReasoningEffort("ReasoningEffort", cfg.ReasoningEffort); err != nil {
		return err
	}
	switch cfg.ReasoningSummary {
	case "", protocol.ReasoningSummaryNone, protocol.ReasoningSummaryConcise, protocol.ReasoningSummaryDetailed:
	default:
		return invalid(ErrInvalidSessionConfig, "ReasoningSummary %q is not none, concise or detailed", cfg.ReasoningSummary)
	}
	if err := cfg.validateSystemPrompt(); err != nil {
		return err
	}
	for _, l := range []struct {
		field string
		names []string
	}{
		{"ExcludedTools", cfg.ExcludedTools}, {"AdditionalDirectories", cfg.AdditionalDirectories},
		{"SkillDirectories", cfg.SkillDirectories}, {"DisabledSkills", cfg.DisabledSkills},
		{"InstructionDirectories", cfg.InstructionDirectories},
	} {
		if i := slices.Index(l.names, ""); i >= 0 {
			return invalid(ErrInvalidSessionConfig, "%s[%d] is empty", l.field, i)
		}
	}
	if err := validateMCPServers("MCPServers", cfg.MCPServers); err != nil {
		return err
	}
	if err := cfg.validateAgents(); err != nil {
		return err
	}
	if is := cfg.InfiniteSessions; is != nil {
		for _, th := range []struct {
			field string
			v     float64
		}{{"BackgroundCompactionThreshold", is.BackgroundCompactionThreshold}, {"BufferExhaustionThreshold", is.BufferExhaustionThreshold}} {
			if th.v < 0 || th.v > 1 {
				return invalid(ErrInvalidSessionConfig, "InfiniteSessions.%s is %v; it is a fraction of the context window, from 0 to 1 (0 means the CLI's default)", th.field, th.v)
			}
		}
		if b, x := is.BackgroundCompactionThreshold, is.BufferExhaustionThreshold; b > 0 && x > 0 && b > x {
			return invalid(ErrInvalidSessionConfig, "InfiniteSessions.BackgroundCompactionThreshold (%v) is above BufferExhaustionThreshold (%v); compaction must start before the session has to wait for it", b, x)
		}
	}
	if p := cfg.Provider; p != nil {
		switch {
		case p.BaseURL == "":
			return invalid(ErrInvalidSessionConfig, "Provider.BaseURL is empty; it is the provider's API endpoint")
		case !slices.Contains([]protocol.ProviderConfigType{"", protocol.ProviderConfigTypeOpenai, protocol.ProviderConfigTypeAzure, protocol.ProviderConfigTypeAnthropic}, p.Type):
			return invalid(ErrInvalidSessionConfig, "Provider.Type %q is not openai, azure or anthropic", p.Type)
		}
	}
	if cfg.Hooks.set() && cfg.Handlers.HooksInvoke != nil {
		return invalid(ErrInvalidSessionConfig, "Hooks and Handlers.HooksInvoke are both set; both would answer hooks.invoke")
	}
	_, err := cfg.extraParams()
	return err
}

// extraParams marshals ExtraParams for the create params, refusing an
// empty name, a name a field sends, and a value encoding/json cannot
// marshal.
func (cfg SessionConfig) extraParams() (map[string]json.RawMessage, error) {
	if len(cfg.ExtraParams) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(cfg.ExtraParams))
	for _, name := range slices.Sorted(maps.Keys(cfg.ExtraParams)) { // the first refusal is the same every time
		switch {
		case name == "":
			return nil, invalid(ErrInvalidSessionConfig, "ExtraParams has an empty name")
		case protocol.CreateParamNamed(name):
			return nil, invalid(ErrInvalidSessionConfig, "ExtraParams[%q] is a param the client sends itself, from SessionConfig's fields; it cannot be set here", name)
		}
		raw, err := json.Marshal(cfg.ExtraParams[name])
		if err != nil {
			return nil, invalid(ErrInvalidSessionConfig, "ExtraParams[%q] cannot be marshalled to JSON: %v", name, err)
		}
		out[name] = raw
	}
	return out, nil
}

// validateReasoningEffort checks a reasoning effort, named field in errors.
func validateReasoningEffort(field, effort string) error {
	if effort != "" && !slices.Contains(reasoningEfforts, effort) {
		return invalid(ErrInvalidSessionConfig, "%s %q is not one of %v", field, effort, reasoningEfforts)
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
		model:      cfg.Model,
		client:     c,
		r:          cn.r,
		tools:      make(map[string]Tool),
		policy:     cfg.Permissions,
		onEvent:    cfg.OnEvent,
		inactivity: cfg.TurnInactivity,
		handlers:   &cfg.Handlers,
		log:        c.log.With().Str("session", id).Logger(),
		turns:      newTurnState(),
	}
	if s.policy == nil {
		s.policy = DenyAll
	}
	h := &cfg.Handlers // s.handlers: what is set here, the session answers with
	if cfg.Hooks.set() {
		h.HooksInvoke = cfg.Hooks.invoker(s)
	}
	if t := sectionTransformer(cfg.SystemSections, s); t != nil {
		h.SystemMessageTransform = t
	}
	if cfg.OnElicitation != nil {
		s.onEvent = newElicitations(s, cfg.OnElicitation, cfg.OnEvent).onEvent
	}
	params = protocol.SessionCreateParams{
		SessionID:                      id,
		Model:                          cfg.Model,
		WorkingDirectory:               cfg.WorkingDirectory,
		Streaming:                      !cfg.DisableStreaming,
		IncludeSubAgentStreamingEvents: cfg.StreamSubAgents && !cfg.DisableStreaming,
		RequestPermission:              true,
		RequestUserInput:               h.UserInputRequest != nil,
		RequestExitPlanMode:            h.ExitPlanModeRequest != nil,
		RequestAutoModeSwitch:          h.AutoModeSwitchRequest != nil,
		Hooks:                          h.HooksInvoke != nil,
		RequestElicitation:             cfg.OnElicitation != nil,
		SystemMessage:                  cfg.systemMessage(),
	}
	cfg.agentParams(&params)
	// Marshalled again (Validate did once): a value whose marshalling
	// fails now is refused, not dropped.
	if params.Extra, err = cfg.extraParams(); err != nil {
		return nil, params, err
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
	// The client's logger: a stage's log line names the session from the
	// call, as an assigned id is not known yet.
	s.pipeline = buildPipeline(toolStages(cfg, allowed), s.invokeTool, c.log)
	return s, params, nil
}

// agentParams sets the create params of the fields that shape the CLI's
// agent; zero values leave the CLI's defaults (the field is not sent).
func (cfg SessionConfig) agentParams(p *protocol.SessionCreateParams) {
	p.ClientName = cfg.ClientName
	p.ReasoningEffort = cfg.ReasoningEffort
	p.ReasoningSummary = cfg.ReasoningSummary
	p.AdditionalDirectories = cfg.AdditionalDirectories
	p.ConfigDir = cfg.ConfigDirectory
	if len(cfg.ExcludedTools) > 0 {
		// The CLI ignores excludedTools beside availableTools unless told
		// to combine them; BuiltinTools and ExcludedTools both apply.
		p.ExcludedTools = cfg.ExcludedTools
		p.ToolFilterPrecedence = protocol.ToolFilterExcluded
	}
	p.MCPServers = wireMCPServers(cfg.MCPServers)
	p.CustomAgents = wireAgents(cfg.CustomAgents)
	if p.MCPServers != nil || slices.ContainsFunc(cfg.CustomAgents, func(a CustomAgent) bool { return len(a.MCPServers) > 0 }) {
		p.EnvValueMode = protocol.EnvValueDirect
	}
	p.Agent = cfg.Agent
	p.SkillDirectories = cfg.SkillDirectories
	p.DisabledSkills = cfg.DisabledSkills
	p.InstructionDirectories = cfg.InstructionDirectories
	if is := cfg.InfiniteSessions; is != nil {
		w := &protocol.InfiniteSessionConfig{}
		if is.Disabled {
			w.Enabled = new(bool)
		}
		if v := is.BackgroundCompactionThreshold; v > 0 {
			w.BackgroundCompactionThreshold = &v
		}
		if v := is.BufferExhaustionThreshold; v > 0 {
			w.BufferExhaustionThreshold = &v
		}
		p.InfiniteSessions = w
	}
	p.Provider = cfg.Provider
	p.GitHubToken = cfg.GitHubToken
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
