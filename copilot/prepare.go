package copilot

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// prepare validates cfg and builds, on the current connection, the session
// value and the params that create or resume it.
func (c *Client) prepare(ctx context.Context, cfg SessionConfig) (*Session, wireCreateParams, error) {
	return c.prepareFor(ctx, cfg, false)
}

// prepareFor is prepare, for a resume when resuming (cfg's Model may then
// be empty: the session keeps its own).
func (c *Client) prepareFor(ctx context.Context, cfg SessionConfig, resuming bool) (*Session, wireCreateParams, error) {
	var params wireCreateParams
	if err := cfg.validate(resuming); err != nil {
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
	model := cfg.Model
	if model == "" && cfg.Provider != nil {
		model = cfg.Provider.ModelID // Validate allows no Model then
	}
	s := &Session{
		model:       model,
		client:      c,
		r:           cn.r,
		tools:       make(map[string]Tool),
		policy:      cfg.Permissions,
		policySlots: make(chan struct{}, maxPolicyCalls),
		onEvent:     cfg.OnEvent,
		inactivity:  cfg.TurnInactivity,
		handlers:    &cfg.Handlers,
		log:         c.log.With().Str("session", id).Logger(),
		turns:       newTurnState(),
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
	params.SessionCreateParams = protocol.SessionCreateParams{
		SessionID:                      id,
		Model:                          model,
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
	cfg.agentParams(&params.SessionCreateParams)
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
		if t.OverridesBuiltInTool {
			params.overrides = append(params.overrides, t.Name)
		}
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
	if p.SandboxConfig = cfg.Sandbox.wire(); p.SandboxConfig != nil {
		p.SandboxConfigSource = protocol.SandboxConfigSourceSessionFlag
	}
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

// wireCreateParams are session.create's (and session.resume's) params, with
// what protocol.ToolDefinition (typed by hand from CLI 1.0.102's traffic)
// does not carry: which client tools override a built-in tool of the same
// name (the schema's overridesBuiltInTool).
type wireCreateParams struct {
	protocol.SessionCreateParams
	overrides []string // names of tools with Tool.OverridesBuiltInTool
}

// MarshalJSON writes the params as protocol.SessionCreateParams does, each
// overriding tool with "overridesBuiltInTool": true.
func (p wireCreateParams) MarshalJSON() ([]byte, error) {
	b, err := p.SessionCreateParams.MarshalJSON()
	if err != nil || len(p.overrides) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(all["tools"], &tools); err != nil {
		return nil, err
	}
	for _, t := range tools {
		var name string
		if json.Unmarshal(t["name"], &name) == nil && slices.Contains(p.overrides, name) {
			t["overridesBuiltInTool"] = json.RawMessage("true")
		}
	}
	if all["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(all)
}
