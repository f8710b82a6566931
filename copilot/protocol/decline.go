package protocol

import "encoding/json"

// Decline returns the answer that refuses a request from the CLI that the
// client has no handler for, where the protocol has a way to say no that
// lets the CLI go on: a hook that does nothing, an empty list of skills,
// an installation declined, a plan not approved, no switch of model, the
// system prompt left as it is. ok is false where it has none (a question
// for the user, a token); the client then answers with a JSON-RPC error
// naming the missing handler.
func Decline(method string, params json.RawMessage) (result any, ok bool) {
	switch method {
	case MethodHooksInvoke:
		return &HookInvokeResponse{}, true
	case MethodSkillProviderList:
		return &SkillProviderListResult{Skills: []SkillProviderDescriptor{}}, true
	case MethodInstallationsConfirm:
		// The answer must repeat the request's challenge to be heard.
		var p InstallationConfirmationRequest
		if json.Unmarshal(params, &p) != nil {
			return nil, false
		}
		return &InstallationConfirmationResponse{ConfirmationID: p.ConfirmationID, ReviewFingerprint: p.ReviewFingerprint, Decision: InstallationDecisionDecline}, true
	case MethodExitPlanModeRequest:
		return &ExitPlanModeResponse{Approved: false}, true
	case MethodAutoModeSwitchRequest:
		return &AutoModeSwitchRequestResponse{Response: UIAutoModeSwitchResponseNo}, true
	case MethodSystemMessageTransform:
		var p SystemMessageTransformParams
		if json.Unmarshal(params, &p) != nil {
			return nil, false
		}
		if p.Sections == nil {
			p.Sections = map[string]SystemMessageSection{}
		}
		return &SystemMessageTransformResult{Sections: p.Sections}, true
	}
	return nil, false
}
