package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// The answers a session gives to what the CLI asks mid-turn: tool calls,
// permission requests and model switches. The CLI waits for each answer, so
// every request gets one, even one the caller no longer wants (see
// drainTurn). An answer that fails to go out is logged, not returned: the
// turn then ends on its own terms (the CLI's error, or the caller's
// context), which says more than the failed answer would.

// runTool runs one tool call through the pipeline and answers it. The call
// carries a slot for a rich result (see ResultHandler), which the answer
// takes its binary results, log and result type from.
func (s *Session) runTool(ctx context.Context, t *session.ToolRequest) error {
	if _, ok := s.tools[t.ToolName]; !ok && t.Request == nil {
		// A protocol-3 call goes to every client of the session: one this
		// session did not declare is another client's to run (the CLI
		// offers only declared tools). Answering it would race that client.
		s.log.Debug().Str("tool", t.ToolName).Msg("a call of a tool this session did not declare; left to the client that did")
		return nil
	}
	slot := new(richResult)
	out, err := s.pipeline(withRichResult(ctx, slot), ToolCall{SessionID: s.id, ID: t.ToolCallID, Name: t.ToolName, Arguments: t.Arguments})
	res, hidden := toolResultOf(out, err, slot.result)
	if hidden {
		s.log.Warn().Err(err).Str("tool", t.ToolName).Str("call", t.ToolCallID).
			Msg("a tool failed; the model is told only that it failed (return a copilot.ToolError to tell it why)")
	}
	s.sendToolResult(ctx, t, res, hidden)
	return err
}

// invokeTool is the innermost stage of the tool pipeline: find the tool and
// run it safely.
func (s *Session) invokeTool(ctx context.Context, call ToolCall) (string, error) {
	t, ok := s.tools[call.Name]
	if !ok {
		return "", forModel("no tool named %q is registered in this session", call.Name)
	}
	return safeHandler(t.Handler)(ctx, call)
}

// answerTool gives a plain result (out, or err as a failure) to the CLI.
func (s *Session) answerTool(ctx context.Context, t *session.ToolRequest, out string, err error) {
	res, hidden := toolResultOf(out, err, nil)
	s.sendToolResult(ctx, t, res, hidden)
}

// sendToolResult gives a tool's result to the CLI, in whichever protocol
// it asked. A hidden failure goes to a protocol-3 CLI as the call's error,
// without a result: the CLI then tells the model, in its own words, that
// the tool failed, and says no more (CLI 1.0.102: "Failed to execute `x`
// tool with arguments: {} due to error: Error: Tool execution failed"),
// as for the official SDK.
func (s *Session) sendToolResult(ctx context.Context, t *session.ToolRequest, res ToolResult, hidden bool) {
	var aerr error
	switch {
	case t.Request != nil:
		aerr = t.Request.Respond(ctx, protocol.ToolCallResult{Result: res})
	case hidden:
		_, aerr = s.RPC().Tools.HandlePendingToolCall(ctx, protocol.SessionToolsHandlePendingToolCallParams{RequestID: t.RequestID, Error: toolFailed})
	default:
		var raw []byte
		if raw, aerr = json.Marshal(res); aerr == nil {
			_, aerr = s.RPC().Tools.HandlePendingToolCall(ctx, protocol.SessionToolsHandlePendingToolCallParams{RequestID: t.RequestID, Result: raw})
		}
	}
	if aerr != nil {
		s.log.Warn().Err(aerr).Str("tool", t.ToolName).Msg("answering a tool call")
	}
}

// maxPolicyCalls bounds the permission requests of one session whose
// policy runs at once. Past it the session reads nothing more until one
// returns: a policy waiting for a person holds a slot, not the session.
const maxPolicyCalls = 16

// askPolicy answers a permission request with the policy's decision, on a
// goroutine of its own (at most maxPolicyCalls at once per session), so
// that a policy that waits — for a person, for another request of the
// same turn — holds up neither the other requests nor the events, which
// go on reaching the session's handlers in order. Each answer is sent as
// its policy returns. A policy that fails or panics, or decides nothing,
// is logged and answered UserNotAvailable: the tool fails, the model is
// told the permission could not be had, and the turn goes on. A NoResult
// decision sends nothing (another client answers). decided, if not nil,
// is told the decision just before it is sent. It waits only for a slot,
// or for ctx.
func (s *Session) askPolicy(ctx context.Context, p *PermissionRequest, busy *inactivityLimit, decided func(PermissionRequest, PermissionDecision)) {
	req := *p
	req.SessionID = s.id // read between turns, it names none
	select {
	case s.policySlots <- struct{}{}:
	case <-ctx.Done():
		s.sendDecision(context.WithoutCancel(ctx), p, UserNotAvailable())
		return
	}
	busy.pause()
	ran := s.client.spawn(func() {
		defer func() { <-s.policySlots }()
		defer busy.resume()
		d, err := s.decide(ctx, req)
		switch {
		case err != nil:
			s.log.Warn().Err(err).Str("kind", req.Kind).Msg("permission policy failed; answering user-not-available, and the turn goes on")
			d = UserNotAvailable()
		case d.Kind == "":
			d = UserNotAvailable()
		}
		if decided != nil {
			decided(req, d)
		}
		if d.Kind == DecisionNoResult {
			return
		}
		// The turn may have ended meanwhile (an abort): the answer is
		// still owed to the CLI, which may wait for it.
		s.sendDecision(context.WithoutCancel(ctx), p, d)
	})
	if !ran { // the client is closed: nothing to answer
		busy.resume()
		<-s.policySlots
	}
}

// decide runs the session's policy; its panic is its error.
func (s *Session) decide(ctx context.Context, req PermissionRequest) (d PermissionDecision, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the permission policy panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return s.policy(ctx, req)
}

// answerTimeout bounds the sending of an answer whose context is not the
// caller's (a decision sent after the turn ended).
const answerTimeout = 30 * time.Second

// answerPermissionKind gives the CLI a decision of the given kind, without
// asking the policy (what an abandoned turn left is refused).
func (s *Session) answerPermissionKind(ctx context.Context, p *PermissionRequest, kind string) {
	s.sendDecision(ctx, p, PermissionDecision{Kind: kind})
}

// sendDecision gives the CLI a permission decision.
func (s *Session) sendDecision(ctx context.Context, p *PermissionRequest, d PermissionDecision) {
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	_, err := s.RPC().Permissions.HandlePendingPermissionRequest(ctx, protocol.SessionPermissionsHandlePendingPermissionRequestParams{
		RequestID: p.RequestID, Result: d,
	})
	s.logAnswer(err, "answering a permission request")
}

// permissionLabel says what a refused request asked for, for the error of
// the turn the refusal ended.
func permissionLabel(p *PermissionRequest) string {
	if p.ToolName != "" {
		return fmt.Sprintf("%s permission for tool %s was denied by the session's policy", p.Kind, p.ToolName)
	}
	return fmt.Sprintf("%s permission was denied by the session's policy", p.Kind)
}

// answerModelSwitch answers auto_mode_switch.requested: the CLI, after a
// rate limit, asks whether to go on with the auto model, and waits, idle,
// until answered. With SessionConfig.Handlers.AutoModeSwitchRequest set,
// the session was created with requestAutoModeSwitch, and the CLI asks the
// same question as an autoModeSwitch.request too (CLI 1.0.102 sends the
// request first, and takes its answer): the handler answers that, and the
// event is left alone, so that the handler is asked once. Without the
// handler the answer is no: the caller chose the model, and the
// session.error before the question already says why the turn failed.
func (s *Session) answerModelSwitch(ctx context.Context, ev Event) {
	if s.handlers.AutoModeSwitchRequest != nil {
		return
	}
	var d protocol.AutoModeSwitchRequestedData
	if ev.UnmarshalData(&d) != nil || d.RequestID == "" {
		return
	}
	_, err := s.RPC().UI.HandlePendingAutoModeSwitch(ctx, protocol.SessionUIHandlePendingAutoModeSwitchParams{
		RequestID: d.RequestID, Response: protocol.UIAutoModeSwitchResponseNo,
	})
	s.logAnswer(err, "declining the CLI's model switch")
}

// logAnswer logs the failure of an answer call as doing what.
func (s *Session) logAnswer(err error, doing string) {
	if err != nil {
		s.log.Warn().Err(err).Msg(doing)
	}
}
