package quorum

import (
	"context"
	"encoding/json"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// agentBuiltinTools are the CLI's built-in tools an executor is offered:
// the file tools, search, the shell, and web_fetch (which the gate denies
// unless URLs are allowed: offering it lets the denial be seen and told).
// Sub-agents, skills, SQL and memory are not offered.
var agentBuiltinTools = []string{"view", "create", "edit", "grep", "glob", "bash", "read_bash", "stop_bash", "list_bash", "web_fetch"}

// actingConfig is the session of an executor: the built-in tools in Dir,
// every permission request through Decide.
func actingConfig(o OpenOptions) copilot.SessionConfig {
	t := o.Tools
	return copilot.SessionConfig{
		Model:            o.Model,
		SystemMessage:    o.SystemMessage,
		WorkingDirectory: t.Dir,
		BuiltinTools:     agentBuiltinTools,
		Sandbox:          cliSandbox(t.Sandbox),
		Permissions: func(ctx context.Context, req copilot.PermissionRequest) (copilot.PermissionDecision, error) {
			d := t.Decide(ctx, actionOf(req))
			if d.Allow {
				return copilot.ApproveOnce(), nil
			}
			// Feedback keeps the turn going: the model reads why and goes on.
			return copilot.Reject("Denied by quorum's action gate: " + d.Reason), nil
		},
	}
}

// actionOf describes a permission request as an Action.
func actionOf(req copilot.PermissionRequest) Action {
	p := req.Request
	a := Action{Kind: req.Kind, Intention: p.Intention, Tool: req.ToolName}
	if p.RequestSandboxBypass != nil && *p.RequestSandboxBypass {
		a.SandboxBypass, a.SandboxBypassReason = true, p.RequestSandboxBypassReason
	}
	switch req.Kind {
	case copilot.PermissionKindRead:
		a.Paths = nonEmpty(p.Path)
	case copilot.PermissionKindWrite:
		a.Paths = nonEmpty(p.FileName)
	case copilot.PermissionKindShell:
		a.Command = p.FullCommandText
		a.Paths = append([]string{}, p.PossiblePaths...)
		for _, u := range p.PossibleUrls {
			if u.URL != "" && a.URL == "" {
				a.URL = u.URL
			}
		}
	case copilot.PermissionKindURL:
		a.URL = p.URL
	case copilot.PermissionKindMCP:
		a.Tool = p.ToolName
	}
	return a
}

// cliSandbox is the CLI's sandbox for sb; nil (unconfined) for nil.
func cliSandbox(sb *ToolSandbox) *copilot.Sandbox {
	if sb == nil {
		return nil
	}
	return &copilot.Sandbox{
		ReadWritePaths: sb.ReadWrite,
		ReadOnlyPaths:  sb.ReadOnly,
		DeniedPaths:    sb.Denied,
		AllowOutbound:  sb.AllowNetwork,
		AllowedHosts:   sb.AllowedHosts,
		AllowBypass:    sb.AllowBypass,
		MaskEnv:        sb.MaskEnv,
	}
}

// sandboxDecision reads a sandbox.decision event.
func sandboxDecision(ev copilot.Event) (SandboxDecision, bool) {
	if ev.Type != protocol.EventSandboxDecision {
		return SandboxDecision{}, false
	}
	var d protocol.SandboxDecisionData
	if ev.UnmarshalData(&d) != nil {
		return SandboxDecision{}, false
	}
	out := SandboxDecision{Kind: d.Kind, Control: string(d.Control), Outcome: string(d.Outcome)}
	if d.ToolCallID != nil {
		out.ToolCallID = *d.ToolCallID
	}
	var class string
	if json.Unmarshal(d.DenialClass, &class) == nil {
		out.DenialClass = class
	}
	return out, true
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// toolUse reads a tool event into a ToolUse, for ToolAccess.OnTool.
func toolUse(ev copilot.Event) (ToolUse, bool) {
	switch ev.Type {
	case protocol.EventToolExecutionStart:
		var d protocol.ToolExecutionStartData
		if ev.UnmarshalData(&d) != nil {
			return ToolUse{}, false
		}
		return ToolUse{ID: d.ToolCallID, Tool: d.ToolName, Arguments: cutToolText(string(d.Arguments))}, true
	case protocol.EventToolExecutionComplete:
		var d protocol.ToolExecutionCompleteData
		if ev.UnmarshalData(&d) != nil {
			return ToolUse{}, false
		}
		u := ToolUse{ID: d.ToolCallID, Done: true, OK: d.Success}
		switch {
		case d.Error != nil:
			u.Result = cutToolText(d.Error.Message)
		case d.Result != nil:
			u.Result = cutToolText(d.Result.Content)
		}
		return u, true
	}
	return ToolUse{}, false
}
