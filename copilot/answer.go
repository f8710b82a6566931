package copilot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// The answers a session gives to what the CLI asks mid-turn: tool calls,
// permission requests and model switches. The CLI waits for each answer, so
// every request gets one, even one the caller no longer wants (see
// drainTurn). An answer that fails to go out is logged, not returned: the
// turn then ends on its own terms (the CLI's error, or the caller's
// context), which says more than the failed answer would.

// runTool runs one tool call through the pipeline and answers it.
func (s *Session) runTool(ctx context.Context, t *session.ToolRequest) error {
	out, err := s.pipeline(ctx, ToolCall{SessionID: s.id, ID: t.ToolCallID, Name: t.ToolName, Arguments: t.Arguments})
	s.answerTool(ctx, t, out, err)
	return err
}

// dispatch is the innermost stage: find the tool and run it safely.
func (s *Session) dispatch(ctx context.Context, call ToolCall) (string, error) {
	t, ok := s.tools[call.Name]
	if !ok {
		return "", fmt.Errorf("no tool named %q is registered in this session", call.Name)
	}
	return safeHandler(t.Handler)(ctx, call)
}

// answerTool gives a tool's result to the CLI, in whichever protocol it
// asked.
func (s *Session) answerTool(ctx context.Context, t *session.ToolRequest, out string, err error) {
	res := protocol.ExternalToolTextResultForLLM{TextResultForLLM: out, ResultType: "success"}
	if err != nil {
		res = protocol.ExternalToolTextResultForLLM{TextResultForLLM: "Error: " + err.Error(), ResultType: "failure", Error: err.Error()}
	}
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

// answerPermission asks the policy and answers; it reports the approval.
func (s *Session) answerPermission(ctx context.Context, p *session.PermissionRequest) bool {
	ok, err := s.policy(ctx, PermissionRequest{SessionID: s.id, Kind: p.Kind, ToolName: p.ToolName, Details: p.Details})
	if err != nil {
		s.log.Warn().Err(err).Msg("permission policy failed; denying")
		ok = false
	}
	kind := permissionReject
	if ok {
		kind = permissionApproveOnce
	}
	s.answerPermissionKind(ctx, p, kind)
	return ok
}

// answerPermissionKind gives the CLI a permission result of the given kind.
func (s *Session) answerPermissionKind(ctx context.Context, p *session.PermissionRequest, kind string) {
	_, err := s.RPC().Permissions.HandlePendingPermissionRequest(ctx, protocol.SessionPermissionsHandlePendingPermissionRequestParams{
		RequestID: p.RequestID, Result: protocol.PermissionDecision{Kind: kind},
	})
	s.logAnswer(err, "answering a permission request")
}

// permissionLabel says what a refused request asked for, for the error of
// the turn the refusal ended.
func permissionLabel(p *session.PermissionRequest) string {
	if p.ToolName != "" {
		return fmt.Sprintf("%s permission for tool %s was denied by the session's policy", p.Kind, p.ToolName)
	}
	return fmt.Sprintf("%s permission was denied by the session's policy", p.Kind)
}

// declineModelSwitch answers auto_mode_switch.requested with "no".
func (s *Session) declineModelSwitch(ctx context.Context, ev Event) {
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
