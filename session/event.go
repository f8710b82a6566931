package session

import "encoding/json"

// Event is the envelope of one session event. Data is left raw: there are
// dozens of event types and unknown ones must pass through untouched.
type Event struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
	ParentID  *string         `json:"parentId,omitempty"`
	Ephemeral bool            `json:"ephemeral,omitempty"`
}

// Event types that turn reading understands.
const (
	EventStart             = "session.start"
	EventIdle              = "session.idle"
	EventError             = "session.error"
	EventAbort             = "abort"
	EventMessageDelta      = "assistant.message_delta"
	EventMessage           = "assistant.message"
	EventUsage             = "assistant.usage"
	EventToolRequested     = "external_tool.requested"
	EventPermissionRequest = "permission.requested"
)

// Decode unmarshals the event's data into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Data, v) }
