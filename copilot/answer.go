package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

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
	slot := new(richResult)
	out, err := s.pipeline(withRichResult(ctx, slot), ToolCall{SessionID: s.id, ID: t.ToolCallID, Name: t.ToolName, Arguments: t.Arguments})
	s.sendToolResult(ctx, t, toolResultOf(out, err, slot.result))
	return err
}

// invokeTool is the innermost stage of the tool pipeline: find the tool and
// run it safely.
func (s *Session) invokeTool(ctx context.Context, call ToolCall) (string, error) {
	t, ok := s.tools[call.Name]
	if !ok {
		return "", fmt.Errorf("no tool named %q is registered in this session", call.Name)
	}
	return safeHandler(t.Handler)(ctx, call)
}

// answerTool gives a plain result (out, or err as a failure) to the CLI.
func (s *Session) answerTool(ctx context.Context, t *session.ToolRequest, out string, err error) {
	s.sendToolResult(ctx, t, toolResultOf(out, err, nil))
}

// sendToolResult gives a tool's result to the CLI, in whichever protocol
// it asked.
func (s *Session) sendToolResult(ctx context.Context, t *session.ToolRequest, res ToolResult) {
	var aerr error
	if t.Request != nil {
		aerr = t.Request.Reply(ctx, protocol.ToolCallResult{Result: res})
	} else {
		var raw []byte
		if raw, aerr = json.Marshal(res); aerr == nil {
			_, aerr = s.RPC().Tools.HandlePendingToolCall(ctx, protocol.SessionToolsHandlePendingToolCallParams{RequestID: t.RequestID, Result: raw})
		}
	}
	if aerr != nil {
		s.log.Warn().Err(aerr).Str("tool", t.ToolName).Msg("answering a tool call")
	}
}

// answerPermission asks the policy and answers with its decision; it
// reports whether the decision approved. A policy that fails, panics or
// decides nothing rejects.
func (s *Session) answerPermission(ctx context.Context, p *PermissionRequest) bool {
	req := *p
	req.SessionID = s.id // read between turns, it names none
	d, err := s.decide(ctx, req)
	switch {
	case err != nil:
		s.log.Warn().Err(err).Str("kind", p.Kind).Msg("permission policy failed; rejecting")
		d = Reject("")
	case d.Kind == "":
		d = Reject("")
	}
	s.sendDecision(ctx, p, d)
	return Approves(d)
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

// answerPermissionKind gives the CLI a decision of the given kind, without
// asking the policy (what an abandoned turn left is refused).
func (s *Session) answerPermissionKind(ctx context.Context, p *PermissionRequest, kind string) {
	s.sendDecision(ctx, p, PermissionDecision{Kind: kind})
}

// sendDecision gives the CLI a permission decision.
func (s *Session) sendDecision(ctx context.Context, p *PermissionRequest, d PermissionDecision) {
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
