package sim

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// elicit asks the client to fill in a form (Response.Elicit) as the CLI asks
// for an MCP server's tool: elicitation.requested, the wait for
// session.ui.handlePendingElicitation, elicitation.completed with the
// answer. A non-nil error means the turn was stopped. A session whose
// client did not say at creation that it fills in forms
// (requestElicitation) is not asked: no one could answer, and the form is
// cancelled at once.
func (s *session) elicit(t *turn, cfg settings, e Elicitation) (ElicitationAnswer, error) {
	if !cfg.requestElicitation {
		return ElicitationAnswer{Action: string(protocol.UIElicitationResponseActionCancel)}, nil
	}
	requestID := uuid.NewString()
	props := e.Properties
	if props == nil {
		props = map[string]json.RawMessage{} // the schema requires the object
	}
	raw, err := s.await(t, pendingElicitation, requestID, protocol.EventElicitationRequested, protocol.ElicitationRequestedData{
		RequestID:       requestID,
		Message:         e.Message,
		Mode:            protocol.ElicitationRequestedModeForm,
		RequestedSchema: &protocol.ElicitationRequestedSchema{Type: "object", Properties: props, Required: e.Required},
	})
	if err != nil {
		return ElicitationAnswer{}, err
	}
	var p protocol.SessionUIHandlePendingElicitationParams
	json.Unmarshal(raw, &p) // validated by the handler
	a := ElicitationAnswer{Action: string(p.Result.Action)}
	done := protocol.ElicitationCompletedData{RequestID: requestID, Action: protocol.ElicitationCompletedAction(p.Result.Action)}
	if len(p.Result.Content) > 0 {
		a.Content = make(map[string]json.RawMessage, len(p.Result.Content))
		done.Content = make(map[string]protocol.ElicitationCompletedContent, len(p.Result.Content))
		for k, v := range p.Result.Content {
			a.Content[k], done.Content[k] = v, v
		}
	}
	return a, s.emit(t, protocol.EventElicitationCompleted, done)
}

// handleElicitationAnswer answers an elicitation.requested event. As for
// the auto-mode switch, an answer to a form no longer pending (unknown or
// answered already) is {success:false}, not an error.
func (c *Conn) handleElicitationAnswer(r *request) (any, error) {
	var p protocol.SessionUIHandlePendingElicitationParams
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	if p.RequestID == "" {
		return nil, invalidParams("invalid params for %s: requestId is required", r.method)
	}
	switch p.Result.Action {
	case protocol.UIElicitationResponseActionAccept, protocol.UIElicitationResponseActionDecline, protocol.UIElicitationResponseActionCancel:
	default:
		return nil, invalidParams("invalid params for %s: result.action must be \"accept\", \"decline\" or \"cancel\"", r.method)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pa := s.pending[p.RequestID]
	if pa == nil || pa.kind != pendingElicitation {
		return protocol.UIElicitationResult{Success: false}, nil
	}
	delete(s.pending, p.RequestID)
	pa.ch <- r.params
	return protocol.UIElicitationResult{Success: true}, nil
}
