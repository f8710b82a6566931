package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// runner serves the session's accepted sends one after another, on a
// goroutine of the connection's. It exits when the queue is empty.
func (s *session) runner() {
	rec := &s.conn.srv.rec
	for {
		s.mu.Lock()
		if s.destroyed || len(s.queue) == 0 {
			s.running = false
			s.mu.Unlock()
			return
		}
		t := s.queue[0]
		s.queue = s.queue[1:]
		s.cur = t
		s.mu.Unlock()

		rec.turnStarted()
		s.runTurn(t)
		rec.turnEnded()

		s.mu.Lock()
		if s.cur == t {
			s.cur = nil
		}
		s.mu.Unlock()
		t.cancel()
	}
}

// assistantMessage is assistant.message's data. It always carries
// toolRequests, [] when there are none, as CLI 1.0.102 sends it; the
// protocol type alone would leave an empty list out.
type assistantMessage struct {
	protocol.AssistantMessageData
	ToolRequests []protocol.AssistantMessageToolRequest `json:"toolRequests"`
}

// runTurn plays one turn: user.message, then one round per model call
// (assistant.turn_start … assistant.turn_end, with tool calls in between),
// then assistant.idle and session.idle. Any error from emit means the turn was
// stopped and must return at once.
func (s *session) runTurn(t *turn) {
	if s.emit(t, protocol.EventUserMessage, protocol.UserMessageData{Content: t.prompt}) != nil {
		return
	}
	if s.conn.srv.opts.Unauthenticated {
		s.fail(t, "authentication", "not authenticated (simulated): run copilot login or set a token")
		return
	}
	s.mu.Lock()
	history := slices.Clone(s.history)
	canAsk := s.requestUserInput
	s.mu.Unlock()
	toolNames := make([]string, len(s.tools))
	for i, td := range s.tools {
		toolNames[i] = td.Name
	}

	var results []ToolResult
	for call := 0; ; call++ {
		if call > s.conn.srv.opts.MaxToolRounds {
			s.fail(t, "query", fmt.Sprintf("simulated model %q asked for tools more than %d times in one turn", s.model.ID, s.conn.srv.opts.MaxToolRounds))
			return
		}
		turnID := strconv.Itoa(call)
		if s.emit(t, protocol.EventAssistantTurnStart, protocol.AssistantTurnStartData{TurnID: turnID}) != nil {
			return
		}
		info := Turn{
			Model:         s.model.ID,
			SessionID:     s.id,
			Prompt:        t.prompt,
			SystemMessage: s.system,
			Number:        t.number,
			Call:          call,
			Tools:         slices.Clone(toolNames),
			CanAskUser:    canAsk,
			ToolResults:   slices.Clone(results),
			History:       slices.Clone(history),
		}
		started := time.Now()
		reply := callScript(s.model.Respond, info)
		messageID := uuid.NewString()
		if s.streamReply(t, reply, messageID) != nil {
			return
		}
		if reply.Failure != nil {
			s.fail(t, reply.Failure.Type, reply.Failure.Message)
			return
		}
		if reply.Hang {
			<-t.ctx.Done()
			return
		}

		requests := reply.toolRequests()
		if s.emit(t, protocol.EventAssistantMessage, assistantMessage{
			AssistantMessageData: protocol.AssistantMessageData{MessageID: messageID, Content: reply.Text},
			ToolRequests:         requests,
		}) != nil {
			return
		}
		u := reply.usage(info)
		if s.emit(t, protocol.EventAssistantUsage, protocol.AssistantUsageData{
			Model:        s.model.ID,
			InputTokens:  ptr(int64(u.InputTokens)),
			OutputTokens: ptr(int64(u.OutputTokens)),
			Duration:     ptr(time.Since(started).Milliseconds()),
			Cost:         ptr(1.0),
		}) != nil {
			return
		}

		for _, req := range requests {
			res, err := s.runTool(t, req)
			if errors.Is(err, errRejected) {
				s.endRejected(t, turnID)
				return
			}
			if err != nil {
				return
			}
			results = append(results, res)
		}
		if s.emit(t, protocol.EventAssistantTurnEnd, protocol.AssistantTurnEndData{TurnID: turnID}) != nil {
			return
		}
		if len(requests) > 0 {
			continue
		}
		if s.emit(t, protocol.EventAssistantIdle, protocol.AssistantIdleData{}) != nil {
			return
		}
		s.finish(t, func() {
			s.history = append(s.history, Exchange{Prompt: t.prompt, Reply: reply.Text})
		})
		return
	}
}

// toolRequests lists what assistant.message asks for: the AskUser question
// first (a call of the built-in AskUserTool), then the ToolCalls.
func (r Reply) toolRequests() []protocol.AssistantMessageToolRequest {
	calls := r.ToolCalls
	if r.AskUser != nil {
		calls = append([]ToolCall{r.AskUser.call()}, calls...)
	}
	requests := make([]protocol.AssistantMessageToolRequest, len(calls))
	for i, tc := range calls {
		id := tc.ID
		if id == "" {
			id = "call_" + uuid.NewString()[:8]
		}
		requests[i] = protocol.AssistantMessageToolRequest{
			ToolCallID: id,
			Name:       tc.Name,
			Arguments:  validJSON(tc.Arguments),
			Type:       protocol.AssistantMessageToolRequestTypeFunction,
		}
	}
	return requests
}

// streamReply waits the reply's delays and, for streaming sessions, emits a
// message_delta and a streaming_delta per piece (only the pieces before a
// Failure), all naming messageID, the id assistant.message will carry. The
// sub-agents' text goes first, each as its own message tagged with its
// agentId, so that it precedes everything of the main agent's message.
func (s *session) streamReply(t *turn, r Reply, messageID string) error {
	pieces := r.chunks(r.Text)
	n := len(pieces)
	if r.Failure != nil {
		n = min(max(r.Failure.AfterChunks, 0), n)
	}
	done := t.ctx.Done()
	if !sleep(done, r.FirstTokenDelay) {
		return errStopped
	}
	for _, sub := range r.SubAgents {
		if err := s.streamSubAgent(t, r, sub); err != nil {
			return err
		}
	}
	if !s.streaming {
		if !sleep(done, time.Duration(n)*r.ChunkDelay) {
			return errStopped
		}
		return nil
	}
	return s.streamPieces(t, "", messageID, pieces[:n], r.ChunkDelay, true)
}

// streamSubAgent plays one sub-agent's text: its deltas when the session
// streams, then its assistant.message, all with the sub-agent's agentId.
func (s *session) streamSubAgent(t *turn, r Reply, sub SubAgentText) error {
	messageID := uuid.NewString()
	pieces := r.chunks(sub.Text)
	if s.streaming {
		if err := s.streamPieces(t, sub.AgentID, messageID, pieces, r.ChunkDelay, false); err != nil {
			return err
		}
	} else if !sleep(t.ctx.Done(), time.Duration(len(pieces))*r.ChunkDelay) {
		return errStopped
	}
	return s.emitAgent(t, sub.AgentID, protocol.EventAssistantMessage, assistantMessage{
		AssistantMessageData: protocol.AssistantMessageData{MessageID: messageID, Content: sub.Text},
		ToolRequests:         []protocol.AssistantMessageToolRequest{},
	})
}

// streamPieces emits one message_delta per piece, and with progress a
// streaming_delta after each (the main agent's model stream reports its
// size; a sub-agent's deltas go without).
func (s *session) streamPieces(t *turn, agentID, messageID string, pieces []string, delay time.Duration, progress bool) error {
	total := 0
	for _, p := range pieces {
		total += len(p)
		if s.emitAgent(t, agentID, protocol.EventAssistantMessageDelta, protocol.AssistantMessageDeltaData{MessageID: messageID, DeltaContent: p}) != nil {
			return errStopped
		}
		if progress && s.emit(t, protocol.EventAssistantStreamingDelta, protocol.AssistantStreamingDeltaData{TotalResponseSizeBytes: int64(total)}) != nil {
			return errStopped
		}
		if !sleep(t.ctx.Done(), delay) {
			return errStopped
		}
	}
	return nil
}

// errRejected stops a turn whose permission request the client refused.
var errRejected = errors.New("sim: permission rejected")

// endRejected ends a turn after a refused permission the way CLI 1.0.102
// does: like an abort.
func (s *session) endRejected(t *turn, turnID string) {
	if s.emit(t, protocol.EventAssistantTurnEnd, protocol.AssistantTurnEndData{TurnID: turnID}) != nil ||
		s.emit(t, protocol.EventAbort, protocol.AbortData{Reason: protocol.AbortReasonUserInitiated}) != nil ||
		s.emit(t, protocol.EventAssistantIdle, protocol.AssistantIdleData{Aborted: ptr(true)}) != nil {
		return
	}
	s.finish(t, nil)
}

// fail ends the turn with session.error and session.idle.
func (s *session) fail(t *turn, errorType, message string) {
	if errorType == "" {
		errorType = "query"
	}
	if s.emit(t, protocol.EventSessionError, protocol.ErrorData{ErrorType: errorType, Message: message}) != nil {
		return
	}
	s.finish(t, nil)
}

// finish emits the ephemeral session.idle that ends a turn and, under the
// same lock, marks the session idle (and runs fn), so that a send that
// follows the idle event on the wire always finds the session idle.
func (s *session) finish(t *turn, fn func()) {
	s.emitThen(t, "", protocol.EventSessionIdle, protocol.IdleData{}, func() {
		if s.cur == t {
			s.cur = nil
		}
		if fn != nil {
			fn()
		}
	})
}

// validJSON returns raw, or raw as a JSON string when it is not valid JSON,
// or null when it is empty.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
