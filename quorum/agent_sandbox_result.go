package quorum

// SandboxInfo is the confinement an agent's executor ran under, as
// AgentResult.Sandbox records it, and what the sandbox stopped.
type SandboxInfo struct {
	// Enabled is true when the executor's commands ran in the sandbox;
	// Unconfined is true when the user opted out (SandboxPolicy.Unconfined,
	// --no-sandbox): they ran with the user's full rights.
	Enabled    bool `json:"enabled"`
	Unconfined bool `json:"unconfined"`
	// ReadWrite, ReadOnly and Denied are the paths of the policy.
	ReadWrite []string `json:"readWrite"`
	ReadOnly  []string `json:"readOnly"`
	Denied    []string `json:"denied"`
	// Network is "blocked", "allowed" or "hosts" (only AllowedHosts).
	Network      string   `json:"network"`
	AllowedHosts []string `json:"allowedHosts"`
	// MaskedEnv are the environment variables commands saw a placeholder
	// for.
	MaskedEnv []string `json:"maskedEnv"`
	// Warnings say where the confinement is weaker than the policy wants.
	Warnings []string `json:"warnings"`
	// Decisions are the sandbox's own records (the Copilot CLI's
	// sandbox.decision events), in order: policies resolved, commands
	// confined, accesses denied, bypasses declined.
	Decisions []SandboxDecision `json:"decisions"`
}

// Network values of SandboxInfo.
const (
	NetworkBlocked = "blocked"
	NetworkAllowed = "allowed"
	NetworkHosts   = "hosts"
)

// SandboxDecision is one record of the provider's sandbox (for Copilot,
// a sandbox.decision event).
type SandboxDecision struct {
	// Round and Step are the executor's turn, as in ActionRecord.
	Round string `json:"round"`
	Step  int    `json:"step"`
	// Kind is the record's kind: "policy_resolved", "spawn_completed",
	// "enforcement_state", "access_denied", "bypass_decided", …
	Kind string `json:"kind"`
	// Control is what it governs ("process", "filesystem", "network",
	// "bypass", …); Outcome its result ("resolved", "engaged", "denied",
	// "declined", …).
	Control string `json:"control"`
	Outcome string `json:"outcome"`
	// DenialClass says what a denial refused ("filesystem_read",
	// "filesystem_write", "network", …).
	DenialClass string `json:"denialClass,omitempty"`
	// ToolCallID names the tool call it concerns, as ToolUse.ID does.
	ToolCallID string `json:"toolCallId,omitempty"`
}

// sandboxInfo describes sb (nil: unconfined) for the result.
func sandboxInfo(sb *ToolSandbox, warnings []string) *SandboxInfo {
	if sb == nil {
		return &SandboxInfo{Unconfined: true, Network: NetworkAllowed}
	}
	info := &SandboxInfo{
		Enabled:      true,
		ReadWrite:    sb.ReadWrite,
		ReadOnly:     sb.ReadOnly,
		Denied:       sb.Denied,
		AllowedHosts: sb.AllowedHosts,
		MaskedEnv:    sb.MaskEnv,
		Warnings:     warnings,
		Network:      NetworkBlocked,
	}
	switch {
	case len(sb.AllowedHosts) > 0:
		info.Network = NetworkHosts
	case sb.AllowNetwork:
		info.Network = NetworkAllowed
	}
	return info
}

func (s *SandboxInfo) fillLists() {
	if s == nil {
		return
	}
	s.ReadWrite = nonNil(s.ReadWrite)
	s.ReadOnly = nonNil(s.ReadOnly)
	s.Denied = nonNil(s.Denied)
	s.AllowedHosts = nonNil(s.AllowedHosts)
	s.MaskedEnv = nonNil(s.MaskedEnv)
	s.Warnings = nonNil(s.Warnings)
	s.Decisions = nonNil(s.Decisions)
}
