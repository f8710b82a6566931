package session

import (
	"encoding/json"
	"fmt"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// PermissionRequest is the CLI asking whether an action may go ahead (a
// client tool call, a shell command, a file read or write, a fetch), taken
// from its permission.requested event; the answer is a
// session.permissions.handlePendingPermissionRequest call naming
// RequestID. It is the one type for it at every level: Next returns it in
// Step.Permission, and package copilot's PermissionPolicy decides it (as
// copilot.PermissionRequest). protocol.PermissionRequest, the schema's
// union of every kind's fields, is what Request holds.
type PermissionRequest struct {
	// SessionID is the session that asks.
	SessionID string
	// RequestID is the CLI's id for the request, which the answer names.
	RequestID string
	// Kind is the request's kind: "shell", "write", "read", "url", "mcp",
	// … (package copilot names each: its PermissionKind… constants), or a
	// kind newer than this package.
	Kind string
	// ToolName names the tool of a custom-tool, mcp or hook request.
	ToolName string
	// Request is the whole request, decoded into the schema's union of
	// every kind's fields; Decode gives the fields of its kind alone.
	Request protocol.PermissionRequest
	// Details is the CLI's whole request, as JSON.
	Details []byte
}

// PermissionRequestOf reads a permission.requested event; ok is false for
// one that names no request to answer, and for one a permissionRequest
// hook already resolved (resolvedByHook: the CLI wants no answer, and a
// policy asked again could contradict the hook). SessionID is left empty:
// the event does not carry it (Next sets it to the channel's).
func PermissionRequestOf(ev Event) (*PermissionRequest, bool) {
	var p struct {
		RequestID      string          `json:"requestId"`
		Details        json.RawMessage `json:"permissionRequest"`
		ResolvedByHook bool            `json:"resolvedByHook"`
	}
	if ev.UnmarshalData(&p) != nil || p.RequestID == "" || p.ResolvedByHook {
		return nil, false
	}
	// Kind and ToolName on their own: a field of another kind's shape that
	// fails Request's decoding must not lose them.
	var d struct {
		Kind     string `json:"kind"`
		ToolName string `json:"toolName"`
	}
	_ = json.Unmarshal(p.Details, &d)
	r := &PermissionRequest{RequestID: p.RequestID, Kind: d.Kind, ToolName: d.ToolName, Details: p.Details}
	// A field of the wrong shape leaves the rest decoded; Details keeps all.
	_ = json.Unmarshal(p.Details, &r.Request)
	return r, true
}

// Decode returns the request as the type of its kind: a
// *protocol.PermissionRequestShell for "shell", *PermissionRequestWrite
// for "write", and so on for every kind the schema defines. A kind this
// package does not know returns the raw request, as json.RawMessage, and
// no error.
func (r PermissionRequest) Decode() (any, error) {
	v := newPermissionRequest(r.Kind)
	if v == nil {
		return json.RawMessage(r.Details), nil
	}
	if err := json.Unmarshal(r.Details, v); err != nil {
		// Worded as before the type moved here: policies, package
		// copilot's, are who call it.
		return nil, fmt.Errorf("copilot: decoding a %s permission request: %w", r.Kind, err)
	}
	return v, nil
}

// newPermissionRequest returns a new value of the type of a permission
// request kind, or nil for a kind the schema does not define.
func newPermissionRequest(kind string) any {
	switch kind {
	case "shell":
		return new(protocol.PermissionRequestShell)
	case "write":
		return new(protocol.PermissionRequestWrite)
	case "read":
		return new(protocol.PermissionRequestRead)
	case "url":
		return new(protocol.PermissionRequestURL)
	case "mcp":
		return new(protocol.PermissionRequestMCP)
	case "memory":
		return new(protocol.PermissionRequestMemory)
	case "custom-tool":
		return new(protocol.PermissionRequestCustomTool)
	case "hook":
		return new(protocol.PermissionRequestHook)
	case "extension-management":
		return new(protocol.PermissionRequestExtensionManagement)
	case "extension-permission-access":
		return new(protocol.PermissionRequestExtensionPermissionAccess)
	case "extension-env-access":
		return new(protocol.PermissionRequestExtensionEnvAccess)
	case "workflow":
		return new(protocol.PermissionRequestWorkflow)
	}
	return nil
}
