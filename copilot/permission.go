package copilot

import "context"

// PermissionRequest is what a PermissionPolicy decides: the CLI asking
// whether an action may go ahead (a client tool call, a shell command, a
// file write), taken from its permission.requested event.
type PermissionRequest struct {
	SessionID string
	// Kind is the CLI's permission kind, e.g. "custom-tool" or "shell".
	Kind     string
	ToolName string
	// Details is the CLI's whole request, as JSON.
	Details []byte
}

// PermissionPolicy decides permission requests. Returning false, or an
// error, denies.
type PermissionPolicy func(ctx context.Context, req PermissionRequest) (bool, error)

// DenyAll denies every request. It is the default policy.
func DenyAll(context.Context, PermissionRequest) (bool, error) { return false, nil }

// ApproveAll approves every request. Choose it explicitly, and only for
// sessions whose tools you trust the model with.
func ApproveAll(context.Context, PermissionRequest) (bool, error) { return true, nil }

// Permission result kinds the CLI accepts.
const (
	permissionApproveOnce = "approve-once"
	permissionReject      = "reject"
)
