package copilot

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// answer answers one request from the CLI (or passes a notification on)
// with h: the handler's result or error; without a handler, the
// protocol's decline where it has one, else an error naming where the
// handler is set. Every request gets an answer.
func answer(ctx context.Context, h *protocol.Handlers, m session.Message, log zerolog.Logger, setIn string) {
	res, err := handleSafely(ctx, h, m)
	if !m.IsRequest() {
		if err != nil && !errors.Is(err, protocol.ErrNoHandler) && !errors.Is(err, protocol.ErrUnknownMethod) {
			log.Warn().Err(err).Str("method", m.Method).Msg("handling a notification from the CLI")
		}
		return
	}
	var aerr error
	switch {
	case err == nil:
		aerr = m.Respond(ctx, res)
	case errors.Is(err, protocol.ErrNoHandler), errors.Is(err, protocol.ErrUnknownMethod):
		if d, ok := protocol.Decline(m.Method, m.Params); ok {
			aerr = m.Respond(ctx, d)
			break
		}
		aerr = m.RespondError(ctx, jsonrpc2.CodeMethodNotFound,
			fmt.Sprintf("this client has no handler for %s (set it in %s)", m.Method, setIn))
	case errors.Is(err, protocol.ErrInvalidParams):
		aerr = m.RespondError(ctx, jsonrpc2.CodeInvalidParams, err.Error())
	default:
		aerr = m.RespondError(ctx, jsonrpc2.CodeInternalError, err.Error())
	}
	if aerr != nil {
		log.Warn().Err(aerr).Str("method", m.Method).Msg("answering a request from the CLI")
	}
}

// handleSafely runs h's handler for m; a panic in it is its error.
func handleSafely(ctx context.Context, h *protocol.Handlers, m session.Message) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the handler for %s panicked: %v", m.Method, p)
		}
	}()
	return h.Handle(ctx, m.Method, m.Params)
}

// connectionMethods are the requests and notifications the client takes
// from the router when they name no session: every one the CLI may send.
var connectionMethods = append(append([]string{}, protocol.ClientMethods...),
	protocol.MethodUserInputRequest, protocol.MethodExitPlanModeRequest,
	protocol.MethodAutoModeSwitchRequest, protocol.MethodSystemMessageTransform)

// serveConnection answers, with Options.Handlers, what the CLI sends on
// r that names no session, until r stops. It subscribes before it returns,
// so nothing sent after it is missed.
func (c *Client) serveConnection(r *router.Router) error {
	sub, err := r.Subscribe(connectionMethods...)
	if err != nil {
		return err
	}
	started := c.goroutines.Go(func() {
		defer sub.Close()
		// A handler's context ends with the connection, not only with the
		// client: one blocked on it is released when the CLI goes away.
		ctx, end := c.untilConnectionEnds(c.ctx, r)
		defer end()
		for {
			m, err := sub.Receive(ctx)
			if err != nil {
				return // the router stopped, or the client closed
			}
			answer(ctx, &c.opts.Handlers, m, c.log, "copilot.Options.Handlers")
		}
	})
	if !started { // the client is closing
		sub.Close()
		return ErrClosed
	}
	return nil
}
