// Package connect is how a quorum command reaches models: the Copilot CLI
// found (--cli-path, $COPILOT_CLI_PATH, PATH) and started as a child and
// logged in, or with --sim the simulator in-process; the models it offers
// and the ones a command resolves to; its failures told in the command's
// terms. A Connection belongs to the one command that opened it; the
// client it holds may be used from several goroutines, as copilot's may.
package connect

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/quorum"
)

// Connection is a command's client to the CLI (or the simulator) and the
// context the command runs in: the command's own, bounded by --timeout.
// Every command that runs models opens one the same way (open).
type Connection struct {
	// Ctx is the command's context bounded by --timeout; Client talks
	// to the CLI; Close releases both.
	Ctx    context.Context
	parent context.Context
	Client *copilot.Client
	Close  func()
}

// Open bounds the command by --timeout and connects. The caller defers
// close, which releases the client and the timeout's timer.
func Open(inv *cmdutil.Invocation) (*Connection, error) {
	parent := inv.Cmd.Context()
	ctx, cancel := WithTimeout(inv, parent)
	c, closeClient, err := Connect(ctx, inv)
	if err != nil {
		cancel()
		return nil, TimedOut(ctx, parent, err)
	}
	return &Connection{Ctx: ctx, parent: parent, Client: c, Close: func() { closeClient(); cancel() }}, nil
}

// Early is err, an error of the command's set-up on cn (listing or
// resolving the models), or the --timeout that ended it before the run
// could begin, with what to do about it.
func (cn *Connection) Early(err error) error { return TimedOut(cn.Ctx, cn.parent, err) }

// WithTimeout is parent bounded by --timeout. The cause names the limit
// only: it is the error of every model the limit stopped, and the advice
// (raise --timeout) comes once, after.
func WithTimeout(inv *cmdutil.Invocation, parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(parent, inv.Settings.Timeout, fmt.Errorf(
		"%w: quorum %s took longer than --timeout (%v)", quorum.ErrTimeout, inv.Name, inv.Settings.Timeout))
}

// TimedOut is err, or, when the command's own time limit ended it before
// the run began (while connecting, or listing the models), that limit
// and what to do about it.
func TimedOut(ctx, parent context.Context, err error) error {
	if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s before it could begin; raise --timeout", strings.TrimPrefix(context.Cause(ctx).Error(), quorum.ErrTimeout.Error()+": "))
	}
	return err
}
