package quorum

import "context"

// CheckSandbox lets Chat.Agent check the host as Agent does: the chat's
// backend asks the backend it wraps.
func (cb *chatBackend) CheckSandbox(ctx context.Context) error { return CheckSandbox(ctx, cb.inner) }
