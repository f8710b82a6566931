package sim

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
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
		protocol.MethodConnect:                                          (*Conn).handleConnect,
		protocol.MethodPing:                                             (*Conn).handlePing,
		protocol.MethodSandboxGetHostSupport:                            (*Conn).handleSandboxHostSupport,
		protocol.MethodStatusGet:                                        (*Conn).handleStatus,
		protocol.MethodAuthGetStatus:                                    (*Conn).handleAuthStatus,
		protocol.MethodModelsList:                                       (*Conn).handleModelsList,
		protocol.MethodAccountGetQuota:                                  (*Conn).handleGetQuota,
		protocol.MethodAccountGetCurrentAuth:                            (*Conn).handleGetCurrentAuth,
		protocol.MethodSessionList:                                      (*Conn).handleSessionList,
		protocol.MethodSessionCreate:                                    (*Conn).handleCreate,
		protocol.MethodSessionResume:                                    (*Conn).handleResume,
		protocol.MethodSessionSend:                                      (*Conn).handleSend,
		protocol.MethodSessionAbort:                                     (*Conn).handleAbort,
		protocol.MethodSessionDestroy:                                   (*Conn).handleDestroy,
		protocol.MethodSessionDelete:                                    (*Conn).handleDelete,
		protocol.MethodSessionGetMetadata:                               (*Conn).handleGetMetadata,
		protocol.MethodSessionGetLastID:                                 (*Conn).handleGetLastID,
		protocol.MethodSessionGetForeground:                             (*Conn).handleGetForeground,
		protocol.MethodSessionSetForeground:                             (*Conn).handleSetForeground,
		protocol.MethodSessionModelSwitchTo:                             (*Conn).handleModelSwitchTo,
		protocol.MethodSessionModelGetCurrent:                           (*Conn).handleModelGetCurrent,
		protocol.MethodSessionUIHandlePendingAutoModeSwitch:             (*Conn).handleAutoModeSwitchAnswer,
		protocol.MethodSessionUIHandlePendingElicitation:                (*Conn).handleElicitationAnswer,
		protocol.MethodRuntimeShutdown:                                  (*Conn).handleShutdown,
		protocol.MethodSessionGetMessages:                               (*Conn).handleGetMessages,
		protocol.MethodSessionPermissionsHandlePendingPermissionRequest: (*Conn).handlePermissionAnswer,
		protocol.MethodSessionToolsHandlePendingToolCall:                (*Conn).handleToolAnswer,
	}
}

func (c *Conn) handleConnect(r *request) (any, error) {
	return protocol.ConnectResult{Ok: true, ProtocolVersion: int64(c.srv.opts.ProtocolVersion), Version: Version}, nil
}

func (c *Conn) handlePing(r *request) (any, error) {
	var p protocol.PingRequest
	if err := r.decode(&p); err != nil {
		return nil, err
	}
	return protocol.PingResult{
		Message:         "pong: " + p.Message,
		Timestamp:       now(), // ISO 8601, as the schema's PingResult says
		ProtocolVersion: int64(c.srv.opts.ProtocolVersion),
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
	return protocol.StatusResult{Version: Version, ProtocolVersion: int64(c.srv.opts.ProtocolVersion)}, nil
}

func (c *Conn) handleAuthStatus(r *request) (any, error) {
	if c.srv.opts.Unauthenticated {
		return protocol.AuthStatus{IsAuthenticated: false, StatusMessage: "not authenticated (simulated)"}, nil
	}
	return protocol.AuthStatus{IsAuthenticated: true, AuthType: "token", Login: "sim"}, nil
}

func (c *Conn) handleModelsList(r *request) (any, error) {
	out := make([]protocol.Model, 0, len(c.srv.opts.Models))
	for i := range c.srv.opts.Models {
		m := &c.srv.opts.Models[i]
		name := m.Name
		if name == "" {
			name = m.ID
		}
		out = append(out, protocol.Model{
			ID:   m.ID,
			Name: name,
			Capabilities: protocol.ModelCapabilities{
				Supports: &protocol.ModelCapabilitiesSupports{Vision: ptr(false)},
				Limits:   &protocol.ModelCapabilitiesLimits{MaxContextWindowTokens: ptr[int64](128000)},
			},
			Billing: m.billing(),
		})
	}
	return protocol.ModelList{Models: out}, nil
}
