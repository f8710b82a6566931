package protocol

import "encoding/json"

// Decline returns the answer that refuses a request from the CLI that the
// client has no handler for, where the schema has a way to say no that
// lets the CLI go on: a hook that does nothing, an empty list of skills,
// an installation declined. ok is false where the schema has none; the
// client then answers with a JSON-RPC error naming the missing handler.
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
	}
	return nil, false
}
