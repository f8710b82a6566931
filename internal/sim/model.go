package sim

import (
	"fmt"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// AutoModel is the id of the CLI's virtual model that routes each request to
// a model of the provider's choosing; a session switches to it after a rate
// limit when the client says yes. Unless the server offers a model with this
// id, its calls go to Options.DefaultModel's script (Turn.Model still says
// "auto").
const AutoModel = "auto"

// scriptFor returns the model whose script answers a call to the model id,
// or nil when the server cannot serve it.
func (srv *Server) scriptFor(id string) *Model {
	if m := srv.model(id); m != nil {
		return m
	}
	if id == AutoModel {
		return srv.model(srv.opts.DefaultModel)
	}
	return nil
}

// modelLabel is how the CLI names a model in its messages: with the
// provider for a model it lists, bare for any other id.
func (srv *Server) modelLabel(id string) string {
	if srv.model(id) != nil {
		return "GitHub Copilot • " + id
	}
	return id
}

// switchNotice is what CLI 1.0.102 puts before the prompt of the first model
// call after the session's model changed, so that the model knows.
func switchNotice(from, to string) string {
	return fmt.Sprintf("<tools_changed_notice>\nThe model has been switched from %s to %s.\n</tools_changed_notice>\n\n", from, to)
}

// switchModelLocked makes model the session's model, with the
// session.model_change event that says so. s.mu is held.
func (s *session) switchModelLocked(model string, change protocol.ModelChangeData) {
	change.PreviousModel, change.NewModel = s.cfg.model, model
	s.cfg.model = model
	s.emitLocked(protocol.EventSessionModelChange, change)
}

// handleModelSwitchTo switches the session's model at once, as CLI 1.0.102
// does between turns (during a turn, the next model call uses it). Like the
// CLI it takes any id: a model the server does not offer fails the next
// turn that calls it.
func (c *Conn) handleModelSwitchTo(r *request) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModelID   string `json:"modelId"`
	}
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	if p.ModelID == "" {
		return nil, invalidParams("invalid params for %s: modelId is required", r.method)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return nil, sessionNotFound(s.id)
	}
	from := s.cfg.model
	s.switchModelLocked(p.ModelID, protocol.ModelChangeData{Source: protocol.ModelChangeSourceSDK})
	return protocol.ModelSwitchToResult{
		Status:              "applied",
		Deferred:            ptr(false),
		ModelID:             p.ModelID,
		Message:             fmt.Sprintf("Model changed from %s to %s", c.srv.modelLabel(from), c.srv.modelLabel(p.ModelID)),
		DeprecationWarnings: []string{},
		ModelState:          &protocol.CurrentModel{ModelID: p.ModelID},
	}, nil
}

func (c *Conn) handleModelGetCurrent(r *request) (any, error) {
	var p protocol.SessionModelGetCurrentParams
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	return protocol.CurrentModel{ModelID: s.settings().model}, nil
}
