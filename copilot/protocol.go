package copilot

import "encoding/json"

// The wire methods of protocol 3, as the Copilot CLI serves them.
const (
	methodConnect          = "connect"
	methodPing             = "ping"
	methodStatus           = "status.get"
	methodAuthStatus       = "auth.getStatus"
	methodModelsList       = "models.list"
	methodSessionCreate    = "session.create"
	methodSessionResume    = "session.resume"
	methodSessionSend      = "session.send"
	methodSessionAbort     = "session.abort"
	methodSessionDestroy   = "session.destroy"
	methodSessionMessages  = "session.getMessages"
	methodSessionList      = "session.list"
	methodHandleToolCall   = "session.tools.handlePendingToolCall"
	methodHandlePermission = "session.permissions.handlePendingPermissionRequest"
	// After a rate limit the CLI asks, with auto_mode_switch.requested,
	// whether to switch models, and waits for this answer.
	methodHandleAutoModeSwitch = "session.ui.handlePendingAutoModeSwitch"
)

// ProtocolVersion is the protocol version this package speaks.
const ProtocolVersion = 3

// ConnectResult is the answer to the connect handshake.
type ConnectResult struct {
	OK              bool   `json:"ok"`
	ProtocolVersion int    `json:"protocolVersion"`
	Version         string `json:"version"`
}

// PingResult is the answer to ping.
type PingResult struct {
	Message string `json:"message"`
	// Timestamp is when the CLI handled the ping, in ISO 8601.
	Timestamp       string `json:"timestamp"`
	ProtocolVersion int    `json:"protocolVersion"`
}

// AuthStatus is the answer to auth.getStatus.
type AuthStatus struct {
	IsAuthenticated bool   `json:"isAuthenticated"`
	AuthType        string `json:"authType,omitempty"`
	Login           string `json:"login,omitempty"`
	StatusMessage   string `json:"statusMessage,omitempty"`
}

// Model is one model the CLI offers.
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Raw is the model's whole entry, capabilities and billing included.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw entry beside the fields.
func (m *Model) UnmarshalJSON(b []byte) error {
	type plain Model
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// toolDefinition is a client tool as session.create declares it.
type toolDefinition struct {
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	Parameters     json.RawMessage `json:"parameters,omitempty"`
	SkipPermission bool            `json:"skipPermission,omitempty"`
}

// createParams are the params of session.create (and session.resume).
type createParams struct {
	SessionID         string           `json:"sessionId,omitempty"`
	Model             string           `json:"model,omitempty"`
	WorkingDirectory  string           `json:"workingDirectory,omitempty"`
	Streaming         bool             `json:"streaming"`
	RequestPermission bool             `json:"requestPermission"`
	Tools             []toolDefinition `json:"tools,omitempty"`
	SystemMessage     *systemMessage   `json:"systemMessage,omitempty"`
	// AvailableTools is a pointer so that "all built-in tools" (nil, field
	// omitted) and "none" (empty list) stay distinct on the wire.
	AvailableTools *[]string `json:"availableTools,omitempty"`
}

// systemMessage is how session.create takes extra system instructions.
type systemMessage struct {
	Mode    string `json:"mode,omitempty"`
	Content string `json:"content"`
}

// CreateResult is the answer to session.create.
type CreateResult struct {
	SessionID     string          `json:"sessionId"`
	WorkspacePath string          `json:"workspacePath,omitempty"`
	Capabilities  json.RawMessage `json:"capabilities,omitempty"`
}

type sessionIDParams struct {
	SessionID string `json:"sessionId"`
}

type sendParams struct {
	SessionID string `json:"sessionId"`
	Prompt    string `json:"prompt"`
}

type sendResult struct {
	MessageID string `json:"messageId"`
}

// toolResult is what a client tool returns to the model.
type toolResult struct {
	TextResultForLLM string `json:"textResultForLlm"`
	ResultType       string `json:"resultType"`
	Error            string `json:"error,omitempty"`
}

type handleToolCallParams struct {
	SessionID string      `json:"sessionId"`
	RequestID string      `json:"requestId"`
	Result    *toolResult `json:"result,omitempty"`
	Error     string      `json:"error,omitempty"`
}

type permissionResult struct {
	Kind string `json:"kind"`
}

type handlePermissionParams struct {
	SessionID string           `json:"sessionId"`
	RequestID string           `json:"requestId"`
	Result    permissionResult `json:"result"`
}

// legacyToolCallResult answers the protocol-2 tool.call request.
type legacyToolCallResult struct {
	Result toolResult `json:"result"`
}
