package protocol

import "encoding/json"

// The CLI serves these methods although its schemas leave them out (they
// predate the schemas). They are typed by hand, from what CLI 1.0.102
// answers; this module's conformance tests against the real CLI hold
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

// The modes of SystemMessageConfig.
const (
	SystemMessageAppend    = "append"
	SystemMessageReplace   = "replace"
	SystemMessageCustomize = "customize"
)

// SystemMessageConfig is how session.create shapes the system prompt:
// Mode "append" (the default) adds Content to the CLI's own system prompt,
// "replace" stands in for it, and "customize" keeps the CLI's prompt but
// changes its sections (Sections, by section id), Content then coming
// after them.
type SystemMessageConfig struct {
	Mode     string                     `json:"mode,omitempty"`
	Content  string                     `json:"content"`
	Sections map[string]SectionOverride `json:"sections,omitempty"`
}

// The actions of a SectionOverride. SectionTransform has the CLI offer the
// section to the client (systemMessage.transform) and use what it answers.
const (
	SectionReplace   = "replace"
	SectionRemove    = "remove"
	SectionAppend    = "append"
	SectionPrepend   = "prepend"
	SectionPreserve  = "preserve"
	SectionTransform = "transform"
)

// SectionOverride changes one section of the CLI's system prompt in
// "customize" mode. Content is the text of replace, append and prepend.
// An id the CLI does not know is not an error: its content is appended to
// the prompt, and removing it does nothing.
type SectionOverride struct {
	Action  string `json:"action"`
	Content string `json:"content,omitempty"`
}

// The types of a SessionMCPServer.
const (
	MCPServerStdio = "stdio" // a local server the CLI starts, spoken to on its stdin and stdout
	MCPServerHTTP  = "http"  // a remote server, streamable HTTP
	MCPServerSSE   = "sse"   // a remote server, server-sent events
)

// SessionMCPServer is one of session.create's mcpServers: the fields of
// the schema's MCPServerConfig that a session sets, with Tools nil for all
// of the server's tools and empty for none (the generated type cannot send
// an empty list).
type SessionMCPServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitzero"`
	Env     map[string]string `json:"env,omitzero"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitzero"`
	Tools   []string          `json:"tools,omitzero"`
	// Timeout bounds tool discovery and calls, in milliseconds.
	Timeout int64 `json:"timeout,omitempty"`
}

// EnvValueDirect, as SessionCreateParams.EnvValueMode, passes the Env of
// MCP servers as literal values (the CLI may otherwise take them for names
// of its own environment variables).
const EnvValueDirect = "direct"

// CustomAgentConfig declares an agent of the session's own (session.create's
// customAgents): the model may hand work to it (Infer, default true) and
// session.create's agent may select it.
type CustomAgentConfig struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
	// Tools names the tools the agent may use: nil all of the session's,
	// empty none.
	Tools      []string                    `json:"tools,omitzero"`
	Prompt     string                      `json:"prompt"`
	MCPServers map[string]SessionMCPServer `json:"mcpServers,omitempty"`
	Infer      *bool                       `json:"infer,omitempty"`
	// Skills names skills (from the session's skill directories) whose
	// content is given to the agent when it starts.
	Skills          []string `json:"skills,omitempty"`
	Model           string   `json:"model,omitempty"`
	ReasoningEffort string   `json:"reasoningEffort,omitempty"`
}

// InfiniteSessionConfig is session.create's infiniteSessions: the CLI
// compacts the conversation in the background once the context window is
// BackgroundCompactionThreshold full (a fraction; CLI default 0.80) and
// blocks the session for compaction at BufferExhaustionThreshold (default
// 0.95). Enabled false switches both off.
type InfiniteSessionConfig struct {
	Enabled                       *bool    `json:"enabled,omitempty"`
	BackgroundCompactionThreshold *float64 `json:"backgroundCompactionThreshold,omitempty"`
	BufferExhaustionThreshold     *float64 `json:"bufferExhaustionThreshold,omitempty"`
}

// ToolFilterExcluded, as SessionCreateParams.ToolFilterPrecedence, makes
// availableTools and excludedTools combine: a tool is offered when the
// first allows it (or is absent) and the second does not name it. The
// CLI's default, "available", ignores excludedTools when availableTools is
// set.
const ToolFilterExcluded = "excluded"

// SessionCreateParams are the params of session.create and
// session.resume.
type SessionCreateParams struct {
	// SessionID is the client's id for a new session (a UUID), or the
	// session to resume; empty lets the CLI assign one.
	SessionID        string `json:"sessionId,omitempty"`
	Model            string `json:"model,omitempty"`
	WorkingDirectory string `json:"workingDirectory,omitempty"`
	Streaming        bool   `json:"streaming"`
	// IncludeSubAgentStreamingEvents streams sub-agents' deltas too (as
	// events with an agentId); without it only their whole messages come.
	IncludeSubAgentStreamingEvents bool `json:"includeSubAgentStreamingEvents,omitempty"`
	// RequestPermission makes the CLI ask (permission.requested) before a
	// tool without SkipPermission runs; without it such tools are denied.
	RequestPermission bool                 `json:"requestPermission"`
	Tools             []ToolDefinition     `json:"tools,omitempty"`
	SystemMessage     *SystemMessageConfig `json:"systemMessage,omitempty"`
	// AvailableTools is a pointer so that "every built-in tool" (nil, left
	// out) and "none" (an empty list) stay apart on the wire.
	AvailableTools *[]string `json:"availableTools,omitempty"`

	// ExcludedTools names tools the model is not offered (built-in, client
	// or MCP tools); with ToolFilterPrecedence ToolFilterExcluded it
	// applies beside AvailableTools.
	ExcludedTools        []string `json:"excludedTools,omitempty"`
	ToolFilterPrecedence string   `json:"toolFilterPrecedence,omitempty"`

	// What the client answers: without these the CLI sends no such request
	// (a hook is not run, the agent may not ask the user).
	RequestUserInput      bool `json:"requestUserInput,omitempty"`
	RequestExitPlanMode   bool `json:"requestExitPlanMode,omitempty"`
	RequestAutoModeSwitch bool `json:"requestAutoModeSwitch,omitempty"`
	Hooks                 bool `json:"hooks,omitempty"`
	// RequestElicitation says the client answers elicitation.requested
	// events (forms for the user, from MCP servers or other clients).
	RequestElicitation bool `json:"requestElicitation,omitempty"`

	// ClientName names the application in the User-Agent of the CLI's
	// model requests.
	ClientName string `json:"clientName,omitempty"`
	// ReasoningEffort is "low", "medium", "high", "xhigh" or "max", for
	// models that support it.
	ReasoningEffort  string           `json:"reasoningEffort,omitempty"`
	ReasoningSummary ReasoningSummary `json:"reasoningSummary,omitempty"`
	// AdditionalDirectories are directories the agent may use besides the
	// working directory.
	AdditionalDirectories []string                    `json:"additionalDirectories,omitempty"`
	MCPServers            map[string]SessionMCPServer `json:"mcpServers,omitempty"`
	EnvValueMode          string                      `json:"envValueMode,omitempty"`
	CustomAgents          []CustomAgentConfig         `json:"customAgents,omitempty"`
	// Agent selects one of CustomAgents for the session's turns.
	Agent                  string                 `json:"agent,omitempty"`
	SkillDirectories       []string               `json:"skillDirectories,omitempty"`
	DisabledSkills         []string               `json:"disabledSkills,omitempty"`
	InstructionDirectories []string               `json:"instructionDirectories,omitempty"`
	InfiniteSessions       *InfiniteSessionConfig `json:"infiniteSessions,omitempty"`
	// ConfigDir is where the session keeps its configuration and state,
	// instead of the CLI's.
	ConfigDir string `json:"configDir,omitempty"`
	// Provider is a model provider of the caller's (bring your own key),
	// instead of GitHub Copilot's.
	Provider *ProviderConfig `json:"provider,omitempty"`
	// GitHubToken authenticates this session as the token's owner, instead
	// of the CLI's login.
	GitHubToken string `json:"gitHubToken,omitempty"`
	// SandboxConfig confines the built-in tools' commands with the CLI's
	// process sandbox; SandboxConfigSource says where the choice came from.
	SandboxConfig       *SandboxConfig      `json:"sandboxConfig,omitempty"`
	SandboxConfigSource SandboxConfigSource `json:"sandboxConfigSource,omitempty"`

	// Extra holds params the fields above do not name, by their wire name
	// (enableCitations, sessionLimits, …), sent as they are. A key that a
	// field above writes is refused when marshalling (extra.go).
	Extra map[string]json.RawMessage `json:"-"`
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
