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

// Elicit asks the session's user to fill in a form: the CLI passes it to a
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
