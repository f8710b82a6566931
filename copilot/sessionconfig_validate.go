package copilot

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Validate reports the first field of cfg that NewSession refuses, naming
// it, in an error wrapping ErrInvalidSessionConfig: no Model (nor a
// Provider with a ModelID), an ID beside
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
func (cfg SessionConfig) Validate() error { return cfg.validate(false) }

// validate is Validate; resuming, a cfg without a Model is valid (the
// session keeps its own).
func (cfg SessionConfig) validate(resuming bool) error {
	if !resuming && cfg.Model == "" && (cfg.Provider == nil || cfg.Provider.ModelID == "") {
		return invalid(ErrInvalidSessionConfig, "Model is empty (and no Provider.ModelID names one); list the available models with Client.Models")
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
	if err := cfg.Sandbox.validate(); err != nil {
		return err
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
