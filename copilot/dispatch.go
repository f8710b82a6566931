package copilot

import (
	"context"
	"errors"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// The dispatcher: between turns, a session's channel is read on a
// goroutine of its own, so that what the CLI sends then — events of
// background agents, title changes, requests — is delivered to
// SessionConfig.OnEvent and answered at once, instead of waiting in the
// channel for the next turn (where a background session.idle would end
// that turn early) or, for a request, hanging the CLI. When it runs, and
// how it hands the channel to a turn and back, is the handover type's
// (coordination.go); what it does with each message is here.

// startReading creates the session's hand-over, now that its channel is
// known, and starts reading between turns.
func (s *Session) startReading() {
	s.reader = newHandover(s.ch, s.client, s.between)
	s.reader.start()
}

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
		s.answerNotification(ctx, m)
		return
	}
	ev, err := m.Event()
	if err != nil {
		return
	}
	s.forwardEvent(ev)
	switch ev.Type {
	case protocol.EventAutoModeSwitchRequested:
		s.answerModelSwitch(ctx, ev)
	case protocol.EventExternalToolRequested:
		t, ok := session.ToolRequestOf(ev)
		if !ok {
			return
		}
		s.runToolBetweenTurns(ctx, t)
	case protocol.EventPermissionRequested:
		p, ok := session.PermissionRequestOf(ev)
		if !ok {
			return
		}
		if s.turns.unfinished {
			s.answerPermissionKind(ctx, p, permissionReject)
			return
		}
		s.askPolicy(ctx, p, nil, nil)
	case protocol.EventSessionIdle:
		s.turns.unfinished = false // what an abandoned turn left has been read
		s.turns.betweenTurns = nil
	}
}

// runToolBetweenTurns runs a tool call that came between turns (of a turn
// started with Send, or of a background agent), counted against
// SessionConfig.MaxToolCalls as a Stream turn's calls are. The first call
// past it aborts the session's work, which is then treated as an abandoned
// turn (unfinished): what the CLI still asks is refused, and the next turn
// waits for the abort and drains to its session.idle (or, when none
// comes, for drainQuiet), so that the aborted work's end cannot end the
// new turn.
func (s *Session) runToolBetweenTurns(ctx context.Context, t *session.ToolRequest) {
	if s.turns.unfinished { // left from an abandoned turn, or from aborted work: its caller is gone
		s.answerTool(ctx, t, "", forModel("the turn was abandoned"))
		return
	}
	if s.turns.betweenTurns == nil {
		s.turns.betweenTurns = &toolCount{}
	}
	err := s.runTool(withToolCount(ctx, s.turns.betweenTurns), t)
	if errors.Is(err, ErrToolLimit) && !s.turns.betweenTurns.aborted {
		s.turns.betweenTurns.aborted = true
		s.log.Warn().Err(err).Msg("the tool-call limit was passed between turns; aborting the session's work")
		s.turns.unfinished = true
		s.abortAfterCancel()
	}
}

// forwardEvent notes what the session must know of an event (its
// capabilities changing) and passes it to SessionConfig.OnEvent, if set. A
// panicking handler is logged and the session goes on.
func (s *Session) forwardEvent(ev Event) {
	s.noteCapabilities(ev)
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

// answerNotification passes a notification other than session.event that
// names the session (a host.sessionReleased, say) to its handler, if one is
// set.
func (s *Session) answerNotification(ctx context.Context, m session.Message) {
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
		_ = m.RespondError(ctx, jsonrpc2.CodeInvalidParams, err.Error())
		return
	}
	s.runToolBetweenTurns(ctx, t)
}
