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
// does, so that what the CLI sends then — events of background agents,
// title changes, requests — is delivered to SessionConfig.OnEvent and
// answered at once, instead of waiting in the mailbox for the next turn
// (where a background session.idle would end that turn early) or, for a
// request, hanging the CLI.
//
// The dispatcher is a goroutine only while there is something to read:
// the channel's delivery hook (SetNotify: called by the router after each delivery) starts
// it, and it ends when the mailbox is empty, so an idle session holds no
// goroutine (BENCHMARKS.md: footprint per idle session). running says one
// is under way; it is cleared before the last look at the mailbox, so a
// message that arrives meanwhile either is seen by that look or finds
// running clear and starts another.
//
// own is the token of the reader. The dispatcher takes it without waiting
// (a turn that holds it reads what comes, and wakes the dispatcher when it
// gives it back) and yields it between messages as soon as a turn wants it
// (wanted).

// startDispatch hands the session's arrivals to the dispatcher, and reads
// what arrived before (session.start, as often as not).
func (s *Session) startDispatch() {
	s.ch.SetNotify(s.wake)
	s.wake()
}

// wake starts the dispatcher unless it runs, or the caller took the
// channel. It runs on the router's reader: it never blocks.
func (s *Session) wake() {
	// While a turn (or a dispatcher) holds the channel, it reads what came:
	// starting a goroutine only to find the channel taken would cost one
	// per event of every turn. The holder's release wakes us for what is
	// left; the delivery came before this look, so release sees it.
	if len(s.own) > 0 || s.handedOver.Load() || !s.running.CompareAndSwap(false, true) {
		return
	}
	if !s.client.spawn(s.readBetweenTurns) {
		s.running.Store(false) // the client is closed: a turn will say so
	}
}

// readBetweenTurns reads what is buffered while no turn wants the
// channel, then ends.
func (s *Session) readBetweenTurns() {
	for {
		took := s.readBuffered()
		s.running.Store(false)
		// Ending while messages wait is right only if a turn holds the
		// channel: its release wakes a dispatcher, and running, cleared
		// before this look, lets that wake start one.
		if !s.pending() || (!took && len(s.own) > 0) || s.client.ctx.Err() != nil {
			return // nothing to read, a turn will wake us, or the client closed
		}
		if !s.running.CompareAndSwap(false, true) {
			return
		}
	}
}

// pending says whether messages wait that the dispatcher should read.
func (s *Session) pending() bool {
	n, _ := s.ch.Buffered()
	return n > 0 && !s.handedOver.Load()
}

// readBuffered takes the channel, unless a turn has it (took is false),
// and handles what is buffered until the mailbox is empty or a turn wants
// the channel.
func (s *Session) readBuffered() (took bool) {
	select {
	case s.own <- struct{}{}:
	default:
		return false
	}
	defer func() { <-s.own }()
	for !s.handedOver.Load() && s.wanted.Load() == 0 && s.client.ctx.Err() == nil {
		m, ok, err := s.ch.TryReceive()
		if !ok || err != nil {
			break
		}
		s.between(s.client.ctx, m)
	}
	return true
}

// acquire takes the channel for a turn, waiting for the dispatcher to
// finish the message it handles.
func (s *Session) acquire(ctx context.Context) error {
	s.wanted.Add(1)
	defer s.wanted.Add(-1)
	select {
	case s.own <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives the channel back, and wakes the dispatcher for what came
// after the turn.
func (s *Session) release() {
	<-s.own
	if s.pending() {
		s.wake()
	}
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
		s.runBackgroundTool(ctx, t)
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
		s.background = nil
	}
}

// runBackgroundTool runs a tool call that came between turns (of a turn
// started with Send, or of a background agent), counted against
// SessionConfig.MaxToolCalls as a Stream turn's calls are. The first call
// past it aborts the session's work, which is then treated as an abandoned
// turn (dirty): what the CLI still asks is refused, and the next turn
// waits for the abort and drains to its session.idle (or, when none
// comes, for drainQuiet), so that the aborted work's end cannot end the
// new turn.
func (s *Session) runBackgroundTool(ctx context.Context, t *session.ToolRequest) {
	if s.dirty { // left from an abandoned turn, or from aborted work: its caller is gone
		s.answerTool(ctx, t, "", errors.New("the turn was abandoned"))
		return
	}
	if s.background == nil {
		s.background = &turnState{}
	}
	err := s.runTool(withTurn(ctx, s.background), t)
	if errors.Is(err, ErrToolLimit) && !s.background.aborted {
		s.background.aborted = true
		s.log.Warn().Err(err).Msg("the tool-call limit was passed between turns; aborting the session's work")
		s.dirty = true
		s.abortAfterCancel()
	}
}

// forwardEvent passes an event to SessionConfig.OnEvent, if set. A
// panicking handler is logged and the session goes on.
func (s *Session) forwardEvent(ev Event) {
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
		_ = m.ReplyError(ctx, jsonrpc2.CodeInvalidParams, err.Error())
		return
	}
	s.runBackgroundTool(ctx, t)
}
