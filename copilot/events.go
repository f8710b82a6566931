package copilot

import (
	"encoding/json"

	"github.com/quorum-go/quorum/session"
)

// Event is one session event. Its Data is raw JSON: there are dozens of
// event types, and unknown ones pass through untouched. The typed structs
// below decode the ones that matter, with Event.Decode.
type Event = session.Event

// Event types, as the CLI names them.
const (
	EventSessionStart       = session.EventStart
	EventSessionIdle        = session.EventIdle
	EventSessionError       = session.EventError
	EventAbort              = session.EventAbort
	EventUserMessage        = "user.message"
	EventTurnStart          = "assistant.turn_start"
	EventTurnEnd            = "assistant.turn_end"
	EventMessageDelta       = session.EventMessageDelta
	EventMessage            = session.EventMessage
	EventUsage              = session.EventUsage
	EventUsageInfo          = "session.usage_info"
	EventToolRequested      = session.EventToolRequested
	EventToolCompleted      = "external_tool.completed"
	EventToolExecutionDone  = "tool.execution_complete"
	EventPermissionRequest  = session.EventPermissionRequest
	EventPermissionComplete = "permission.completed"
	EventAutoModeSwitch     = "auto_mode_switch.requested"
)

// MessageDelta is the data of assistant.message_delta: one streamed chunk.
type MessageDelta struct {
	MessageID    string `json:"messageId"`
	DeltaContent string `json:"deltaContent"`
}

// AssistantMessage is the data of assistant.message: one whole reply.
type AssistantMessage struct {
	MessageID    string            `json:"messageId"`
	Content      string            `json:"content"`
	ToolRequests []json.RawMessage `json:"toolRequests,omitempty"`
}

// Usage is the data of assistant.usage, reported after each model call.
// Token counts are zero when the model API did not report them.
type Usage struct {
	Model              string  `json:"model,omitempty"`
	InputTokens        int     `json:"inputTokens,omitempty"`
	OutputTokens       int     `json:"outputTokens,omitempty"`
	CacheReadTokens    int     `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens   int     `json:"cacheWriteTokens,omitempty"`
	Cost               float64 `json:"cost,omitempty"`
	Duration           float64 `json:"duration,omitempty"`
	TimeToFirstTokenMs float64 `json:"timeToFirstTokenMs,omitempty"`
}

// Add accumulates another model call's usage.
func (u *Usage) Add(o Usage) {
	if o.Model != "" {
		u.Model = o.Model
	}
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.Cost += o.Cost
	u.Duration += o.Duration
}

// SessionErrorData is the data of session.error, for an OnEvent handler
// to decode. It is not the turn's error: the turn that a session.error ends
// returns an error wrapping ErrTurnFailed that carries the same message.
type SessionErrorData struct {
	ErrorType string `json:"errorType"`
	Message   string `json:"message"`
}

// ToolRequested is the data of external_tool.requested.
type ToolRequested = session.ToolRequest

// permission.requested has no data type here: the session answers it
// through its PermissionPolicy, which gets it as a PermissionRequest.
