package copilot

import (
	"context"
	"encoding/json"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// SessionCapabilities is what the CLI said a session can do, in its answer
// to session.create or session.resume, as capabilities.changed events
// update it since.
type SessionCapabilities struct {
	UI UICapabilities `json:"ui"`
	// Extensions: the session can load CLI extensions.
	Extensions bool `json:"extensions"`
}

// UICapabilities is what the clients of a session can show a user.
type UICapabilities struct {
	// Elicitation: a client of the session fills in forms
	// (SessionConfig.OnElicitation), so Session.Elicit can ask.
	Elicitation bool `json:"elicitation"`
	MCPApps     bool `json:"mcpApps"`
	Canvases    bool `json:"canvases"`
}

// Capabilities returns what the CLI said the session can do, when it was
// created or resumed, as capabilities.changed events have updated it since
// (another client joining with a form handler, say). A CLI that said
// nothing leaves every capability false.
func (s *Session) Capabilities() SessionCapabilities {
	if c := s.caps.Load(); c != nil {
		return *c
	}
	return SessionCapabilities{}
}

// setCapabilities keeps what create or resume answered.
func (s *Session) setCapabilities(raw json.RawMessage) {
	var c SessionCapabilities
	if len(raw) > 0 && json.Unmarshal(raw, &c) != nil {
		s.log.Debug().RawJSON("capabilities", raw).Msg("the CLI's capabilities do not decode")
	}
	s.caps.Store(&c)
}

// noteCapabilities applies a capabilities.changed event. It runs on the
// session's reader, one event at a time.
func (s *Session) noteCapabilities(ev Event) {
	if ev.Type != protocol.EventCapabilitiesChanged {
		return
	}
	var d protocol.CapabilitiesChangedData
	if ev.UnmarshalData(&d) != nil || d.UI == nil {
		return
	}
	c := s.Capabilities()
	if d.UI.Elicitation != nil {
		c.UI.Elicitation = *d.UI.Elicitation
	}
	if d.UI.MCPApps != nil {
		c.UI.MCPApps = *d.UI.MCPApps
	}
	s.caps.Store(&c)
}

// Elicit asks the session's user to fill in a form (Confirm, Select and
// Input ask the common ones): the CLI passes it to a
// client of the session that shows forms (one that set
// SessionConfig.OnElicitation) and returns its answer. A session without
// such a client (Capabilities().UI.Elicitation false) is refused with an
// error wrapping ErrNoElicitation before anything is sent. The session id
// of params is filled in.
func (s *Session) Elicit(ctx context.Context, params protocol.SessionUIElicitationParams) (*protocol.UIElicitationResponse, error) {
	if !s.Capabilities().UI.Elicitation {
		return nil, ErrNoElicitation
	}
	if err := s.superseded("asking a form of"); err != nil {
		return nil, err
	}
	return s.RPC().UI.Elicitation(ctx, params)
}

// Confirm asks the session's user a yes-or-no question (a form of one
// boolean, yes by default) and returns the answer; false when the user
// declines or cancels the form. It is refused as Elicit is.
func (s *Session) Confirm(ctx context.Context, message string) (bool, error) {
	res, err := s.askOne(ctx, message, "confirmed", protocol.UIElicitationSchemaProperty{Type: json.RawMessage(`"boolean"`), Default: json.RawMessage(`true`)})
	if err != nil || res == nil {
		return false, err
	}
	var yes bool
	return json.Unmarshal(res, &yes) == nil && yes, nil
}

// Select asks the session's user to pick one of options and returns it; ok
// is false when the user declines or cancels the form. It is refused as
// Elicit is.
func (s *Session) Select(ctx context.Context, message string, options []string) (choice string, ok bool, err error) {
	res, err := s.askOne(ctx, message, "selection", protocol.UIElicitationSchemaProperty{Type: json.RawMessage(`"string"`), Enum: options})
	if err != nil || res == nil {
		return "", false, err
	}
	// Decoded before the return: the spec leaves unordered the reading of
	// choice and the call that writes it within one return statement.
	if err := json.Unmarshal(res, &choice); err != nil {
		return "", false, nil
	}
	return choice, true, nil
}

// Input asks the session's user for a line of text, the field described by
// field (its Title, Description, MinLength, MaxLength, Format, Default; its
// Type is set to string), and returns it; ok is false when the user
// declines or cancels the form. It is refused as Elicit is.
func (s *Session) Input(ctx context.Context, message string, field protocol.UIElicitationSchemaProperty) (text string, ok bool, err error) {
	field.Type = json.RawMessage(`"string"`)
	res, err := s.askOne(ctx, message, "value", field)
	if err != nil || res == nil {
		return "", false, err
	}
	if err := json.Unmarshal(res, &text); err != nil { // decoded first, as in Select
		return "", false, nil
	}
	return text, true, nil
}

// askOne asks a form of one required field and returns the field's value
// when the user accepted it; nil when not.
func (s *Session) askOne(ctx context.Context, message, name string, field protocol.UIElicitationSchemaProperty) (json.RawMessage, error) {
	res, err := s.Elicit(ctx, protocol.SessionUIElicitationParams{Message: message, RequestedSchema: protocol.UIElicitationSchema{
		Type: "object", Properties: map[string]protocol.UIElicitationSchemaProperty{name: field}, Required: []string{name}}})
	if err != nil || res.Action != protocol.UIElicitationResponseActionAccept {
		return nil, err
	}
	return res.Content[name], nil
}
