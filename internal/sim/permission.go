package sim

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// verdict is what the simulated CLI makes of a permission decision.
type verdict struct {
	// refusal, when set, is the tool's failure; endTurn says the turn
	// then ends like an abort instead of going on with the model.
	refusal *toolFailure
	endTurn bool
	// remember approves the tool for the rest of the session: it is not
	// asked again. approval, when the decision carried one, says what the
	// built-in tools' approval covers (builtinGrant).
	remember bool
	approval *protocol.UserToolSessionApproval
}

// The tool failures of the refusals, in CLI 1.0.102's words. Of these,
// the rejection with and without feedback and user-not-available were
// seen on the wire; the others are the CLI's strings for the decisions the
// schema allows, which the offline CLI cannot be made to take.
const (
	rejectedMessage     = "The user rejected this tool call."
	feedbackPrefix      = "The user rejected this tool call. User feedback: "
	deniedByRules       = "Permission to run this tool was denied by a deny rule."
	deniedByHook        = "Permission denied by hook."
	permissionCancelled = "The pending permission request was cancelled before the tool could continue."
)

// decide maps a client's permission decision (the schema's
// PermissionDecision kinds) to the permission.completed result and the
// verdict, as CLI 1.0.102 takes them:
//
//   - approve-once, approve-permanently (and the older approved) approve;
//     approve-for-session, approve-for-location (approved-for-session,
//     approved-for-location) approve and are not asked again in the
//     session; approve-read-only-for-session approves.
//   - reject (denied-interactively-by-user) without feedback, or with
//     forceReject, fails the tool with "The user rejected this tool call."
//     and ends the turn like an abort; with feedback the tool fails with
//     it and the model goes on.
//   - user-not-available (denied-no-approval-rule-and-could-not-request-
//     from-user), denied-by-rules, denied-by-content-exclusion-policy,
//     cancelled and denied-by-permission-request-hook fail the tool and the
//     model goes on (the last ends the turn when it asks to interrupt).
//   - Any other kind is taken as a plain reject.
func decide(d protocol.PermissionDecision) (protocol.PermissionResult, verdict) {
	approved := protocol.PermissionResult{Kind: "approved"}
	switch d.Kind {
	case "approve-once", "approved", "approve-permanently":
		return approved, verdict{}
	case "approve-read-only-for-session":
		dirs := d.Directories
		if dirs == nil {
			dirs = []string{}
		}
		return protocol.PermissionResult{Kind: "approved-read-only-for-session", Directories: dirs}, verdict{}
	case "approve-for-session", "approved-for-session":
		if a := approval(d.Approval); a != nil {
			return protocol.PermissionResult{Kind: "approved-for-session", Approval: a}, verdict{remember: true, approval: a}
		}
		return approved, verdict{remember: true}
	case "approve-for-location", "approved-for-location":
		if a := approval(d.Approval); a != nil && d.LocationKey != "" {
			return protocol.PermissionResult{Kind: "approved-for-location", Approval: a, LocationKey: d.LocationKey}, verdict{remember: true, approval: a}
		}
		return approved, verdict{remember: true}
	case "user-not-available", "denied-no-approval-rule-and-could-not-request-from-user":
		return protocol.PermissionResult{Kind: "denied-no-approval-rule-and-could-not-request-from-user"}, verdict{refusal: &noPermission}
	case "denied-by-rules":
		rules := d.Rules
		if rules == nil {
			rules = []protocol.PermissionRule{}
		}
		return protocol.PermissionResult{Kind: d.Kind, Rules: rules}, verdict{refusal: &toolFailure{code: "denied", message: deniedByRules}}
	case "denied-by-content-exclusion-policy":
		msg := d.Message
		if msg == "" {
			msg = "Denied by the content exclusion policy: " + d.Path
		}
		return protocol.PermissionResult{Kind: d.Kind, Path: d.Path, Message: msg}, verdict{refusal: &toolFailure{code: "denied", message: msg}}
	case "denied-by-permission-request-hook":
		msg := d.Message
		if msg == "" {
			msg = deniedByHook
		}
		end := d.Interrupt != nil && *d.Interrupt
		return protocol.PermissionResult{Kind: d.Kind, Message: d.Message, Interrupt: d.Interrupt},
			verdict{refusal: &toolFailure{code: "denied", message: msg}, endTurn: end}
	case "cancelled":
		return protocol.PermissionResult{Kind: d.Kind, Reason: d.Reason}, verdict{refusal: &toolFailure{code: "denied", message: permissionCancelled}}
	}
	// reject, denied-interactively-by-user, and kinds the simulator does
	// not know.
	result := protocol.PermissionResult{Kind: "denied-interactively-by-user", Feedback: d.Feedback, ForceReject: d.ForceReject}
	if d.Feedback != "" && (d.ForceReject == nil || !*d.ForceReject) {
		return result, verdict{refusal: &toolFailure{code: "denied", message: feedbackPrefix + d.Feedback}}
	}
	return result, verdict{refusal: &toolFailure{code: "rejected", message: rejectedMessage}, endTurn: true}
}

// approval decodes a decision's approval, or nil.
func approval(raw json.RawMessage) *protocol.UserToolSessionApproval {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var a protocol.UserToolSessionApproval
	if err := json.Unmarshal(raw, &a); err != nil || a.Kind == "" {
		return nil
	}
	return &a
}

// permissionRequested is permission.requested's data. It is not
// protocol.PermissionRequestedData, whose PermissionRequest is the union of
// every kind with each field optional: the built-in tools' kinds (shell,
// write, read, url) require fields that may be empty or false
// (possiblePaths: [], canOfferSessionApproval: false), which the union
// would leave out, so each kind is sent as its own protocol type.
type permissionRequested struct {
	RequestID         string `json:"requestId"`
	PermissionRequest any    `json:"permissionRequest"`
	// PromptRequest is what CLI 1.0.102 derives for a UI from the request
	// of a built-in tool; nil (left out) for the other kinds.
	PromptRequest any `json:"promptRequest,omitempty"`
}

// askPermission runs the protocol-3 permission exchange for request (and
// its promptRequest, when not nil) and returns what the client's decision
// means.
func (s *session) askPermission(t *turn, req protocol.AssistantMessageToolRequest, request, prompt any) (verdict, error) {
	requestID := uuid.NewString()
	raw, err := s.await(t, pendingPermission, requestID, protocol.EventPermissionRequested, permissionRequested{
		RequestID:         requestID,
		PermissionRequest: request,
		PromptRequest:     prompt,
	})
	if err != nil {
		return verdict{}, err
	}
	var answer protocol.SessionPermissionsHandlePendingPermissionRequestParams
	json.Unmarshal(raw, &answer) // validated by the handler
	result, v := decide(answer.Result)
	err = s.emit(t, protocol.EventPermissionCompleted, protocol.PermissionCompletedData{
		RequestID:  requestID,
		ToolCallID: req.ToolCallID,
		Result:     result,
	})
	return v, err
}
