package clitest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// These tests pin down what CLI 1.0.102 does where our SDK depends on it, so
// a CLI upgrade that changes it fails here first, with the CLI named as the
// cause. One CLI serves all subtests (each start costs about a second); each
// subtest scripts its own sessions through modelapi conversations.

// The client tool every tool test offers.
var lookupTool = map[string]any{
	"name":        "lookup",
	"description": "Looks things up",
	"parameters": map[string]any{
		"type":       "object",
		"properties": map[string]any{"q": map[string]any{"type": "string"}},
		"required":   []string{"q"},
	},
}

func withSkipPermission(tool map[string]any) map[string]any {
	out := map[string]any{"skipPermission": true}
	for k, v := range tool {
		out[k] = v
	}
	return out
}

// eventData decodes the data of the first event of type typ in notes.
func eventData(t *testing.T, notes []note, sid, typ string, v any) {
	t.Helper()
	for _, n := range notes {
		if n.Method == "session.event" && n.SessionID == sid && n.Type == typ {
			if err := json.Unmarshal(n.Data, v); err != nil {
				t.Fatalf("%s data %s: %v", typ, n.Data, err)
			}
			return
		}
	}
	t.Fatalf("no %s event among %v", typ, eventTypes(notes, sid))
}

// assertInOrder checks that want occur in types in this order (other types
// may come between: the CLI emits dozens we do not care about).
func assertInOrder(t *testing.T, types []string, want ...string) {
	t.Helper()
	i := 0
	for _, typ := range types {
		if i < len(want) && typ == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("events lack %q in order %q; got %v", want[i], want, types)
	}
}

// conversationRequests are the model API requests of one session.
func conversationRequests(api *modelapi.Server, sid string) []modelapi.Request {
	var out []modelapi.Request
	for _, r := range api.Requests() {
		if r.Conversation == sid {
			out = append(out, r)
		}
	}
	return out
}

// toolNames lists the tools a model request offered.
func toolNames(r modelapi.Request) []string {
	var out []string
	for _, tl := range r.Tools {
		out = append(out, tl.Name)
	}
	return out
}

func TestProtocol(t *testing.T) {
	sb := NewSandbox(t)
	api := newAPI(t, sb, modelapi.Echo)
	c := startCLI(t, sb, api)
	c.mustCall(t, "connect", nil, nil)

	t.Run("ServerAssignedID", func(t *testing.T) {
		var res struct {
			SessionID     string `json:"sessionId"`
			WorkspacePath string `json:"workspacePath"`
		}
		c.mustCall(t, "session.create", map[string]any{"model": testModel, "streaming": true, "availableTools": []string{}}, &res)
		if _, err := uuid.Parse(res.SessionID); err != nil {
			t.Fatalf("server-assigned session id %q is not a UUID: %v", res.SessionID, err)
		}
		if !strings.HasSuffix(res.WorkspacePath, res.SessionID) {
			t.Errorf("workspacePath %q does not end in the session id", res.WorkspacePath)
		}
		_, start := c.notes.waitFrom(t, 0, "session.start", isEvent(res.SessionID, "session.start"))
		var data struct {
			SessionID      string `json:"sessionId"`
			SelectedModel  string `json:"selectedModel"`
			CopilotVersion string `json:"copilotVersion"`
		}
		if err := json.Unmarshal(start.Data, &data); err != nil {
			t.Fatal(err)
		}
		if data.SessionID != res.SessionID || data.SelectedModel != testModel || data.CopilotVersion != Version {
			t.Errorf("session.start data %s", start.Data)
		}
		// The lifecycle notification carries the id at the top level.
		c.notes.waitFrom(t, 0, "session.lifecycle session.created", func(n note) bool {
			return n.Method == "session.lifecycle" && n.Type == "session.created" && n.SessionID == res.SessionID
		})
	})

	t.Run("ModelErrorWithoutRetry", func(t *testing.T) {
		// 4xx other than 429 fails the turn at once; 5xx is retried five
		// times over about 15 s, too slow for a unit test.
		sid := c.createSession(t, "", nil)
		api.SetConversation(sid, modelapi.Fixed(modelapi.Error(400, `{"error":{"message":"bad prompt"}}`)))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "fail"}, nil)
		idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		turn := c.notes.since(mark)[:idle-mark+1]
		assertInOrder(t, eventTypes(turn, sid), "user.message", "assistant.turn_start", "assistant.turn_end", "session.error", "session.idle")
		var e struct {
			ErrorType  string `json:"errorType"`
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		}
		eventData(t, turn, sid, "session.error", &e)
		if e.ErrorType != "query" || e.StatusCode != 400 || !strings.Contains(e.Message, "bad prompt") {
			t.Errorf("session.error data %+v", e)
		}
		if n := len(conversationRequests(api, sid)); n != 1 {
			t.Errorf("model called %d times for a 400, want once (no retry)", n)
		}
	})

	t.Run("RateLimitWaitsForAnAnswer", func(t *testing.T) {
		// After retrying a 429 five times (Retry-After: 0 keeps that to
		// about 5 s) the CLI reports session.error and then asks whether to
		// switch to the "auto" model; the turn does not end until the
		// client answers. An SDK that ignores the request hangs here.
		sid := c.createSession(t, "", nil)
		api.SetConversation(sid, modelapi.Fixed(modelapi.Error(429, `{"error":{"message":"slow down"}}`).WithHeader("Retry-After", "0")))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "rate"}, nil)
		_, req := c.notes.waitFrom(t, mark, "auto_mode_switch.requested", isEvent(sid, "auto_mode_switch.requested"))
		var ask struct {
			RequestID string `json:"requestId"`
			ErrorCode string `json:"errorCode"`
		}
		if err := json.Unmarshal(req.Data, &ask); err != nil || ask.RequestID == "" || ask.ErrorCode != "rate_limited" {
			t.Fatalf("auto_mode_switch.requested data %s (%v)", req.Data, err)
		}
		types := eventTypes(c.notes.since(mark), sid)
		if indexOf(types, "session.idle") >= 0 {
			t.Fatalf("the turn ended before the question was answered: %v", types)
		}
		var e struct {
			ErrorType  string `json:"errorType"`
			StatusCode int    `json:"statusCode"`
		}
		eventData(t, c.notes.since(mark), sid, "session.error", &e)
		if e.ErrorType != "rate_limit" || e.StatusCode != 429 {
			t.Errorf("session.error %+v", e)
		}
		if n := len(conversationRequests(api, sid)); n != 6 {
			t.Errorf("model called %d times, want 6 (one try and five retries)", n)
		}
		var ok struct {
			Success bool `json:"success"`
		}
		c.mustCall(t, "session.ui.handlePendingAutoModeSwitch", map[string]any{
			"sessionId": sid, "requestId": ask.RequestID, "response": "no"}, &ok)
		if !ok.Success {
			t.Error("handlePendingAutoModeSwitch did not report success")
		}
		idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		assertInOrder(t, eventTypes(c.notes.since(mark)[:idle-mark+1], sid),
			"session.error", "auto_mode_switch.requested", "auto_mode_switch.completed", "session.idle")
	})

	t.Run("ToolApproved", func(t *testing.T) {
		sid := c.createSession(t, "", map[string]any{
			"tools": []any{lookupTool}, "requestPermission": true, "availableTools": []string{"lookup"}})
		api.SetConversation(sid, modelapi.ToolThenText("lookup", `{"q":"weather"}`, modelapi.Echo))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "use the tool"}, nil)

		_, perm := c.notes.waitFrom(t, mark, "permission.requested", isEvent(sid, "permission.requested"))
		var pr struct {
			RequestID         string `json:"requestId"`
			PermissionRequest struct {
				Kind       string         `json:"kind"`
				ToolName   string         `json:"toolName"`
				ToolCallID string         `json:"toolCallId"`
				Args       map[string]any `json:"args"`
			} `json:"permissionRequest"`
		}
		if err := json.Unmarshal(perm.Data, &pr); err != nil {
			t.Fatal(err)
		}
		if pr.RequestID == "" || pr.PermissionRequest.Kind != "custom-tool" || pr.PermissionRequest.ToolName != "lookup" ||
			pr.PermissionRequest.ToolCallID != "call_1" || pr.PermissionRequest.Args["q"] != "weather" {
			t.Errorf("permission.requested data %s", perm.Data)
		}
		var ok struct {
			Success bool `json:"success"`
		}
		c.mustCall(t, "session.permissions.handlePendingPermissionRequest", map[string]any{
			"sessionId": sid, "requestId": pr.RequestID, "result": map[string]any{"kind": "approve-once"}}, &ok)
		if !ok.Success {
			t.Error("handlePendingPermissionRequest did not report success")
		}

		_, ext := c.notes.waitFrom(t, mark, "external_tool.requested", isEvent(sid, "external_tool.requested"))
		var er struct {
			RequestID  string         `json:"requestId"`
			SessionID  string         `json:"sessionId"`
			ToolCallID string         `json:"toolCallId"`
			ToolName   string         `json:"toolName"`
			Arguments  map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(ext.Data, &er); err != nil {
			t.Fatal(err)
		}
		if er.RequestID == "" || er.SessionID != sid || er.ToolCallID != "call_1" || er.ToolName != "lookup" || er.Arguments["q"] != "weather" {
			t.Errorf("external_tool.requested data %s", ext.Data)
		}
		ok.Success = false
		c.mustCall(t, "session.tools.handlePendingToolCall", map[string]any{
			"sessionId": sid, "requestId": er.RequestID,
			"result": map[string]any{"textResultForLlm": "sunny, 21C", "resultType": "success"}}, &ok)
		if !ok.Success {
			t.Error("handlePendingToolCall did not report success")
		}

		idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		turn := c.notes.since(mark)[:idle-mark+1]
		assertInOrder(t, eventTypes(turn, sid), "assistant.message", "tool.execution_start", "permission.requested",
			"permission.completed", "external_tool.requested", "external_tool.completed", "tool.execution_complete",
			"assistant.message", "session.idle")
		var done struct {
			Result struct {
				Kind string `json:"kind"`
			} `json:"result"`
		}
		eventData(t, turn, sid, "permission.completed", &done)
		if done.Result.Kind != "approved" {
			t.Errorf("permission.completed kind %q, want approved", done.Result.Kind)
		}

		reqs := conversationRequests(api, sid)
		if len(reqs) != 2 {
			t.Fatalf("model called %d times, want 2 (tool call, then answer)", len(reqs))
		}
		if got := toolNames(reqs[0]); !reflect.DeepEqual(got, []string{"lookup"}) {
			t.Errorf("model offered %v, want just the client tool", got)
		}
		if d := reqs[0].Tools[0].Description; d != "Looks things up" {
			t.Errorf("tool description %q", d)
		}
		res := reqs[1].ToolResults()
		if len(res) != 1 || res[0].ToolCallID != "call_1" || res[0].Content != "sunny, 21C" {
			t.Errorf("second model call's tool results %+v, want our text for call_1", res)
		}
	})

	t.Run("ToolRejected", func(t *testing.T) {
		sid := c.createSession(t, "", map[string]any{
			"tools": []any{lookupTool}, "requestPermission": true, "availableTools": []string{"lookup"}})
		api.SetConversation(sid, modelapi.ToolThenText("lookup", `{"q":"weather"}`, modelapi.Echo))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "use the tool"}, nil)
		_, perm := c.notes.waitFrom(t, mark, "permission.requested", isEvent(sid, "permission.requested"))
		var pr struct {
			RequestID string `json:"requestId"`
		}
		_ = json.Unmarshal(perm.Data, &pr)
		c.mustCall(t, "session.permissions.handlePendingPermissionRequest", map[string]any{
			"sessionId": sid, "requestId": pr.RequestID, "result": map[string]any{"kind": "reject"}}, nil)
		idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		turn := c.notes.since(mark)[:idle-mark+1]
		types := eventTypes(turn, sid)
		// A rejection ends the whole turn as an abort: the model is not
		// called again and no tool request reaches the client.
		assertInOrder(t, types, "permission.completed", "tool.execution_complete", "assistant.turn_end", "abort", "session.idle")
		if indexOf(types, "external_tool.requested") >= 0 || indexOf(types, "session.error") >= 0 {
			t.Errorf("rejected tool: unexpected events in %v", types)
		}
		var done struct {
			Result struct {
				Kind string `json:"kind"`
			} `json:"result"`
		}
		eventData(t, turn, sid, "permission.completed", &done)
		if done.Result.Kind != "denied-interactively-by-user" {
			t.Errorf("permission.completed kind %q", done.Result.Kind)
		}
		if n := len(conversationRequests(api, sid)); n != 1 {
			t.Errorf("model called %d times after a rejection, want 1", n)
		}
	})

	t.Run("ToolSkipPermission", func(t *testing.T) {
		sid := c.createSession(t, "", map[string]any{
			"tools": []any{withSkipPermission(lookupTool)}, "requestPermission": true, "availableTools": []string{"lookup"}})
		api.SetConversation(sid, modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "use the tool"}, nil)
		_, ext := c.notes.waitFrom(t, mark, "external_tool.requested", isEvent(sid, "external_tool.requested"))
		var er struct {
			RequestID string `json:"requestId"`
		}
		_ = json.Unmarshal(ext.Data, &er)
		c.mustCall(t, "session.tools.handlePendingToolCall", map[string]any{
			"sessionId": sid, "requestId": er.RequestID, "result": map[string]any{"textResultForLlm": "skipped", "resultType": "success"}}, nil)
		idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		turn := c.notes.since(mark)[:idle-mark+1]
		if indexOf(eventTypes(turn, sid), "permission.requested") >= 0 {
			t.Error("skipPermission:true still asked for permission")
		}
		if text, _ := joinDeltas(turn, sid); text != "skipped" {
			t.Errorf("final answer %q, want the tool result echoed", text)
		}
	})

	t.Run("ToolWithoutPermissionChannel", func(t *testing.T) {
		// requestPermission false and no skipPermission: the CLI cannot ask,
		// so it denies the tool and tells the model so.
		sid := c.createSession(t, "", map[string]any{
			"tools": []any{lookupTool}, "requestPermission": false, "availableTools": []string{"lookup"}})
		api.SetConversation(sid, modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "use the tool"}, nil)
		idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		types := eventTypes(c.notes.since(mark)[:idle-mark+1], sid)
		if indexOf(types, "permission.requested") >= 0 || indexOf(types, "external_tool.requested") >= 0 {
			t.Errorf("events %v: want neither a permission nor a tool request", types)
		}
		reqs := conversationRequests(api, sid)
		if len(reqs) != 2 {
			t.Fatalf("model called %d times, want 2", len(reqs))
		}
		if res := reqs[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "Permission denied") {
			t.Errorf("tool result %+v, want a permission denial", res)
		}
	})

	t.Run("EmptyAvailableToolsHidesClientTools", func(t *testing.T) {
		// availableTools filters client tools too: [] with tools offers the
		// model nothing. The SDK must list its tools' names in availableTools.
		sid := c.createSession(t, "", map[string]any{"tools": []any{withSkipPermission(lookupTool)}})
		api.SetConversation(sid, modelapi.Fixed(modelapi.Text("ok")))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "hi"}, nil)
		c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		reqs := conversationRequests(api, sid)
		if len(reqs) != 1 || len(reqs[0].Tools) != 0 {
			t.Errorf("model requests %d, tools %v: want one request offering no tools", len(reqs), toolNames(reqs[0]))
		}
	})

	t.Run("AbortThenDestroy", func(t *testing.T) {
		sid := c.createSession(t, "", nil)
		api.SetConversation(sid, modelapi.Fixed(modelapi.Text("partial").WithStall()))
		mark := c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "stall"}, nil)
		c.notes.waitFrom(t, mark, "the partial delta", isEvent(sid, "assistant.message_delta"))

		abortMark := c.notes.len()
		var ok struct {
			Success bool `json:"success"`
		}
		c.mustCall(t, "session.abort", map[string]any{"sessionId": sid}, &ok)
		if !ok.Success {
			t.Error("session.abort did not report success")
		}
		idle, idleNote := c.notes.waitFrom(t, abortMark, "session.idle after abort", isEvent(sid, "session.idle"))
		types := eventTypes(c.notes.since(abortMark)[:idle-abortMark+1], sid)
		assertInOrder(t, types, "abort", "assistant.turn_end", "assistant.idle", "session.idle")
		if indexOf(types, "session.error") >= 0 || indexOf(types, "assistant.message") >= 0 {
			t.Errorf("abort produced %v: want no error and no final message", types)
		}
		var idleData struct {
			Aborted bool `json:"aborted"`
		}
		_ = json.Unmarshal(idleNote.Data, &idleData)
		if !idleData.Aborted {
			t.Errorf("session.idle after abort: %s, want aborted:true", idleNote.Data)
		}
		// The CLI closes the stalled model request rather than leaving it.
		deadline := time.Now().Add(hangGuard)
		for api.Active() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the stalled model request is still open after the abort")
			}
			time.Sleep(10 * time.Millisecond)
		}

		// The session still works, then goes away.
		api.SetConversation(sid, modelapi.Fixed(modelapi.Text("after abort")))
		mark = c.notes.len()
		c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "again"}, nil)
		idle, _ = c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
		if text, _ := joinDeltas(c.notes.since(mark)[:idle-mark+1], sid); text != "after abort" {
			t.Errorf("turn after abort answered %q", text)
		}

		mark = c.notes.len()
		ok.Success = false
		c.mustCall(t, "session.destroy", map[string]any{"sessionId": sid}, &ok)
		if !ok.Success {
			t.Error("session.destroy did not report success")
		}
		c.notes.waitFrom(t, mark, "session.shutdown", isEvent(sid, "session.shutdown"))
		// A destroyed session is unknown: calls fail with an internal error
		// naming it, and destroying it again reports false without failing.
		err := c.call("session.send", map[string]any{"sessionId": sid, "prompt": "x"}, nil)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInternalError || !strings.Contains(rpcErr.Message, "Session not found") {
			t.Errorf("send to a destroyed session: %v, want -32603 Session not found", err)
		}
		ok.Success = true
		c.mustCall(t, "session.destroy", map[string]any{"sessionId": sid}, &ok)
		if ok.Success {
			t.Error("destroying twice reported success")
		}
	})
}

func (nopHandler) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}
