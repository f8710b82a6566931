package sim

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// pendingKind tells the two kinds of pending request apart, so an answer of
// the wrong kind is refused.
type pendingKind int

const (
	pendingPermission pendingKind = iota
	pendingTool
)

func (k pendingKind) String() string {
	if k == pendingPermission {
		return "permission request"
	}
	return "tool call"
}

// pendingAnswer is a request the turn is waiting for the client to answer.
type pendingAnswer struct {
	kind pendingKind
	ch   chan json.RawMessage // buffered 1: the answering handler never waits
}

// runTool runs one tool call: tool.execution_start, the exchanges the
// tool and flow call for (ask_user's question, or a client tool's
// permission and call), tool.execution_complete. A non-nil error means the
// turn was stopped.
func (s *session) runTool(t *turn, req protocol.AssistantMessageToolRequest) (ToolResult, error) {
	res := ToolResult{CallID: req.ToolCallID, Name: req.Name, Arguments: req.Arguments}
	if err := s.emit(t, protocol.EventToolExecutionStart, protocol.ToolExecutionStartData{
		ToolCallID: req.ToolCallID,
		ToolName:   req.Name,
		Arguments:  req.Arguments,
	}); err != nil {
		return res, err
	}

	def, ok := s.tool(req.Name)
	legacy := s.conn.srv.opts.ToolFlow == ToolFlowLegacyRequest
	switch {
	case req.Name == AskUserTool && s.canAskUser():
		var err error
		if res.Text, res.Error, err = s.askUser(t, req); err != nil {
			return res, err
		}
	case !ok:
		res.Error = fmt.Sprintf("Tool '%s' does not exist.", req.Name)
	case legacy:
		a := s.conn.call(t.ctx, protocol.MethodToolCall, protocol.ToolCallParams{
			SessionID:  s.id,
			ToolCallID: req.ToolCallID,
			ToolName:   req.Name,
			Arguments:  req.Arguments,
		})
		switch {
		case a.Err != nil:
			return res, errStopped
		case a.Error != nil:
			res.Error = a.Error.Message
		default:
			var r struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(a.Result, &r); err != nil || len(r.Result) == 0 {
				r.Result = a.Result
			}
			res.Text, res.ResultType, res.Error = parseToolResult(r.Result)
		}
	default:
		if def.SkipPermission {
			// no permission needed
		} else if !s.requestPermission {
			res.Error = "permission denied: the session cannot request permission (create it with requestPermission:true, or mark the tool skipPermission:true)"
			break
		} else {
			approved, err := s.askPermission(t, req, def)
			if err != nil {
				return res, err
			}
			if !approved {
				// As on the real CLI: a refusal fails the call and ends the
				// turn; the model is not called again.
				if err := s.emit(t, protocol.EventToolExecutionComplete, protocol.ToolExecutionCompleteData{
					ToolCallID: req.ToolCallID, Success: false,
					Error: &protocol.ToolExecutionCompleteError{Code: "rejected", Message: "The user rejected this tool call."},
				}); err != nil {
					return res, err
				}
				return res, errRejected
			}
		}
		answer, err := s.askClient(t, req)
		if err != nil {
			return res, err
		}
		res.Text, res.ResultType, res.Error = parseToolAnswer(answer)
	}

	data := protocol.ToolExecutionCompleteData{ToolCallID: req.ToolCallID, Success: res.OK()}
	if res.OK() {
		if res.ResultType == "" {
			res.ResultType = "success"
		}
		data.Result = &protocol.ToolExecutionCompleteResult{Content: res.Text}
	} else {
		res.ResultType, res.Text = "failure", res.Error
		data.Error = &protocol.ToolExecutionCompleteError{Message: res.Error}
	}
	return res, s.emit(t, protocol.EventToolExecutionComplete, data)
}

// await registers a pending request and emits the event announcing it under
// one hold of the session's lock (so the answer cannot outrun the
// registration), then waits for the answer or for the turn to stop.
func (s *session) await(t *turn, kind pendingKind, requestID, typ string, data any) (json.RawMessage, error) {
	p := &pendingAnswer{kind: kind, ch: make(chan json.RawMessage, 1)}
	if err := s.emitThen(t, "", typ, data, func() { s.pending[requestID] = p }); err != nil {
		return nil, err
	}
	select {
	case a := <-p.ch:
		return a, nil
	case <-t.ctx.Done():
		return nil, errStopped
	}
}

// askPermission runs the protocol-3 permission exchange and reports whether
// the client approved.
func (s *session) askPermission(t *turn, req protocol.AssistantMessageToolRequest, def protocol.ToolDefinition) (bool, error) {
	requestID := uuid.NewString()
	raw, err := s.await(t, pendingPermission, requestID, protocol.EventPermissionRequested, protocol.PermissionRequestedData{
		RequestID: requestID,
		PermissionRequest: protocol.PermissionRequest{
			Kind:            "custom-tool",
			ToolName:        req.Name,
			ToolCallID:      req.ToolCallID,
			Args:            req.Arguments,
			ToolDescription: def.Description,
		},
	})
	if err != nil {
		return false, err
	}
	var answer protocol.SessionPermissionsHandlePendingPermissionRequestParams
	json.Unmarshal(raw, &answer) // validated by the handler
	approved := isApproval(answer.Result.Kind)
	kind := "denied-interactively-by-user"
	if approved {
		kind = "approved"
	}
	err = s.emit(t, protocol.EventPermissionCompleted, protocol.PermissionCompletedData{
		RequestID: requestID,
		Result:    protocol.PermissionResult{Kind: kind},
	})
	return approved, err
}

// isApproval reports whether a permission decision kind approves: the
// approve-* family ("approve-once", "approve-for-session", ...) and the older
// "approved".
func isApproval(kind string) bool {
	return kind == "approved" || strings.HasPrefix(kind, "approve")
}

// askClient runs the protocol-3 external tool exchange and returns the
// client's answer (the params of handlePendingToolCall).
func (s *session) askClient(t *turn, req protocol.AssistantMessageToolRequest) (json.RawMessage, error) {
	requestID := uuid.NewString()
	answer, err := s.await(t, pendingTool, requestID, protocol.EventExternalToolRequested, protocol.ExternalToolRequestedData{
		RequestID:  requestID,
		SessionID:  s.id,
		ToolCallID: req.ToolCallID,
		ToolName:   req.Name,
		Arguments:  req.Arguments,
	})
	if err != nil {
		return nil, err
	}
	return answer, s.emit(t, protocol.EventExternalToolCompleted, protocol.ExternalToolCompletedData{RequestID: requestID})
}

// parseToolAnswer reads handlePendingToolCall's params: an "error" string,
// or a "result".
func parseToolAnswer(raw json.RawMessage) (text, resultType, errText string) {
	var a struct {
		Result json.RawMessage `json:"result"`
		Error  *string         `json:"error"`
	}
	json.Unmarshal(raw, &a) // validated by the handler
	if a.Error != nil && (len(a.Result) == 0 || string(a.Result) == "null") {
		msg := *a.Error
		if msg == "" {
			msg = "tool failed"
		}
		return "", "failure", msg
	}
	return parseToolResult(a.Result)
}

// parseToolResult reads a tool result: a string, or an object with
// textResultForLlm, resultType and error. A resultType other than "success"
// makes it a failure.
func parseToolResult(raw json.RawMessage) (text, resultType, errText string) {
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return str, "success", ""
	}
	var r struct {
		TextResultForLlm string `json:"textResultForLlm"`
		ResultType       string `json:"resultType"`
		Error            string `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", "failure", "malformed tool result: " + err.Error()
	}
	if r.ResultType == "" {
		r.ResultType = "success"
	}
	if r.ResultType != "success" {
		msg := r.Error
		if msg == "" {
			msg = r.TextResultForLlm
		}
		if msg == "" {
			msg = "tool result type " + r.ResultType
		}
		return r.TextResultForLlm, r.ResultType, msg
	}
	return r.TextResultForLlm, r.ResultType, ""
}

// answer hands a client's answer to the turn waiting for requestID.
func (c *Conn) answer(r *request, kind pendingKind, validate func(json.RawMessage) error) error {
	var p struct {
		SessionID string `json:"sessionId"`
		RequestID string `json:"requestId"`
	}
	s, err := c.lookup(r, &p, func() string { return p.SessionID })
	if err != nil {
		return err
	}
	if p.RequestID == "" {
		return invalidParams("invalid params for %s: requestId is required", r.method)
	}
	if err := validate(r.params); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pa := s.pending[p.RequestID]
	if pa == nil || pa.kind != kind {
		return refused("no pending %s with requestId %s in session %s", kind, p.RequestID, s.id)
	}
	delete(s.pending, p.RequestID)
	pa.ch <- r.params
	return nil
}

func (c *Conn) handlePermissionAnswer(r *request) (any, error) {
	err := c.answer(r, pendingPermission, func(raw json.RawMessage) error {
		var p protocol.SessionPermissionsHandlePendingPermissionRequestParams
		json.Unmarshal(raw, &p) // shape checked by lookup's decode
		if p.Result.Kind == "" {
			return invalidParams("invalid params for %s: result.kind is required (e.g. \"approve-once\" or \"reject\")", r.method)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return protocol.PermissionRequestResult{Success: true}, nil
}

// handleToolAnswer reads the answer with a struct of its own rather than
// protocol.SessionToolsHandlePendingToolCallParams, whose Error string
// cannot tell "error":"" (a failure without a message) from no error.
func (c *Conn) handleToolAnswer(r *request) (any, error) {
	err := c.answer(r, pendingTool, func(raw json.RawMessage) error {
		var p struct {
			Result json.RawMessage `json:"result"`
			Error  *string         `json:"error"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return invalidParams("invalid params for %s: %v", r.method, err)
		}
		hasResult := len(p.Result) > 0 && string(p.Result) != "null"
		if !hasResult && p.Error == nil {
			return invalidParams("invalid params for %s: result or error is required", r.method)
		}
		if hasResult {
			var str string
			var obj map[string]json.RawMessage
			if json.Unmarshal(p.Result, &str) != nil && json.Unmarshal(p.Result, &obj) != nil {
				return invalidParams("invalid params for %s: result must be an object with textResultForLlm, or a string", r.method)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return protocol.HandlePendingToolCallResult{Success: true}, nil
}
