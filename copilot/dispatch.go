package copilot

import (
	"context"
	"errors"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// A session's channel has one reader at a time. While a turn runs
// (Stream), the turn reads it; between turns, the session's dispatcher
// goroutine does, so that what the CLI sends then — events of background
// agents, title changes, requests — is delivered to SessionConfig.OnEvent
// and answered at once, instead of waiting in the mailbox for the next turn
// (where a background session.idle would end that turn early) or, for a
// request, hanging the CLI.
//
// own is the token of the reader: the dispatcher holds it while it reads,
// a turn takes it (acquire) by cancelling the dispatcher's read and waiting
// for the token. The dispatcher sets its cancel func and checks whether a
// turn is waiting under the one lock a turn uses to cancel it, so either
// the turn cancels the read or the dispatcher sees the turn and yields:
// none is missed.

// startDispatch starts the session's dispatcher; Close of the client waits
// for it, and it ends with the session's channel.
func (s *Session) startDispatch() {
	if !s.client.background(s.readBetweenTurns) {
		// The client is closed: the channel has failed already, and a turn
		// will say so. Nothing is left to dispatch.
		return
	}
}

// readBetweenTurns reads the channel whenever no turn does, until the channel ends
// or the caller takes it (Channel).
func (s *Session) readBetweenTurns() {
	for {
		select {
		case s.own <- struct{}{}:
		case <-s.ch.Done():
			return
		}
		ctx, cancel := context.WithCancel(s.client.ctx)
		s.mu.Lock()
		s.readCancel = cancel
		yield := s.wanted > 0
		handedOver := s.handedOver
		s.mu.Unlock()
		var err error
		for !yield && !handedOver && err == nil && ctx.Err() == nil {
			var m session.Message
			if m, err = s.ch.Receive(ctx); err == nil {
				s.between(ctx, m)
			}
		}
		s.mu.Lock()
		s.readCancel = nil
		handedOver = s.handedOver
		s.mu.Unlock()
		cancel()
		<-s.own
		if handedOver || (err != nil && !errors.Is(err, context.Canceled)) || s.client.ctx.Err() != nil {
			return // the caller reads, the channel ended, or the client closed
		}
	}
}

// acquire takes the channel from the dispatcher, for a turn.
func (s *Session) acquire(ctx context.Context) error {
	s.mu.Lock()
	s.wanted++
	if s.readCancel != nil {
		s.readCancel()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.wanted--
		s.mu.Unlock()
	}()
	select {
	case s.own <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives the channel back to the dispatcher.
func (s *Session) release() { <-s.own }

// between handles one message read while no turn runs: a request is
// answered; an event goes to OnEvent, and what the CLI waits for is
// answered — a tool call or a permission request of a background agent, or
// one left over from an abandoned turn (refused: its caller is gone).
func (s *Session) between(ctx context.Context, m session.Message) {
	if m.IsRequest() {
		s.answerRequest(ctx, m)
		return
	}
	if m.Method != protocol.NotificationSessionEvent {
		s.notified(ctx, m)
		return
	}
	ev, err := m.Event()
	if err != nil {
		return
	}
	s.notify(ev)
	switch ev.Type {
	case protocol.EventAutoModeSwitchRequested:
		s.answerModelSwitch(ctx, ev)
	case protocol.EventExternalToolRequested:
		t, ok := session.ToolRequestOf(ev)
		if !ok {
			return
		}
		if s.dirty {
			s.answerTool(ctx, t, "", errors.New("the turn was abandoned"))
			return
		}
		_ = s.runTool(ctx, t)
	case protocol.EventPermissionRequested:
		p, ok := session.PermissionRequestOf(ev)
		if !ok {
			return
		}
		if s.dirty {
			s.answerPermissionKind(ctx, p, permissionReject)
			return
		}
		s.answerPermission(ctx, p)
	case protocol.EventSessionIdle:
		s.dirty = false // what an abandoned turn left has been read
	}
}

// notify passes an event to SessionConfig.OnEvent, if set. A panicking
// handler is logged and the session goes on.
func (s *Session) notify(ev Event) {
	if s.onEvent == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Interface("panic", p).Str("event", ev.Type).Msg("SessionConfig.OnEvent panicked")
		}
	}()
	s.onEvent(ev)
}

// notified passes a notification other than session.event that names the
// session (a host.sessionReleased, say) to its handler, if one is set.
func (s *Session) notified(ctx context.Context, m session.Message) {
	answer(ctx, s.handlers, m, s.log, "copilot.SessionConfig.Handlers")
}

// answerRequest answers one request from the CLI to this session (see
// answer), a protocol-2 tool call through the session's tools.
func (s *Session) answerRequest(ctx context.Context, m session.Message) {
	if m.Method == protocol.MethodToolCall {
		s.answerLegacyToolCall(ctx, m)
		return
	}
	answer(ctx, s.handlers, m, s.log, "copilot.SessionConfig.Handlers")
}

// answerLegacyToolCall runs a protocol-2 tool.call that came between turns.
func (s *Session) answerLegacyToolCall(ctx context.Context, m session.Message) {
	t, err := session.ParseToolCall(m)
	if err != nil {
		_ = m.ReplyError(ctx, jsonrpc2.CodeInvalidParams, err.Error())
		return
	}
	if s.dirty {
		s.answerTool(ctx, t, "", errors.New("the turn was abandoned"))
		return
	}
	_ = s.runTool(ctx, t)
}
