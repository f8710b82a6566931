package sim

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// pendingKind tells the kinds of pending request apart, so an answer of
// the wrong kind is refused.
type pendingKind int

const (
	pendingPermission pendingKind = iota
	pendingTool
	pendingAutoModeSwitch
	pendingElicitation
)

func (k pendingKind) String() string {
	switch k {
	case pendingPermission:
		return "permission request"
	case pendingAutoModeSwitch:
		return "auto mode switch"
	case pendingElicitation:
		return "elicitation"
	}
	return "tool call"
}

// pendingAnswer is a request the turn is waiting for the client to answer.
type pendingAnswer struct {
	kind pendingKind
	ch   chan json.RawMessage // buffered 1: the answering handler never waits
}

// toolFailure is why a tool did not give a result: tool.execution_complete's
// error {code, message}, which the model reads as the tool's result.
type toolFailure struct {
	code    string
	message string
	// executed says the tool was looked up or run (and failed), rather
	// than kept from running: only then does the postToolUseFailure hook
	// run, as on CLI 1.0.102.
	executed bool
	// llm, when set, is what the model reads instead of message: CLI
	// 1.0.102 words a built-in tool's failure twice, tersely in
	// tool.execution_complete ("Path does not exist") and at length for
	// the model ("Path /x does not exist. Please provide a valid path.").
	llm string
	// remediation is the error's remediation, when the CLI names one (a
	// sandbox refusal: "review_sandbox_policy").
	remediation protocol.RemediationAction
}

// noPermission is the CLI's failure of a tool that needed permission when
// none could be asked (the session has no requestPermission) or the client
// answered user-not-available.
var noPermission = toolFailure{code: "denied", message: "Permission denied and could not request permission from user. Copilot needed the user's approval and no one could answer."}

// runTool runs one tool call: tool.execution_start, the exchanges the tool
// and flow call for (with hooks, preToolUse first; ask_user's question, or
// a client tool's permission and call; with hooks, postToolUse or
// postToolUseFailure after), tool.execution_complete. A non-nil error means
// the turn was stopped (errRejected: by a refusal that ends it).
func (s *session) runTool(t *turn, cfg settings, req protocol.AssistantMessageToolRequest) (ToolCallResult, error) {
	res := ToolCallResult{CallID: req.ToolCallID, Name: req.Name, Arguments: req.Arguments}
	start := protocol.ToolExecutionStartData{
		ToolCallID: req.ToolCallID,
		ToolName:   req.Name,
		Arguments:  req.Arguments,
	}
	if cfg.builtin(req.Name) {
		// As CLI 1.0.102 starts its own tools: with a title, and for
		// bash the paths the command may touch.
		start.ToolTitle = builtinTitles[req.Name]
		if req.Name == ToolBash {
			start.ShellToolInfo = shellToolInfo(req.Arguments)
		}
	}
	if err := s.emit(t, protocol.EventToolExecutionStart, start); err != nil {
		return res, err
	}

	var pre preToolUseOutput
	if cfg.hooks {
		var err error
		if pre, err = s.preToolUseHook(t, req); err != nil {
			return res, err
		}
		if len(pre.ModifiedArgs) > 0 && string(pre.ModifiedArgs) != "null" {
			res.Arguments = pre.ModifiedArgs
		}
	}
	var done completion
	fail, err := s.execTool(t, cfg, req, pre, &res, &done)
	if err != nil {
		return res, err
	}
	if fail != nil {
		res.Text, res.ResultType, res.Error = "", "failure", fail.message
		if fail.code == "denied" || fail.code == "rejected" {
			res.ResultType = "denied"
		}
	} else if res.ResultType == "" {
		res.ResultType = "success"
	}
	if cfg.hooks && (fail == nil || fail.executed) {
		if err := s.postToolUseHook(t, &res); err != nil {
			return res, err
		}
	}

	data := protocol.ToolExecutionCompleteData{ToolCallID: req.ToolCallID, Success: res.OK()}
	if _, client := tool(cfg.tools, req.Name); !client && cfg.builtin(req.Name) && sandboxed(cfg.sandbox) {
		data.Sandboxed = ptr(true) // as CLI 1.0.102 marks each built-in tool's call in a sandbox
	}
	if res.OK() {
		data.Result = &protocol.ToolExecutionCompleteResult{Content: res.Text}
		done.fill(&data)
	} else {
		res.Text = res.Error
		data.Error = &protocol.ToolExecutionCompleteError{Message: res.Error}
		if fail != nil {
			data.Error.Code, data.Error.Remediation = fail.code, fail.remediation
			if fail.llm != "" {
				res.Text = fail.llm
			}
		}
	}
	return res, s.emit(t, protocol.EventToolExecutionComplete, data)
}

// execTool runs the tool itself, after its preToolUse hook (pre), filling
// in res on success (and done, for a built-in tool). It returns why the
// tool gave no result, or a non-nil error when the turn was stopped.
func (s *session) execTool(t *turn, cfg settings, req protocol.AssistantMessageToolRequest, pre preToolUseOutput, res *ToolCallResult, done *completion) (*toolFailure, error) {
	if pre.PermissionDecision == hookDeny {
		reason := pre.PermissionDecisionReason
		if reason == "" {
			reason = noHookReason
		}
		return &toolFailure{code: "denied", message: "Denied by preToolUse hook: " + reason}, nil
	}
	def, ok := tool(cfg.tools, req.Name)
	switch {
	case req.Name == AskUserTool && cfg.requestUserInput:
		answer, errText, err := s.askUser(t, req)
		if err != nil {
			return nil, err
		}
		if errText != "" {
			return &toolFailure{code: "failure", message: errText, executed: true}, nil
		}
		res.Text = answer
		return nil, nil
	case !ok && cfg.builtin(req.Name):
		return s.runBuiltin(t, cfg, req, pre, res, done)
	case !ok && t.permissions[req.ToolCallID] != nil:
		// A tool of the CLI's the simulator plays only by its
		// permission request (ToolCall.Permission).
		if fail, err := s.permit(t, cfg, req, pre, res.Arguments, false, false, t.permissions[req.ToolCallID], nil); fail != nil || err != nil {
			return fail, err
		}
		res.Text = PermittedToolOutput
		return nil, nil
	case !ok:
		return &toolFailure{code: "failure", message: fmt.Sprintf("Tool '%s' does not exist.", req.Name), executed: true}, nil
	}

	legacy := s.conn.srv.opts.ToolFlow == ToolFlowLegacyRequest
	// The kind's own type, not the union: the schema requires
	// toolDescription even when the tool has none.
	request := protocol.PermissionRequestCustomTool{
		Kind:            "custom-tool",
		ToolName:        req.Name,
		ToolCallID:      req.ToolCallID,
		Args:            res.Arguments,
		ToolDescription: def.Description,
	}
	if fail, err := s.permit(t, cfg, req, pre, res.Arguments, def.SkipPermission, false, request, nil); fail != nil || err != nil {
		return fail, err
	}

	if legacy {
		a := s.conn.call(t.ctx, protocol.MethodToolCall, protocol.ToolCallParams{
			SessionID:  s.id,
			ToolCallID: req.ToolCallID,
			ToolName:   req.Name,
			Arguments:  res.Arguments,
		})
		switch {
		case a.Err != nil:
			return nil, errStopped
		case a.Error != nil:
			return &toolFailure{code: "failure", message: a.Error.Message, executed: true}, nil
		}
		var r struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(a.Result, &r); err != nil || len(r.Result) == 0 {
			r.Result = a.Result
		}
		text, resultType, errText := parseToolResult(r.Result)
		return toolOutcome(res, text, resultType, errText)
	}
	answer, err := s.askClient(t, req, res.Arguments)
	if err != nil {
		return nil, err
	}
	text, resultType, errText := parseToolAnswer(answer)
	return toolOutcome(res, text, resultType, errText)
}

// toolOutcome records a client's tool result in res, or returns it as a
// failure.
func toolOutcome(res *ToolCallResult, text, resultType, errText string) (*toolFailure, error) {
	if errText != "" {
		return &toolFailure{code: "failure", message: errText, executed: true}, nil
	}
	res.Text, res.ResultType = text, resultType
	return nil, nil
}

// permit asks the client's permission for a tool call, when it needs it,
// and returns why the tool may not run (nil: it may) or a non-nil error
// when the turn was stopped (errRejected: by a refusal that ends it).
// request and prompt are the permission request and its promptRequest
// (nil: none), of the tool's kind. A preToolUse "allow" skips the question
// and "ask" asks it (as a hook request) even for a tool that skips
// permission; otherwise a tool needs it unless skip says it does not or
// it was approved for the rest of the session: a client tool by name, a
// built-in one (builtin) by what the approval covers, as CLI 1.0.102
// remembers them (builtinGrant). The legacy flow asks none. Without
// requestPermission the tool is denied, as on the real CLI.
func (s *session) permit(t *turn, cfg settings, req protocol.AssistantMessageToolRequest, pre preToolUseOutput, args json.RawMessage, skip, builtin bool, request, prompt any) (*toolFailure, error) {
	legacy := s.conn.srv.opts.ToolFlow == ToolFlowLegacyRequest
	key := req.Name
	if builtin {
		key = builtinGrant(request)
	}
	s.mu.Lock()
	remembered := key != "" && s.approved[key]
	s.mu.Unlock()
	ask := !legacy && (pre.PermissionDecision == hookAsk ||
		(pre.PermissionDecision != hookAllow && !skip && !remembered))
	if !ask {
		return nil, nil
	}
	if !cfg.requestPermission {
		return &noPermission, nil
	}
	if pre.PermissionDecision == hookAsk {
		msg := pre.PermissionDecisionReason
		if msg == "" {
			msg = noHookReason
		}
		request = protocol.PermissionRequest{Kind: "hook", ToolName: req.Name, ToolCallID: req.ToolCallID, ToolArgs: args, HookMessage: msg}
		prompt = nil
	}
	v, err := s.askPermission(t, req, request, prompt)
	if err != nil {
		return nil, err
	}
	if v.refusal != nil {
		if v.endTurn {
			// As on the real CLI: a plain refusal fails the call and
			// ends the turn; the model is not called again.
			if err := s.emit(t, protocol.EventToolExecutionComplete, protocol.ToolExecutionCompleteData{
				ToolCallID: req.ToolCallID, Success: false,
				Error: &protocol.ToolExecutionCompleteError{Code: v.refusal.code, Message: v.refusal.message},
			}); err != nil {
				return nil, err
			}
			return nil, errRejected
		}
		return v.refusal, nil
	}
	if v.remember {
		keys := []string{req.Name}
		if builtin {
			keys = approvalGrants(v.approval)
		}
		s.mu.Lock()
		for _, k := range keys {
			s.approved[k] = true
		}
		s.mu.Unlock()
	}
	return nil, nil
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

// askClient runs the protocol-3 external tool exchange and returns the
// client's answer (the params of handlePendingToolCall).
func (s *session) askClient(t *turn, req protocol.AssistantMessageToolRequest, args json.RawMessage) (json.RawMessage, error) {
	requestID := uuid.NewString()
	answer, err := s.await(t, pendingTool, requestID, protocol.EventExternalToolRequested, protocol.ExternalToolRequestedData{
		RequestID:  requestID,
		SessionID:  s.id,
		ToolCallID: req.ToolCallID,
		ToolName:   req.Name,
		Arguments:  args,
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
