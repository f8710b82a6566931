package cli

import (
	"context"
	"errors"
)

// Placeholders until the quorum package lands.
func runDiscuss(ctx context.Context, inv *invocation) error { return errors.New("not yet") }
func runPlan(ctx context.Context, inv *invocation) error    { return errors.New("not yet") }
