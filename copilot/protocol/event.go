package protocol

import (
	"encoding/json"
	"fmt"
)

// Event is the envelope of one session event, as the session.event
// notification carries it: {sessionId, event: Event}. Data is decoded on
// demand (Event.Decode), so routing never pays for it and an event type
// this package does not know passes through untouched.
type Event struct {
	// ID names the event (a UUID). The CLI may send one event twice; the
	// session package delivers each id once.
	ID string `json:"id,omitempty"`
	// Timestamp is when the CLI made the event, in ISO 8601.
	Timestamp string `json:"timestamp,omitempty"`
	// ParentID is the event before it in the session's chain; nil for the
	// first.
	ParentID *string `json:"parentId,omitempty"`
	// Type is one of the Event* constants, or a newer type.
	Type string `json:"type"`
	// Data is the event's payload, as sent.
	Data json.RawMessage `json:"data,omitempty"`
	// Ephemeral marks an event sent live and not kept in the session's
	// history (deltas, usage, idle).
	Ephemeral bool `json:"ephemeral,omitempty"`
	// AgentID names the sub-agent the event belongs to; empty for the main
	// agent and for session-wide events.
	AgentID string `json:"agentId,omitempty"`
}

// EventNotification is the params of the session.event notification.
type EventNotification struct {
	SessionID string `json:"sessionId"`
	Event     Event  `json:"event"`
}

// Known says whether the schema this package was generated from defines
// the event's type.
func (e Event) Known() bool { return newEventData(e.Type) != nil }

// Decode returns the event's data as its typed value: a pointer to the
// type's data struct (*AssistantMessageDeltaData for
// "assistant.message_delta", …). An event of a type the schema does not
// know returns its raw data, as json.RawMessage, and no error.
func (e Event) Decode() (any, error) {
	v := newEventData(e.Type)
	if v == nil {
		return e.Data, nil
	}
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, v); err != nil {
			return nil, fmt.Errorf("protocol: event %s (%s): %w", e.Type, e.ID, err)
		}
	}
	return v, nil
}

// UnmarshalData decodes the event's data into v, a type of the caller's
// choosing: a protocol data type, or a struct of just the fields wanted.
func (e Event) UnmarshalData(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("protocol: event %s (%s): %w", e.Type, e.ID, err)
	}
	return nil
}

// DecodeEvent decodes the event's data into the data type the caller
// expects, checking the type first.
func DecodeEvent[T any](e Event, eventType string) (*T, error) {
	if e.Type != eventType {
		return nil, fmt.Errorf("protocol: event is %s, not %s", e.Type, eventType)
	}
	var v T
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, &v); err != nil {
			return nil, fmt.Errorf("protocol: event %s (%s): %w", e.Type, e.ID, err)
		}
	}
	return &v, nil
}
