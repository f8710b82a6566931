package router

import (
	"context"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/wire"
)

// replier answers incoming requests for the router, its sessions and their
// consumers alike (session.Replier). An answer that cannot be queued would
// leave the peer waiting forever on a request, so it stops the router
// instead (contract 4 in the package doc): the peer sees the connection end.
// It is a single pointer, so storing it in a session.Message allocates
// nothing.
type replier struct{ r *Router }

func (p replier) Reply(ctx context.Context, id jsonrpc2.ID, result any) error {
	return p.r.replied(p.r.conn.Reply(ctx, id, result))
}

func (p replier) ReplyWithError(ctx context.Context, id jsonrpc2.ID, e *jsonrpc2.Error) error {
	return p.r.replied(p.r.conn.ReplyWithError(ctx, id, e))
}

// replied checks the outcome of queueing an answer. A refusal for backlog
// is counted and stops the router, through the watcher: this may run on the
// reader, even under r.mu (a refusal while a held message is handed over),
// so it only records the cause and signals.
func (r *Router) replied(err error) error {
	if err == nil {
		return nil
	}
	r.count.repliesFailed.Add(1)
	if !errors.Is(err, wire.ErrWriteBacklog) {
		return err // a closed or broken stream: the router is stopping anyway
	}
	err = fmt.Errorf("router: an answer to a request could not be queued, so the peer would wait forever; the peer is not reading its answers: %w", err)
	r.replyOnce.Do(func() {
		r.replyErr = err
		close(r.replyFailed)
	})
	r.log.Warn().Err(err).Msg("router: stopping")
	return err
}
