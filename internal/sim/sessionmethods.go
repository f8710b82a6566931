package sim

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The methods a client runs a session with: session.create, session.send,
// session.abort and session.getMessages, with what session.resume shares
// (createParams, lookup, unknownModel). They run on the read loop, so none
// blocks (doc.go's contract); each changes the session's state (session.go)
// under its lock and queues what must be sent. Managing sessions on disk
// (destroy, delete, list, resume) is manage.go's.

// createParams are session.create's and session.resume's params. They are
// not protocol.SessionCreateParams: the simulator also takes a plain string
// as systemMessage.
type createParams struct {
	SessionID             string                    `json:"sessionId"`
	Model                 string                    `json:"model"`
	Streaming             bool                      `json:"streaming"`
	RequestPermission     bool                      `json:"requestPermission"`
	RequestUserInput      bool                      `json:"requestUserInput"`
	RequestAutoModeSwitch bool                      `json:"requestAutoModeSwitch"`
	RequestElicitation    bool                      `json:"requestElicitation"`
	Hooks                 bool                      `json:"hooks"`
	Tools                 []protocol.ToolDefinition `json:"tools"`
	SystemMessage         json.RawMessage           `json:"systemMessage"`
	AvailableTools        []string                  `json:"availableTools"`
	ExcludedTools         []string                  `json:"excludedTools"`
	ToolFilterPrecedence  string                    `json:"toolFilterPrecedence"`
	WorkingDirectory      string                    `json:"workingDirectory"`
	ClientName            string                    `json:"clientName"`
	SandboxConfig         *protocol.SandboxConfig   `json:"sandboxConfig"`
}

// settings returns the settings p asks for, with model.
func (p createParams) settings(model string) settings {
	return settings{
		model:                 model,
		streaming:             p.Streaming,
		requestPermission:     p.RequestPermission,
		requestUserInput:      p.RequestUserInput,
		requestAutoModeSwitch: p.RequestAutoModeSwitch,
		requestElicitation:    p.RequestElicitation,
		hooks:                 p.Hooks,
		tools:                 offeredTools(p),
		builtins:              offeredBuiltins(p),
		sandbox:               p.SandboxConfig,
	}
}

// systemText accepts the system message as a string or as the SDKs' object
// {"mode":"append"|"replace","content":"..."}.
func systemText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", invalidParams("invalid params for session.create: systemMessage must be a string or an object with content")
	}
	return obj.Content, nil
}

func (c *Conn) handleCreate(r *request) (any, error) {
	var p createParams
	if err := r.decode(&p); err != nil {
		return nil, err
	}
	system, err := systemText(p.SystemMessage)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, t := range p.Tools {
		if t.Name == "" {
			return nil, invalidParams("invalid params for session.create: tools[%d] has no name", i)
		}
		if seen[t.Name] {
			return nil, invalidParams("invalid params for session.create: tool %q is registered twice", t.Name)
		}
		seen[t.Name] = true
	}
	modelID := p.Model
	if modelID == "" {
		modelID = c.srv.opts.DefaultModel
	}
	m := c.srv.model(modelID)
	if m == nil {
		return nil, c.srv.unknownModel(modelID)
	}
	id := p.SessionID
	if id == "" {
		id = uuid.NewString()
	}
	s := c.newSession(id, p, system, m.ID)

	c.mu.Lock()
	switch {
	case c.closing:
		c.mu.Unlock()
		return nil, refused("connection is closing")
	case c.sessions[id] != nil:
		c.mu.Unlock()
		return nil, refused("session already exists: %s", id)
	}
	c.sessions[id] = s
	c.mu.Unlock()

	start := func() {
		data := protocol.StartData{
			SessionID:      id,
			Version:        1,
			Producer:       "copilot-agent",
			CopilotVersion: Version,
			StartTime:      s.started,
			SelectedModel:  m.ID,
		}
		if s.cwd != "" {
			data.Context = &protocol.WorkingDirectoryContext{Cwd: s.cwd}
		}
		// CLI 1.0.102 announces a creation twice: before session.start
		// and after it (and the session.updated that session.start
		// brings).
		c.lifecycle(protocol.LifecycleSessionCreated, id, s.started, s.started)
		s.mu.Lock()
		if !s.destroyed {
			s.emitLocked(protocol.EventSessionStart, data)
		}
		modified := s.modified
		s.mu.Unlock()
		c.lifecycle(protocol.LifecycleSessionCreated, id, s.started, modified)
	}
	if c.srv.startBefore() {
		start()
	} else {
		r.afterReply(start)
	}
	return protocol.SessionCreateResult{SessionID: id, WorkspacePath: s.workspace}, nil
}

// unknownModel is the refusal of a model the server does not offer.
func (srv *Server) unknownModel(id string) error {
	ids := make([]string, 0, len(srv.opts.Models))
	for _, m := range srv.opts.Models {
		ids = append(ids, m.ID)
	}
	return refused("Model %q is not available. Available models: %s", id, strings.Join(ids, ", "))
}

// lookup decodes params with a sessionId into p and returns the session.
func (c *Conn) lookup(r *request, p any, id func() string) (*session, error) {
	if len(r.params) == 0 || string(r.params) == "null" {
		return nil, invalidParams("invalid params for %s: sessionId is required", r.method)
	}
	if err := r.decode(p); err != nil {
		return nil, err
	}
	sid := id()
	if sid == "" {
		return nil, invalidParams("invalid params for %s: sessionId is required", r.method)
	}
	s := c.session(sid)
	if s == nil {
		return nil, sessionNotFound(sid)
	}
	return s, nil
}

func (c *Conn) handleSend(r *request) (any, error) {
	var p struct {
		SessionID string  `json:"sessionId"`
		Prompt    *string `json:"prompt"`
	}
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	if p.Prompt == nil {
		return nil, invalidParams("invalid params for session.send: prompt is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return nil, sessionNotFound(s.id)
	}
	if (s.cur != nil || len(s.queue) > 0) && c.srv.opts.Busy == BusyReject {
		return nil, refused("session is busy: a turn is running in session %s", s.id)
	}
	s.turns++
	ctx, cancel := context.WithCancel(c.ctx)
	t := &turn{number: s.turns, prompt: *p.Prompt, messageID: uuid.NewString(), ctx: ctx, cancel: cancel}
	s.queue = append(s.queue, t)
	if !s.running {
		s.running = true
		// Start after the reply is queued, so the turn's events follow it.
		r.afterReply(func() {
			if !c.work.Go(s.runner) {
				s.mu.Lock()
				s.running = false
				s.mu.Unlock()
			}
		})
	}
	return protocol.SendResult{MessageID: t.messageID}, nil
}

func (c *Conn) handleAbort(r *request) (any, error) {
	var p protocol.SessionIDParams
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return nil, sessionNotFound(s.id)
	}
	if s.stopLocked() {
		s.emitLocked(protocol.EventAbort, protocol.AbortData{Reason: protocol.AbortReasonUserInitiated})
		s.emitLocked(protocol.EventSessionIdle, protocol.IdleData{Aborted: ptr(true)})
	}
	return protocol.AbortResult{Success: true}, nil
}

func (c *Conn) handleGetMessages(r *request) (any, error) {
	var p protocol.SessionIDParams
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	events := slices.Clone(s.log)
	s.mu.Unlock()
	if events == nil {
		events = []Event{}
	}
	return map[string]any{"events": events}, nil
}

// offeredTools are the client tools the model is offered. As on the real
// CLI (1.0.102), availableTools, when present, filters client tools as well
// as built-in ones: a client tool it does not name is not offered.
func offeredTools(p createParams) []protocol.ToolDefinition {
	if p.AvailableTools == nil {
		return p.Tools
	}
	var out []protocol.ToolDefinition
	for _, t := range p.Tools {
		if slices.Contains(p.AvailableTools, t.Name) {
			out = append(out, t)
		}
	}
	return out
}
