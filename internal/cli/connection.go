package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/quorum"
)

// connection is a command's client to the CLI (or the simulator) and the
// context the command runs in: the command's own, bounded by --timeout.
// Every command that runs models opens one the same way (open).
type connection struct {
	ctx    context.Context
	parent context.Context
	client *copilot.Client
	close  func()
}

// open bounds the command by --timeout and connects. The caller defers
// close, which releases the client and the timeout's timer.
func open(inv *cmdutil.Invocation) (*connection, error) {
	parent := inv.Cmd.Context()
	ctx, cancel := withTimeout(inv, parent)
	c, closeClient, err := connect(ctx, inv)
	if err != nil {
		cancel()
		return nil, timedOut(ctx, parent, err)
	}
	return &connection{ctx: ctx, parent: parent, client: c, close: func() { closeClient(); cancel() }}, nil
}

// early is err, an error of the command's set-up on cn (listing or
// resolving the models), or the --timeout that ended it before the run
// could begin, with what to do about it.
func (cn *connection) early(err error) error { return timedOut(cn.ctx, cn.parent, err) }

// withTimeout is parent bounded by --timeout. The cause names the limit
// only: it is the error of every model the limit stopped, and the advice
// (raise --timeout) comes once, after.
func withTimeout(inv *cmdutil.Invocation, parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(parent, inv.Settings.Timeout, fmt.Errorf(
		"%w: quorum %s took longer than --timeout (%v)", quorum.ErrTimeout, inv.Name, inv.Settings.Timeout))
}

// timedOut is err, or, when the command's own time limit ended it before
// the run began (while connecting, or listing the models), that limit
// and what to do about it.
func timedOut(ctx, parent context.Context, err error) error {
	if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s before it could begin; raise --timeout", strings.TrimPrefix(context.Cause(ctx).Error(), quorum.ErrTimeout.Error()+": "))
	}
	return err
}
