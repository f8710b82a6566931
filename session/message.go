package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Replier answers one incoming request. The router supplies it; it must not
// block on the peer.
type Replier interface {
	Reply(ctx context.Context, id jsonrpc2.ID, result any) error
	ReplyWithError(ctx context.Context, id jsonrpc2.ID, err *jsonrpc2.Error) error
}

// Message is one message routed to a session: a notification (almost always
// session.event) or an incoming request that must be answered. The design
// calls it RoutedMessage.
type Message struct {
	Method string
	Params json.RawMessage
	// ID is the request id; meaningful only when IsRequest.
	ID      jsonrpc2.ID
	replier Replier

	// ev caches the decoding of a session.event, done once by
	// Channel.Receive on the consumer's goroutine (decode.go); eventErr is
	// why it failed.
	ev       *decoded
	eventErr error
}

// NewNotification returns a notification message.
func NewNotification(method string, params json.RawMessage) Message {
	return Message{Method: method, Params: params}
}

// NewRequest returns a request message answered through r.
func NewRequest(method string, id jsonrpc2.ID, params json.RawMessage, r Replier) Message {
	return Message{Method: method, Params: params, ID: id, replier: r}
}

// IsRequest reports whether the peer waits for an answer to m.
func (m Message) IsRequest() bool { return m.replier != nil }

// ErrNotRequest is returned when replying to a notification.
var ErrNotRequest = errors.New("session: message is a notification; there is nothing to reply to")

// Respond answers the request with result.
func (m Message) Respond(ctx context.Context, result any) error {
	if m.replier == nil {
		return ErrNotRequest
	}
	return m.replier.Reply(ctx, m.ID, result)
}

// RespondError answers the request with a JSON-RPC error.
func (m Message) RespondError(ctx context.Context, code int64, message string) error {
	if m.replier == nil {
		return ErrNotRequest
	}
	return m.replier.ReplyWithError(ctx, m.ID, &jsonrpc2.Error{Code: code, Message: message})
}

// Event returns the event a session.event notification carries. Its Data
// shares its bytes with Params: modify neither.
func (m Message) Event() (Event, error) {
	if m.ev == nil && m.eventErr == nil {
		m.decodeEvent()
	}
	if m.eventErr != nil {
		return Event{}, m.eventErr
	}
	return m.ev.event, nil
}

// decodeEvent decodes the event into the message's cache and reports
// whether it could.
func (m *Message) decodeEvent() bool {
	if m.Method != protocol.NotificationSessionEvent {
		m.eventErr = fmt.Errorf("session: %s is not a %s", m.Method, protocol.NotificationSessionEvent)
		return false
	}
	if d, ok := fastEvent(m.Params); ok {
		m.ev = d
		return true
	}
	var p struct {
		Event *Event `json:"event"`
	}
	switch err := json.Unmarshal(m.Params, &p); {
	case err != nil:
		m.eventErr = fmt.Errorf("session: decoding %s: %w", protocol.NotificationSessionEvent, err)
	case p.Event == nil:
		m.eventErr = fmt.Errorf("session: %s without an event", protocol.NotificationSessionEvent)
	default:
		m.ev = &decoded{event: *p.Event, data: -1}
	}
	return m.ev != nil
}

// Size is what the message costs against a buffer bound: its params plus
// a fixed overhead, so that a flood of empty messages is bounded too.
func (m Message) Size() int { return len(m.Params) + len(m.Method) + 128 }

// deltaText returns the text of an assistant.message_delta event, as
// protocol.AssistantMessageDeltaData's DeltaContent; ok is false when its
// data does not decode. m's event must have been decoded.
func (m Message) deltaText() (string, bool) {
	if text, ok := m.ev.deltaText(); ok {
		return text, true
	}
	var d protocol.AssistantMessageDeltaData
	if m.ev.event.UnmarshalData(&d) != nil {
		return "", false
	}
	return d.DeltaContent, true
}
