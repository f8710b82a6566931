package sim

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC error codes the simulator answers with.
const (
	CodeParseError     = -32700 // a frame body that is not JSON
	CodeInvalidRequest = -32600 // JSON that is not a JSON-RPC message
	CodeMethodNotFound = -32601 // "Unhandled method <name>"
	CodeInvalidParams  = -32602 // params of the wrong shape or missing fields
	// CodeInternalError carries every refusal about state: unknown model,
	// session not found, session busy, no such pending request.
	CodeInternalError = -32603
)

// request is one client request being handled.
type request struct {
	method string
	params json.RawMessage // nil when absent
	after  []func()        // run after the reply is queued
}

// afterReply runs fn right after the reply is queued, still on the read loop,
// so what fn queues follows the reply on the wire.
func (r *request) afterReply(fn func()) { r.after = append(r.after, fn) }

// decode unmarshals params into v; absent or null params leave v alone.
func (r *request) decode(v any) error {
	if len(r.params) == 0 || string(r.params) == "null" {
		return nil
	}
	if err := json.Unmarshal(r.params, v); err != nil {
		return invalidParams("invalid params for %s: %v", r.method, err)
	}
	return nil
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc2.Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func refused(format string, args ...any) error {
	return &jsonrpc2.Error{Code: CodeInternalError, Message: fmt.Sprintf(format, args...)}
}

func sessionNotFound(id string) error { return refused("session not found: %s", id) }

func toRPCError(err error) *jsonrpc2.Error {
	if err == nil {
		return nil
	}
	var rerr *jsonrpc2.Error
	if errors.As(err, &rerr) {
		return rerr
	}
	return &jsonrpc2.Error{Code: CodeInternalError, Message: err.Error()}
}

type method func(c *Conn, r *request) (any, error)

// methods is the server's method table.
var methods map[string]method

func init() {
	methods = map[string]method{
		"connect":             (*Conn).handleConnect,
		"ping":                (*Conn).handlePing,
		"status.get":          (*Conn).handleStatus,
		"auth.getStatus":      (*Conn).handleAuthStatus,
		"models.list":         (*Conn).handleModelsList,
		"session.list":        (*Conn).handleSessionList,
		"session.create":      (*Conn).handleCreate,
		"session.resume":      (*Conn).handleResume,
		"session.send":        (*Conn).handleSend,
		"session.abort":       (*Conn).handleAbort,
		"session.destroy":     (*Conn).handleDestroy,
		"session.delete":      (*Conn).handleDestroy,
		"runtime.shutdown":    (*Conn).handleShutdown,
		"session.getMessages": (*Conn).handleGetMessages,
		"session.permissions.handlePendingPermissionRequest": (*Conn).handlePermissionAnswer,
		"session.tools.handlePendingToolCall":                (*Conn).handleToolAnswer,
	}
}

func (c *Conn) handleConnect(r *request) (any, error) {
	return map[string]any{
		"ok":              true,
		"protocolVersion": c.srv.opts.ProtocolVersion,
		"version":         Version,
	}, nil
}

func (c *Conn) handlePing(r *request) (any, error) {
	var p struct {
		Message *string `json:"message"`
	}
	if err := r.decode(&p); err != nil {
		return nil, err
	}
	msg := ""
	if p.Message != nil {
		msg = *p.Message
	}
	return map[string]any{
		"message":         "pong: " + msg,
		"timestamp":       now(), // ISO 8601, as the schema's PingResult says
		"protocolVersion": c.srv.opts.ProtocolVersion,
	}, nil
}

// handleShutdown answers runtime.shutdown as the schema says (a null
// result, sent once cleanup is done): the connection's sessions end first.
func (c *Conn) handleShutdown(r *request) (any, error) {
	if err := r.decode(&struct{}{}); err != nil {
		return nil, err
	}
	c.mu.Lock()
	sessions := c.sessions
	c.sessions = map[string]*session{}
	c.mu.Unlock()
	for _, s := range sessions {
		s.kill()
	}
	return nil, nil
}

func (c *Conn) handleStatus(r *request) (any, error) {
	return map[string]any{"version": Version, "protocolVersion": c.srv.opts.ProtocolVersion}, nil
}

func (c *Conn) handleAuthStatus(r *request) (any, error) {
	if c.srv.opts.Unauthenticated {
		return map[string]any{"isAuthenticated": false, "statusMessage": "not authenticated (simulated)"}, nil
	}
	return map[string]any{"isAuthenticated": true, "authType": "token", "login": "sim"}, nil
}

func (c *Conn) handleModelsList(r *request) (any, error) {
	type limits struct {
		MaxContextWindowTokens int `json:"max_context_window_tokens"`
	}
	type capabilities struct {
		Supports map[string]bool `json:"supports"`
		Limits   limits          `json:"limits"`
	}
	type model struct {
		ID           string       `json:"id"`
		Name         string       `json:"name"`
		Capabilities capabilities `json:"capabilities"`
	}
	out := make([]model, 0, len(c.srv.opts.Models))
	for _, m := range c.srv.opts.Models {
		name := m.Name
		if name == "" {
			name = m.ID
		}
		out = append(out, model{
			ID:   m.ID,
			Name: name,
			Capabilities: capabilities{
				Supports: map[string]bool{"vision": false},
				Limits:   limits{MaxContextWindowTokens: 128000},
			},
		})
	}
	return map[string]any{"models": out}, nil
}
