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

// runTurn plays one turn: with hooks, sessionStart (the session's first
// send) and userPromptSubmitted, which may rewrite or block the prompt;
// user.message; then one round per model call (assistant.turn_start …
// assistant.turn_end, with tool calls in between); then, with hooks,
// agentStop; then assistant.idle and session.idle. Any error from emit
// means the turn was stopped and must return at once.
func (s *session) runTurn(t *turn) {
	cfg := s.settings()
	prompt := t.prompt
	if cfg.hooks {
		var blocked bool
		var err error
		if prompt, blocked, err = s.promptHooks(t); err != nil || blocked {
			return
		}
	}
	msg := protocol.UserMessageData{Content: t.prompt}
	if prompt != t.prompt {
		msg.TransformedContent = prompt
	}
	if s.emit(t, protocol.EventUserMessage, msg) != nil {
		return
	}
	if s.conn.srv.opts.Unauthenticated {
		s.fail(t, protocol.ErrorData{ErrorType: "authentication", Message: "not authenticated (simulated): run copilot login or set a token"})
		return
	}
	s.mu.Lock()
	history := slices.Clone(s.history)
	if s.lastModel != "" && s.lastModel != s.cfg.model {
		prompt = switchNotice(s.lastModel, s.cfg.model) + prompt
	}
	s.mu.Unlock()

	var results []ToolCallResult
	var elicited *ElicitationAnswer
	for call := 0; ; call++ {
		if call > s.conn.srv.opts.MaxToolRounds {
			s.fail(t, protocol.ErrorData{ErrorType: "query", Message: fmt.Sprintf("simulated model %q asked for tools more than %d times in one turn", cfg.model, s.conn.srv.opts.MaxToolRounds)})
			return
		}
		turnID := strconv.Itoa(call)
		if s.emit(t, protocol.EventAssistantTurnStart, protocol.AssistantTurnStartData{TurnID: turnID}) != nil {
			return
		}
		// Each model call asks for the session's model and tools as they
		// are now: a switch or a resume during the turn takes effect at
		// the next call.
		s.mu.Lock()
		cfg = s.cfg
		s.lastModel = cfg.model
		s.mu.Unlock()
		model := s.conn.srv.scriptFor(cfg.model)
		if model == nil {
			s.fail(t, protocol.ErrorData{ErrorType: "query", StatusCode: ptr[int64](404),
				Message: fmt.Sprintf("Execution failed: 404 the simulator serves no model %q", cfg.model)})
			return
		}
		toolNames := make([]string, len(cfg.tools))
		for i, td := range cfg.tools {
			toolNames[i] = td.Name
		}
		info := Turn{
			Model:            cfg.model,
			SessionID:        s.id,
			Prompt:           prompt,
			SystemMessage:    s.system,
			Number:           t.number,
			Call:             call,
			Tools:            toolNames,
			Builtins:         cfg.offeredBuiltins(),
			WorkingDirectory: s.cwd,
			CanAskUser:       cfg.requestUserInput,
			ToolResults:      slices.Clone(results),
			History:          slices.Clone(history),
			Elicitation:      elicited,
		}
		started := time.Now()
		reply := callScript(model.Respond, info)
		messageID := uuid.NewString()
		if s.streamReply(t, cfg, reply, messageID) != nil {
			return
		}
		if f := reply.Failure; f != nil {
			data := protocol.ErrorData{ErrorType: f.Type, Message: f.Message, ErrorCode: f.ErrorCode}
			if f.StatusCode != 0 {
				data.StatusCode = ptr(int64(f.StatusCode))
			}
			if f.AutoModeSwitch {
				s.rateLimited(t, cfg, turnID, data, f.RetryAfterSeconds)
				return
			}
			s.fail(t, data)
			return
		}
		if reply.Hang {
			<-t.ctx.Done()
			return
		}
		if reply.Crash {
			// Closing the transport ends the read loop, and with it the
			// connection, which stops this turn.
			s.conn.CloseAbruptly()
			<-t.ctx.Done()
			return
		}

		requests := reply.toolRequests()
		t.permissions = reply.permissions(requests)
		if s.emit(t, protocol.EventAssistantMessage, assistantMessage{
			AssistantMessageData: protocol.AssistantMessageData{MessageID: messageID, Content: reply.Text},
			ToolRequests:         requests,
		}) != nil {
			return
		}
		u := reply.usage(info)
		if s.emit(t, protocol.EventAssistantUsage, protocol.AssistantUsageData{
			Model:        cfg.model,
			InputTokens:  ptr(int64(u.InputTokens)),
			OutputTokens: ptr(int64(u.OutputTokens)),
			Duration:     ptr(time.Since(started).Milliseconds()),
			Cost:         ptr(model.multiplier()), // per model request, as CLI 1.0.102 counts
		}) != nil {
			return
		}

		for _, req := range requests {
			res, err := s.runTool(t, cfg, req)
			if errors.Is(err, errRejected) {
				s.endRejected(t, turnID)
				return
			}
			if err != nil {
				return
			}
			results = append(results, res)
		}
		if reply.Elicit != nil {
			a, err := s.elicit(t, cfg, *reply.Elicit)
			if err != nil {
				return
			}
			elicited = &a
		}
		if s.emit(t, protocol.EventAssistantTurnEnd, protocol.AssistantTurnEndData{TurnID: turnID}) != nil {
			return
		}
		if len(requests) > 0 || reply.Elicit != nil {
			continue
		}
		if cfg.hooks && s.agentStopHook(t) != nil {
			return
		}
		if s.emit(t, protocol.EventAssistantIdle, protocol.AssistantIdleData{}) != nil {
			return
		}
		s.finish(t, func() {
			s.history = append(s.history, Exchange{Prompt: prompt, Response: reply.Text})
		})
		return
	}
}

// toolRequests lists what assistant.message asks for: the AskUser question
// first (a call of the built-in AskUserTool), then the ToolCalls.
func (r Response) toolRequests() []protocol.AssistantMessageToolRequest {
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

// permissions maps the toolCallIds of requests (toolRequests' list) to
// their ToolCall.Permission, for the calls that have one.
func (r Response) permissions(requests []protocol.AssistantMessageToolRequest) map[string]json.RawMessage {
	offset := len(requests) - len(r.ToolCalls) // the AskUser call comes first
	var out map[string]json.RawMessage
	for i, tc := range r.ToolCalls {
		if len(tc.Permission) > 0 {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[requests[offset+i].ToolCallID] = tc.Permission
		}
	}
	return out
}

// streamReply waits the reply's delays and, for streaming sessions, emits a
// message_delta and a streaming_delta per piece (only the pieces before a
// Failure), all naming messageID, the id assistant.message will carry. The
// sub-agents' text goes first, each as its own message tagged with its
// agentId, so that it precedes everything of the main agent's message.
func (s *session) streamReply(t *turn, cfg settings, r Response, messageID string) error {
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
		if err := s.streamSubAgent(t, cfg, r, sub); err != nil {
			return err
		}
	}
	if !cfg.streaming {
		if !sleep(done, time.Duration(n)*r.ChunkDelay) {
			return errStopped
		}
		return nil
	}
	return s.streamPieces(t, "", messageID, pieces[:n], r.ChunkDelay, true)
}

// streamSubAgent plays one sub-agent's text: its deltas when the session
// streams, then its assistant.message, all with the sub-agent's agentId.
func (s *session) streamSubAgent(t *turn, cfg settings, r Response, sub SubAgentText) error {
	messageID := uuid.NewString()
	pieces := r.chunks(sub.Text)
	if cfg.streaming {
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
		s.emit(t, protocol.EventAssistantIdle, protocol.AssistantIdleData{}) != nil {
		return
	}
	s.finish(t, nil)
}

// fail ends the turn with session.error and session.idle.
func (s *session) fail(t *turn, data protocol.ErrorData) {
	if data.ErrorType == "" {
		data.ErrorType = "query"
	}
	if s.emit(t, protocol.EventSessionError, data) != nil {
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
