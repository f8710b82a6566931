package sim

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// rateLimited ends a turn whose model call failed with a Failure that
// offers the auto-mode switch, as CLI 1.0.102 ends one after a 429 (its
// retries spent; the simulator does not retry): assistant.turn_end,
// session.error, then — with requestAutoModeSwitch — the
// autoModeSwitch.request, and auto_mode_switch.requested; it waits for
// the first answer, reports it (auto_mode_switch.completed), switches the
// session to AutoModel on a yes, and ends with assistant.idle and
// session.idle.
func (s *session) rateLimited(t *turn, cfg settings, turnID string, data protocol.ErrorData, retryAfter int) {
	data.EligibleForAutoSwitch = ptr(true)
	if s.emit(t, protocol.EventAssistantTurnEnd, protocol.AssistantTurnEndData{TurnID: turnID}) != nil ||
		s.emit(t, protocol.EventSessionError, data) != nil {
		return
	}
	requested := protocol.AutoModeSwitchRequestedData{RequestID: uuid.NewString(), ErrorCode: data.ErrorCode}
	params := protocol.AutoModeSwitchRequestParams{SessionID: s.id, ErrorCode: data.ErrorCode}
	if retryAfter > 0 {
		requested.RetryAfterSeconds = ptr(int64(retryAfter))
		params.RetryAfterSeconds = ptr(float64(retryAfter))
	}
	var asked chan Answer // the request's answer; nil without requestAutoModeSwitch
	if cfg.requestAutoModeSwitch {
		wait := s.conn.startCall(t.ctx, protocol.MethodAutoModeSwitchRequest, params)
		asked = make(chan Answer, 1)
		if !s.conn.work.Go(func() { asked <- wait() }) {
			return // the connection is ending
		}
	}
	p := &pendingAnswer{kind: pendingAutoModeSwitch, ch: make(chan json.RawMessage, 1)}
	if s.emitThen(t, "", protocol.EventAutoModeSwitchRequested, requested, func() { s.pending[requested.RequestID] = p }) != nil {
		return
	}

	response := protocol.AutoModeSwitchResponseNo
	select {
	case raw := <-p.ch:
		var ans protocol.SessionUIHandlePendingAutoModeSwitchParams
		json.Unmarshal(raw, &ans) // validated by the handler
		response = protocol.AutoModeSwitchResponse(ans.Response)
	case a := <-asked:
		// The request answered first: the event's answer no longer counts.
		s.mu.Lock()
		delete(s.pending, requested.RequestID)
		s.mu.Unlock()
		if a.Err != nil {
			return // the turn or the connection ended
		}
		var ans protocol.AutoModeSwitchRequestResponse
		if a.Error == nil && json.Unmarshal(a.Result, &ans) == nil && ans.Response != "" {
			response = protocol.AutoModeSwitchResponse(ans.Response)
		}
	case <-t.ctx.Done():
		return
	}

	if s.emit(t, protocol.EventAutoModeSwitchCompleted, protocol.AutoModeSwitchCompletedData{RequestID: requested.RequestID, Response: response}) != nil {
		return
	}
	if response == protocol.AutoModeSwitchResponseYes || response == protocol.AutoModeSwitchResponseYesAlways {
		if s.act(t, func() {
			s.switchModelLocked(AutoModel, protocol.ModelChangeData{Cause: "rate_limit_auto_switch", Source: protocol.ModelChangeSourceAutomatic})
		}) != nil {
			return
		}
	}
	if s.emit(t, protocol.EventAssistantIdle, protocol.AssistantIdleData{}) != nil {
		return
	}
	s.finish(t, nil)
}

// handleAutoModeSwitchAnswer answers an auto_mode_switch.requested event.
// As on the real CLI, an answer to a request no longer pending (unknown,
// answered already, or settled by the autoModeSwitch.request's answer) is
// {success:false}, not an error.
func (c *Conn) handleAutoModeSwitchAnswer(r *request) (any, error) {
	var p protocol.SessionUIHandlePendingAutoModeSwitchParams
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	if p.RequestID == "" {
		return nil, invalidParams("invalid params for %s: requestId is required", r.method)
	}
	switch p.Response {
	case protocol.UIAutoModeSwitchResponseYes, protocol.UIAutoModeSwitchResponseYesAlways, protocol.UIAutoModeSwitchResponseNo:
	default:
		return nil, invalidParams("invalid params for %s: response must be \"yes\", \"yes_always\" or \"no\"", r.method)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pa := s.pending[p.RequestID]
	if pa == nil || pa.kind != pendingAutoModeSwitch {
		return protocol.UIHandlePendingResult{Success: false}, nil
	}
	delete(s.pending, p.RequestID)
	pa.ch <- r.params
	return protocol.UIHandlePendingResult{Success: true}, nil
}
