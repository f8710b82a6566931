package copilot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// An elicitation is a form the CLI wants the user to fill in. The CLI
// announces it as an elicitation.requested event and waits, its turn (or
// the MCP tool or client that asked) held, until a client answers with
// session.ui.handlePendingElicitation; elicitation.completed follows,
// whoever answered.
//
// Unlike the session's other handlers, SessionConfig.OnElicitation does not
// run on the goroutine that reads the session: a person filling in a form
// may take minutes, and meanwhile the session must go on reading — to see
// elicitation.completed when another client answered or the turn was
// aborted (which ends the handler's context), and so that a cancelled
// Stream returns at once. Each pending form has one goroutine (and one
// that ends it with the session); there are at most maxElicitations per
// session, since a form past them is cancelled at once.

// maxElicitations bounds the forms of one session whose handlers run at
// once. The CLI asks one at a time per tool call; more means something is
// wrong, and answering "cancel" is what a user who cannot be asked says.
const maxElicitations = 8

// elicitationAnswerTimeout bounds the answer that cancels a form past
// maxElicitations, sent from the reading goroutine.
const elicitationAnswerTimeout = 5 * time.Second

// elicitations answers one session's elicitation.requested events with
// its handler. Its onEvent is the session's OnEvent: it sees every event
// (during turns and between them) and passes it on to the caller's.
type elicitations struct {
	s    *Session
	fn   func(context.Context, *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error)
	next func(Event) // SessionConfig.OnEvent, or nil

	mu      sync.Mutex
	pending map[string]context.CancelFunc // by request id
}

func newElicitations(s *Session, fn func(context.Context, *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error), next func(Event)) *elicitations {
	return &elicitations{s: s, fn: fn, next: next, pending: map[string]context.CancelFunc{}}
}

// onEvent starts a form's handler, or ends it when the CLI no longer
// waits, then passes the event on.
func (e *elicitations) onEvent(ev Event) {
	switch ev.Type {
	case protocol.EventElicitationRequested:
		var d protocol.ElicitationRequestedData
		if ev.UnmarshalData(&d) == nil && d.RequestID != "" {
			e.start(&d)
		}
	case protocol.EventElicitationCompleted:
		var d protocol.ElicitationCompletedData
		if ev.UnmarshalData(&d) == nil {
			e.end(d.RequestID)
		}
	}
	if e.next != nil {
		e.next(ev)
	}
}

// start runs the handler of one form on a goroutine of its own.
func (e *elicitations) start(d *protocol.ElicitationRequestedData) {
	e.mu.Lock()
	if _, running := e.pending[d.RequestID]; running {
		e.mu.Unlock()
		return
	}
	if len(e.pending) >= maxElicitations {
		e.mu.Unlock()
		e.s.log.Warn().Str("request", d.RequestID).Int("pending", maxElicitations).Msg("too many forms pending; cancelling the elicitation")
		ctx, cancel := context.WithTimeout(e.s.client.ctx, elicitationAnswerTimeout)
		defer cancel()
		e.answer(ctx, d.RequestID, nil)
		return
	}
	// The handler's context ends when the form is answered elsewhere, and
	// when the session's channel ends (scope.go): the session gone, its
	// connection lost, its client closed; context.Cause says which.
	ctx, cancel := context.WithCancel(e.s.ch.Context())
	e.pending[d.RequestID] = cancel
	e.mu.Unlock()
	ran := e.s.client.spawn(func() {
		defer e.end(d.RequestID)
		res, err := e.ask(ctx, d)
		if ctx.Err() != nil {
			return // answered elsewhere, or no one is left to answer
		}
		if err != nil {
			e.s.log.Warn().Err(err).Str("request", d.RequestID).Msg("SessionConfig.OnElicitation failed; cancelling the form")
			res = nil
		}
		e.answer(ctx, d.RequestID, res)
	})
	if !ran {
		e.end(d.RequestID) // the client is closed
	}
}

// end ends the handler of a form, if it runs.
func (e *elicitations) end(id string) {
	e.mu.Lock()
	cancel := e.pending[id]
	delete(e.pending, id)
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// ask runs the handler; its panic is its error.
func (e *elicitations) ask(ctx context.Context, d *protocol.ElicitationRequestedData) (res *protocol.UIElicitationResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("SessionConfig.OnElicitation panicked: %v", p)
		}
	}()
	return e.fn(ctx, d)
}

// answer gives the CLI the response to a form; nil cancels it.
func (e *elicitations) answer(ctx context.Context, id string, res *protocol.UIElicitationResponse) {
	if res == nil || res.Action == "" {
		res = &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionCancel}
	}
	_, err := e.s.RPC().UI.HandlePendingElicitation(ctx, protocol.SessionUIHandlePendingElicitationParams{RequestID: id, Result: *res})
	e.s.logAnswer(err, "answering an elicitation")
}
