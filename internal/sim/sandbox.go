package sim

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The CLI's process sandbox, as the simulator plays it for its built-in
// tools when a session was created with sandboxConfig enabled, in CLI
// 1.0.102's words and events:
//
//   - view, create and edit of a path the policy does not allow are
//     refused before any permission request, with a sandbox.decision
//     access_denied event and the failure "Is a sandbox denied path."
//     (under a denied path, which wins over every grant), "Outside the
//     sandbox's writable paths." (a write outside the read-write paths,
//     or under a read-only one) or "Outside the sandbox's readable paths."
//     (a read outside both); the model reads sandboxBlocked.
//   - with allowBypass, such a call asks instead: a permission request
//     carrying requestSandboxBypass and the reason, then a
//     sandbox.decision bypass_decided (approved or declined). An approved
//     bypass still acts only inside the session's folder: the simulator
//     never touches anything else.
//   - bash, once allowed, emits the three records of a confined command
//     (policy_resolved, spawn_completed, enforcement_state); what the
//     sandbox does to a command — a detached one, a denied path it reads —
//     is in sandbox_shell.go. The simulator's commands touch nothing
//     outside the folder and open no connection.
//
// sandbox.getHostSupport answers that the host can run every feature.

// sandboxBlocked is what the model reads of a call the sandbox refused.
const sandboxBlocked = "<sandbox is active and blocked this command. Do not attempt workarounds (alternative paths, retries, fallback tools). If this command needs broader access, ask the user to update their sandbox policy, naming the path or host it blocked; some blocks (e.g. OS-level object namespaces) cannot be granted by policy at all, and need the sandbox bypassed or turned off.>"

// The failures of a refused file tool call, as CLI 1.0.102 words them.
const (
	sandboxDeniedPath  = "Is a sandbox denied path."
	sandboxNotWritable = "Outside the sandbox's writable paths."
	sandboxNotReadable = "Outside the sandbox's readable paths."
)

// sandboxRefusal is why the session's sandbox refuses a file tool's
// access to path: message, the bypass reason the CLI would give, and the
// denial class; ok false when it allows it.
type sandboxRefusal struct {
	message, reason, class string
	// grant is the policy edit the bypass request offers (a read outside
	// the readable paths, a write of a read-only path); nil for a denied
	// path, which no grant opens.
	grant *protocol.PermissionSandboxPathGrant
}

// sandboxCheck judges the access of a file tool call (name, args) under
// sb with cwd the session's folder; nil when allowed or not a file tool.
func sandboxCheck(sb *protocol.SandboxConfig, cwd, name string, args json.RawMessage) *sandboxRefusal {
	if sb == nil || !sb.Enabled {
		return nil
	}
	var a struct {
		Path string `json:"path"`
	}
	if name != ToolView && name != ToolCreate && name != ToolEdit {
		return nil
	}
	if json.Unmarshal(args, &a) != nil || a.Path == "" {
		return nil
	}
	p := a.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = realPath(p)
	var fs protocol.SandboxConfigUserPolicyFilesystem
	if sb.UserPolicy != nil && sb.UserPolicy.Filesystem != nil {
		fs = *sb.UserPolicy.Filesystem
	}
	rw := append([]string{}, fs.ReadwritePaths...)
	if cwd != "" && (sb.AddCurrentWorkingDirectory == nil || *sb.AddCurrentWorkingDirectory) {
		rw = append(rw, cwd)
	}
	write := name != ToolView
	class := "filesystem_read"
	if write {
		class = "filesystem_write"
	}
	switch {
	case underAny(fs.DeniedPaths, p):
		return &sandboxRefusal{message: sandboxDeniedPath, reason: a.Path + " is a sandbox denied path.", class: class}
	case write && underAny(fs.ReadonlyPaths, p):
		var removed []string
		for _, ro := range fs.ReadonlyPaths {
			if underAny([]string{ro}, p) {
				removed = append(removed, ro)
			}
		}
		return &sandboxRefusal{message: sandboxNotWritable, reason: a.Path + " is outside the sandbox's writable paths.", class: class,
			grant: &protocol.PermissionSandboxPathGrant{Path: p, Access: "readWrite", RemovedReadonlyPaths: removed}}
	case write && !underAny(rw, p):
		return &sandboxRefusal{message: sandboxNotWritable, reason: a.Path + " is outside the sandbox's writable paths.", class: class}
	case !write && !underAny(rw, p) && !underAny(fs.ReadonlyPaths, p):
		return &sandboxRefusal{message: sandboxNotReadable, reason: a.Path + " is outside the sandbox's readable paths.", class: class,
			grant: &protocol.PermissionSandboxPathGrant{Path: p, Access: "read"}}
	}
	return nil
}

// underAny reports whether p is one of dirs or below one (each resolved).
func underAny(dirs []string, p string) bool {
	for _, d := range dirs {
		d = realPath(filepath.Clean(d))
		rel, err := filepath.Rel(d, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// realPath resolves the symbolic links of p's longest existing prefix.
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// sandboxDecision is a sandbox.decision event's data as CLI 1.0.102 sends
// it on Linux.
func sandboxDecision(kind, control, outcome, callID string) protocol.SandboxDecisionData {
	return protocol.SandboxDecisionData{Kind: kind, Control: protocol.SandboxControl(control), Outcome: protocol.SandboxOutcome(outcome),
		ToolCallID: &callID, Platform: protocol.SandboxPlatformLinux}
}

// accessDenied is the access_denied record of a refused file tool call.
func accessDenied(callID, class string) protocol.SandboxDecisionData {
	d := sandboxDecision("access_denied", "filesystem", "denied", callID)
	d.EnforcementPoint = protocol.SandboxEnforcementPointBuiltinFilesystem
	d.DenialClass = jsonString(class)
	d.Attestation = jsonString("builtin_policy_checked")
	d.Confidence = ptr(protocol.SandboxDenialConfidencePolicyCorroborated)
	return d
}

// bypassDecided is the record of a bypass request's answer.
func bypassDecided(callID, class string, approved bool) protocol.SandboxDecisionData {
	outcome := "declined"
	if approved {
		outcome = "approved"
	}
	d := sandboxDecision("bypass_decided", "bypass", outcome, callID)
	d.EnforcementPoint = protocol.SandboxEnforcementPointBuiltinFilesystem
	d.Source = protocol.SandboxBypassSourcePromptUnavailable
	if approved {
		d.Source = protocol.SandboxBypassSourceUserPrompted
	}
	d.DenialClass = jsonString(class)
	d.Confidence = ptr(protocol.SandboxDenialConfidencePolicyCorroborated)
	return d
}

// confinedCommand are the records of a shell command run in the sandbox.
func confinedCommand(sb *protocol.SandboxConfig, callID string) []protocol.SandboxDecisionData {
	resolved := sandboxDecision("policy_resolved", "process", "resolved", callID)
	resolved.Backend = protocol.SandboxBackendBubblewrap
	resolved.PolicySource = protocol.SandboxPolicySourceUserPolicy
	resolved.EnforcementPoint = protocol.SandboxEnforcementPointShell
	resolved.ProxyMode = protocol.SandboxProxyModeNone
	resolved.AddCurrentWorkingDirectory = ptr(sb.AddCurrentWorkingDirectory == nil || *sb.AddCurrentWorkingDirectory)
	resolved.AllowBypass = ptr(sb.AllowBypass != nil && *sb.AllowBypass)
	out, local := true, true
	if n := sb.UserPolicy; n != nil && n.Network != nil {
		if n.Network.AllowOutbound != nil {
			out = *n.Network.AllowOutbound
		}
		if n.Network.AllowLocalNetwork != nil {
			local = *n.Network.AllowLocalNetwork
		}
	}
	resolved.AllowOutbound, resolved.AllowLocalNetwork = &out, &local
	var rw, ro, denied int64
	if *resolved.AddCurrentWorkingDirectory {
		rw++
	}
	if p := sb.UserPolicy; p != nil && p.Filesystem != nil {
		rw += int64(len(p.Filesystem.ReadwritePaths))
		ro, denied = int64(len(p.Filesystem.ReadonlyPaths)), int64(len(p.Filesystem.DeniedPaths))
	}
	resolved.ReadwritePathsCount, resolved.ReadonlyPathsCount, resolved.DeniedPathsCount = &rw, &ro, &denied
	resolved.GitAuth, resolved.GhAuth, resolved.KeychainAccess = ptr(false), ptr(false), ptr(false)
	spawned := sandboxDecision("spawn_completed", "process", "succeeded", callID)
	spawned.Backend, spawned.EnforcementPoint = protocol.SandboxBackendBubblewrap, protocol.SandboxEnforcementPointShell
	spawned.DurationMs = ptr(float64(0))
	engaged := sandboxDecision("enforcement_state", "process", "engaged", callID)
	engaged.Backend, engaged.EnforcementPoint = protocol.SandboxBackendBubblewrap, protocol.SandboxEnforcementPointShell
	engaged.Attestation = jsonString("spawn_succeeded")
	return []protocol.SandboxDecisionData{resolved, spawned, engaged}
}

// bypass marks a file tool's permission request as a bypass request, as
// CLI 1.0.102 asks for a refused call when the session allows bypass: with
// the reason and the grant that would let it through; a write's request
// then carries no diff, contents or edits (the CLI has not read the file).
func (r *sandboxRefusal) bypass(request any) any {
	switch q := request.(type) {
	case protocol.PermissionRequestRead:
		q.RequestSandboxBypass, q.RequestSandboxBypassReason, q.SandboxPathGrant = ptr(true), r.reason, r.grant
		return q
	case protocol.PermissionRequestWrite:
		q.RequestSandboxBypass, q.RequestSandboxBypassReason, q.SandboxPathGrant = ptr(true), r.reason, r.grant
		if r.grant == nil {
			return q
		}
		q.Diff, q.NewFileContents, q.FileEdits, q.CanOfferSessionApproval = "", "", nil, false
		// newFileContents is sent empty, which the typed request omits.
		var m map[string]any
		b, _ := json.Marshal(q)
		json.Unmarshal(b, &m)
		m["newFileContents"] = ""
		return m
	}
	return request
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// handleSandboxHostSupport answers sandbox.getHostSupport: the simulator
// plays a host that can run the sandbox and every feature of it.
func (c *Conn) handleSandboxHostSupport(*request) (any, error) {
	caps := []protocol.SandboxHostCapability{}
	for _, name := range []string{"network", "network_filtering", "denied_paths", "shell", "filesystem_enumeration"} {
		caps = append(caps, protocol.SandboxHostCapability{Name: protocol.SandboxHostCapabilityName(name), Supported: true})
	}
	return protocol.SandboxHostSupport{Supported: true, Capabilities: caps}, nil
}
