package protocol

import "encoding/json"

// The CLI serves these methods although its schemas leave them out (they
// predate the schemas). They are typed by hand, from what CLI 1.0.102
// answers; internal/testing/clitest and the copilot conformance tests hold
// the CLI to them.
const (
	// MethodSessionCreate creates a session: SessionCreateParams →
	// SessionCreateResult.
	MethodSessionCreate = "session.create"
	// MethodSessionResume reattaches a session the CLI keeps on disk:
	// SessionCreateParams with SessionID set → SessionCreateResult.
	MethodSessionResume = "session.resume"
	// MethodSessionDestroy disconnects a session; the CLI keeps it on disk
	// and lists it: SessionIDParams → SuccessResult.
	MethodSessionDestroy = "session.destroy"
	// MethodSessionDelete removes a session from disk: SessionIDParams →
	// SuccessResult (Success false, with Error, when there is no such
	// session).
	MethodSessionDelete = "session.delete"
	// MethodSessionList lists the sessions on disk: no params →
	// SessionListResult.
	MethodSessionList = "session.list"
	// MethodSessionGetMessages returns a session's persisted events:
	// SessionIDParams → SessionMessagesResult.
	MethodSessionGetMessages = "session.getMessages"
	// MethodSessionGetMetadata: SessionIDParams → SessionMetadataResult.
	MethodSessionGetMetadata = "session.getMetadata"
	// MethodSessionGetLastID: no params → SessionIDResult (empty when no
	// session was used yet).
	MethodSessionGetLastID = "session.getLastId"
	// MethodSessionGetForeground: no params → SessionIDResult (empty
	// outside the CLI's TUI+server mode).
	MethodSessionGetForeground = "session.getForeground"
	// MethodSessionSetForeground: SessionIDParams → SuccessResult (refused
	// outside the CLI's TUI+server mode).
	MethodSessionSetForeground = "session.setForeground"
	// MethodStatusGet: no params → StatusResult.
	MethodStatusGet = "status.get"
	// MethodAuthGetStatus: no params → AuthStatus.
	MethodAuthGetStatus = "auth.getStatus"
)

// Notifications the CLI sends that its schemas describe only in part.
const (
	// NotificationSessionEvent carries one session event:
	// EventNotification.
	NotificationSessionEvent = "session.event"
	// NotificationSessionLifecycle says a session was created, updated or
	// deleted: LifecycleNotification.
	NotificationSessionLifecycle = "session.lifecycle"
)

// The types of a session.lifecycle notification (LifecycleNotification.Type).
const (
	LifecycleSessionCreated = "session.created"
	LifecycleSessionUpdated = "session.updated"
	LifecycleSessionDeleted = "session.deleted"
)

// Requests older CLIs (protocol 2) sent to their client, before tools and
// permissions became events answered by calls. Protocol 3 CLIs do not send
// them; a client still answers them (ToolCallParams → ToolCallResult), so
// that no request goes unanswered.
const (
	MethodToolCall               = "tool.call"
	MethodPermissionRequest      = "permission.request"
	MethodUserInputRequest       = "userInput.request"
	MethodExitPlanModeRequest    = "exitPlanMode.request"
	MethodAutoModeSwitchRequest  = "autoModeSwitch.request"
	MethodSystemMessageTransform = "systemMessage.transform"
)

// ProtocolVersion is the version of the protocol connect answers with
// (ConnectResult.ProtocolVersion) for the CLI of CLIVersion.
const ProtocolVersion = 3

// SessionIDParams are the params of the methods that name one session and
// nothing else.
type SessionIDParams struct {
	SessionID string `json:"sessionId"`
}

// SuccessResult is the answer of destroy, delete and setForeground.
type SuccessResult struct {
	Success bool `json:"success"`
	// Error says why, when Success is false.
	Error string `json:"error,omitempty"`
}

// SessionIDResult is the answer of getLastId and getForeground.
type SessionIDResult struct {
	SessionID string `json:"sessionId,omitempty"`
}

// SessionListResult is the answer of session.list.
type SessionListResult struct {
	Sessions []SessionListEntry `json:"sessions"`
}

// SessionMetadataResult is the answer of session.getMetadata; Session is
// nil for a session the CLI has not persisted yet (before its first
// message).
type SessionMetadataResult struct {
	Session *SessionListEntry `json:"session,omitempty"`
}

// SessionMessagesResult is the answer of session.getMessages: the
// session's persisted events, oldest first.
type SessionMessagesResult struct {
	Events []Event `json:"events"`
}

// StatusResult is the answer of status.get.
type StatusResult struct {
	Version         string `json:"version"`
	ProtocolVersion int64  `json:"protocolVersion"`
}

// AuthStatus is the answer of auth.getStatus.
type AuthStatus struct {
	IsAuthenticated bool   `json:"isAuthenticated"`
	AuthType        string `json:"authType,omitempty"`
	Host            string `json:"host,omitempty"`
	Login           string `json:"login,omitempty"`
	StatusMessage   string `json:"statusMessage,omitempty"`
}

// LifecycleNotification is the params of session.lifecycle.
type LifecycleNotification struct {
	// Type is one of the Lifecycle… constants, or a newer type.
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	// Metadata holds at least startTime and modifiedTime.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// ToolDefinition is a client tool as session.create declares it.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// SkipPermission runs the tool without a permission request.
	SkipPermission bool `json:"skipPermission,omitempty"`
}

// SystemMessageConfig is how session.create takes extra system
// instructions: Mode "append" (the default) adds Content to the CLI's
// own system prompt, "replace" stands in for it.
type SystemMessageConfig struct {
	Mode    string `json:"mode,omitempty"`
	Content string `json:"content"`
}

// SessionCreateParams are the params of session.create and
// session.resume.
type SessionCreateParams struct {
	// SessionID is the client's id for a new session (a UUID), or the
	// session to resume; empty lets the CLI assign one.
	SessionID        string `json:"sessionId,omitempty"`
	Model            string `json:"model,omitempty"`
	WorkingDirectory string `json:"workingDirectory,omitempty"`
	Streaming        bool   `json:"streaming"`
	// RequestPermission makes the CLI ask (permission.requested) before a
	// tool without SkipPermission runs; without it such tools are denied.
	RequestPermission bool                 `json:"requestPermission"`
	Tools             []ToolDefinition     `json:"tools,omitempty"`
	SystemMessage     *SystemMessageConfig `json:"systemMessage,omitempty"`
	// AvailableTools is a pointer so that "every built-in tool" (nil, left
	// out) and "none" (an empty list) stay apart on the wire.
	AvailableTools *[]string `json:"availableTools,omitempty"`

	// What the client answers: without these the CLI sends no such request
	// (a hook is not run, the agent may not ask the user).
	RequestUserInput      bool `json:"requestUserInput,omitempty"`
	RequestExitPlanMode   bool `json:"requestExitPlanMode,omitempty"`
	RequestAutoModeSwitch bool `json:"requestAutoModeSwitch,omitempty"`
	Hooks                 bool `json:"hooks,omitempty"`
}

// SessionCreateResult is the answer of session.create and session.resume.
type SessionCreateResult struct {
	SessionID       string          `json:"sessionId"`
	NativeSessionID string          `json:"nativeSessionId,omitempty"`
	StartTime       string          `json:"startTime,omitempty"`
	IsRemote        bool            `json:"isRemote,omitempty"`
	Mode            string          `json:"mode,omitempty"`
	WorkspacePath   string          `json:"workspacePath,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	ModelState      *struct {
		ModelID string `json:"modelId"`
	} `json:"modelState,omitempty"`
}

// ToolCallParams are the params of the protocol-2 tool.call request.
type ToolCallParams struct {
	SessionID  string          `json:"sessionId"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
}

// ToolCallResult answers tool.call.
type ToolCallResult struct {
	Result ExternalToolTextResultForLLM `json:"result"`
}

// UserInputRequestParams are the params of userInput.request: the agent
// asks the user a question (sent when the session was created with
// requestUserInput).
type UserInputRequestParams struct {
	SessionID string   `json:"sessionId"`
	Question  string   `json:"question"`
	Choices   []string `json:"choices,omitempty"`
	// AllowFreeform says whether an answer outside Choices is accepted.
	AllowFreeform *bool `json:"allowFreeform,omitempty"`
}

// UserInputResponse answers userInput.request.
type UserInputResponse struct {
	Answer      string `json:"answer"`
	WasFreeform bool   `json:"wasFreeform"`
}

// ExitPlanModeRequestParams are the params of exitPlanMode.request: the
// agent asks to leave plan mode and act on its plan.
type ExitPlanModeRequestParams struct {
	SessionID         string   `json:"sessionId"`
	Summary           string   `json:"summary"`
	PlanContent       string   `json:"planContent,omitempty"`
	Actions           []string `json:"actions,omitempty"`
	RecommendedAction string   `json:"recommendedAction,omitempty"`
}

// ExitPlanModeResponse answers exitPlanMode.request.
type ExitPlanModeResponse struct {
	Approved       bool   `json:"approved"`
	SelectedAction string `json:"selectedAction,omitempty"`
	Feedback       string `json:"feedback,omitempty"`
}

// AutoModeSwitchRequestParams are the params of autoModeSwitch.request:
// after a rate limit, the CLI asks whether to switch to the auto model.
type AutoModeSwitchRequestParams struct {
	SessionID         string   `json:"sessionId"`
	ErrorCode         string   `json:"errorCode,omitempty"`
	RetryAfterSeconds *float64 `json:"retryAfterSeconds,omitempty"`
}

// AutoModeSwitchRequestResponse answers autoModeSwitch.request.
type AutoModeSwitchRequestResponse struct {
	Response UIAutoModeSwitchResponse `json:"response"`
}

// SystemMessageSection is one section of the CLI's system prompt.
type SystemMessageSection struct {
	Content string `json:"content"`
}

// SystemMessageTransformParams are the params of systemMessage.transform:
// the CLI offers the sections of its system prompt for the client to
// rewrite, by section id.
type SystemMessageTransformParams struct {
	SessionID string                          `json:"sessionId"`
	Sections  map[string]SystemMessageSection `json:"sections"`
}

// SystemMessageTransformResult answers systemMessage.transform.
type SystemMessageTransformResult struct {
	Sections map[string]SystemMessageSection `json:"sections"`
}
