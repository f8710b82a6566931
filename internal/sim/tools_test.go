package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// toolModel calls "lookup" with {"q":"answer"} and then reports what it got.
func toolModel(results chan<- []sim.ToolCallResult) sim.Model {
	return sim.Model{ID: "m", Respond: sim.UseTool("lookup", map[string]string{"q": "answer"}, func(turn sim.Turn) sim.Response {
		if results != nil {
			results <- turn.ToolResults
		}
		r := turn.ToolResults[0]
		if !r.OK() {
			return sim.Text("tool failed: " + r.Error)
		}
		return sim.Text("tool said: " + r.Text)
	})}
}

var lookupTool = map[string]any{
	"name":        "lookup",
	"description": "looks things up",
	"parameters":  map[string]any{"type": "object"},
}

// answerer answers permission and tool requests from a goroutine (never the
// client's read loop), as a client must.
type answerer struct {
	c          *client
	permission string         // kind to answer with
	decision   map[string]any // or the whole decision, when set
	// decide, when set, decides each permission request instead.
	decide     func(request protocol.PermissionRequest) map[string]any
	toolResult any // result to answer with, or nil for toolError
	toolError  string
	wg         sync.WaitGroup
	errs       chan error
}

func newAnswerer(c *client, permission string, result any, toolError string) *answerer {
	a := &answerer{c: c, permission: permission, toolResult: result, toolError: toolError, errs: make(chan error, 16)}
	c.onNotify = func(method string, params json.RawMessage) {
		if method != protocol.NotificationSessionEvent {
			return
		}
		var se sessionEvent
		if json.Unmarshal(params, &se) != nil {
			return
		}
		var d struct{ RequestID string }
		json.Unmarshal(se.Event.Data, &d)
		var m string
		var p map[string]any
		switch se.Event.Type {
		case protocol.EventPermissionRequested:
			m = protocol.MethodSessionPermissionsHandlePendingPermissionRequest
			decision := a.decision
			if decision == nil {
				decision = map[string]any{"kind": a.permission}
			}
			if a.decide != nil {
				var pr struct {
					PermissionRequest protocol.PermissionRequest `json:"permissionRequest"`
				}
				json.Unmarshal(se.Event.Data, &pr)
				decision = a.decide(pr.PermissionRequest)
			}
			p = map[string]any{"sessionId": se.SessionID, "requestId": d.RequestID, "result": decision}
		case protocol.EventExternalToolRequested:
			m = protocol.MethodSessionToolsHandlePendingToolCall
			p = map[string]any{"sessionId": se.SessionID, "requestId": d.RequestID}
			if a.toolResult != nil {
				p["result"] = a.toolResult
			} else {
				p["error"] = a.toolError
			}
		default:
			return
		}
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			var res struct{ Success bool }
			if err := c.rpc.Call(context.Background(), m, p, &res); err != nil {
				a.errs <- err
			} else if !res.Success {
				a.errs <- errors.New(m + ": success false")
			}
		}()
	}
	c.t.Cleanup(a.wg.Wait)
	return a
}

func (a *answerer) check(t *testing.T) {
	t.Helper()
	a.wg.Wait()
	select {
	case err := <-a.errs:
		t.Errorf("answering: %v", err)
	default:
	}
}

func TestToolFlowApproved(t *testing.T) {
	results := make(chan []sim.ToolCallResult, 1)
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(results)}}))
	a := newAnswerer(c, "approve-once", map[string]any{"textResultForLlm": "forty-two", "resultType": "success"}, "")
	id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}})
	c.send(id, "use the tool")
	evs := c.waitIdle(id, 1)
	a.check(t)

	want := []string{protocol.EventSessionStart, protocol.EventUserMessage,
		protocol.EventAssistantTurnStart, protocol.EventAssistantMessage, protocol.EventAssistantUsage,
		protocol.EventToolExecutionStart, protocol.EventPermissionRequested, protocol.EventPermissionCompleted,
		protocol.EventExternalToolRequested, protocol.EventExternalToolCompleted, protocol.EventToolExecutionComplete,
		protocol.EventAssistantTurnEnd,
		protocol.EventAssistantTurnStart, protocol.EventAssistantMessage, protocol.EventAssistantUsage, protocol.EventAssistantTurnEnd,
		protocol.EventAssistantIdle, protocol.EventSessionIdle}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	checkEnvelopes(t, evs)

	byType := func(typ string) json.RawMessage {
		for _, e := range evs {
			if e.Type == typ {
				return e.Data
			}
		}
		return nil
	}
	var msg struct {
		ToolRequests []struct {
			ToolCallID string          `json:"toolCallId"`
			Name       string          `json:"name"`
			Arguments  json.RawMessage `json:"arguments"`
		} `json:"toolRequests"`
	}
	mustUnmarshal(t, byType(protocol.EventAssistantMessage), &msg)
	if len(msg.ToolRequests) != 1 || msg.ToolRequests[0].Name != "lookup" || string(msg.ToolRequests[0].Arguments) != `{"q":"answer"}` {
		t.Fatalf("toolRequests = %s", byType(protocol.EventAssistantMessage))
	}
	callID := msg.ToolRequests[0].ToolCallID

	var perm struct {
		RequestID         string `json:"requestId"`
		PermissionRequest struct {
			Kind       string          `json:"kind"`
			ToolName   string          `json:"toolName"`
			ToolCallID string          `json:"toolCallId"`
			Args       json.RawMessage `json:"args"`
		} `json:"permissionRequest"`
	}
	mustUnmarshal(t, byType(protocol.EventPermissionRequested), &perm)
	pr := perm.PermissionRequest
	if perm.RequestID == "" || pr.Kind != "custom-tool" || pr.ToolName != "lookup" || pr.ToolCallID != callID || string(pr.Args) != `{"q":"answer"}` {
		t.Errorf("%s = %s", protocol.EventPermissionRequested, byType(protocol.EventPermissionRequested))
	}
	var permDone struct {
		RequestID string `json:"requestId"`
		Result    struct{ Kind string }
	}
	mustUnmarshal(t, byType(protocol.EventPermissionCompleted), &permDone)
	if permDone.RequestID != perm.RequestID || permDone.Result.Kind != "approved" {
		t.Errorf("%s = %s", protocol.EventPermissionCompleted, byType(protocol.EventPermissionCompleted))
	}

	var ext struct {
		RequestID, SessionID, ToolCallID, ToolName string
		Arguments                                  json.RawMessage
	}
	mustUnmarshal(t, byType(protocol.EventExternalToolRequested), &ext)
	if ext.RequestID == "" || ext.SessionID != id || ext.ToolCallID != callID || ext.ToolName != "lookup" || string(ext.Arguments) != `{"q":"answer"}` {
		t.Errorf("%s = %s", protocol.EventExternalToolRequested, byType(protocol.EventExternalToolRequested))
	}
	var extDone struct{ RequestID string }
	mustUnmarshal(t, byType(protocol.EventExternalToolCompleted), &extDone)
	if extDone.RequestID != ext.RequestID {
		t.Errorf("%s = %s", protocol.EventExternalToolCompleted, byType(protocol.EventExternalToolCompleted))
	}
	var complete struct {
		ToolCallID string
		Success    bool
		Result     struct{ Content string }
	}
	mustUnmarshal(t, byType(protocol.EventToolExecutionComplete), &complete)
	if complete.ToolCallID != callID || !complete.Success || complete.Result.Content != "forty-two" {
		t.Errorf("%s = %s", protocol.EventToolExecutionComplete, byType(protocol.EventToolExecutionComplete))
	}

	got := <-results
	if len(got) != 1 || got[0].CallID != callID || got[0].Name != "lookup" || got[0].Text != "forty-two" || !got[0].OK() || got[0].ResultType != "success" {
		t.Errorf("script saw %+v", got)
	}
	if content := messageContent(t, evs); content != "tool said: forty-two" {
		t.Errorf("final content = %q", content)
	}
	// The second round is turnId "1".
	var ts struct{ TurnID string }
	mustUnmarshal(t, evs[12].Data, &ts)
	if ts.TurnID != "1" {
		t.Errorf("second round turnId = %q", ts.TurnID)
	}
}

func TestToolFlowRejected(t *testing.T) {
	results := make(chan []sim.ToolCallResult, 1)
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(results)}}))
	a := newAnswerer(c, "reject", map[string]any{"textResultForLlm": "must not be asked"}, "")
	id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}})
	c.send(id, "use the tool")
	evs := c.waitIdle(id, 1)
	a.check(t)

	if count(evs, protocol.EventExternalToolRequested) != 0 {
		t.Errorf("tool was run despite the rejection: %v", types(evs))
	}
	var permDone struct{ Result struct{ Kind string } }
	mustUnmarshal(t, c.waitType(id, protocol.EventPermissionCompleted).Data, &permDone)
	if permDone.Result.Kind != "denied-interactively-by-user" {
		t.Errorf("%s kind = %q", protocol.EventPermissionCompleted, permDone.Result.Kind)
	}
	var complete struct {
		Success bool
		Error   struct{ Message string }
	}
	mustUnmarshal(t, c.waitType(id, protocol.EventToolExecutionComplete).Data, &complete)
	if complete.Success || complete.Error.Message != "The user rejected this tool call." {
		t.Errorf("%s = %+v", protocol.EventToolExecutionComplete, complete)
	}
	// As on the real CLI, a refusal ends the turn like an abort: the model
	// is not called again.
	if count(evs, protocol.EventAbort) != 1 || count(evs, protocol.EventAssistantMessage) != 1 {
		t.Errorf("a rejected turn should end with abort after one model call: %v", types(evs))
	}
	select {
	case got := <-results:
		t.Errorf("the script was called again after a rejection: %+v", got)
	default:
	}
}

func TestToolFlowVariants(t *testing.T) {
	run := func(t *testing.T, create map[string]any, answer *answerer) ([]sim.Event, sim.ToolCallResult) {
		t.Helper()
		results := make(chan []sim.ToolCallResult, 1)
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(results)}}))
		if answer != nil {
			answer = newAnswerer(c, answer.permission, answer.toolResult, answer.toolError)
		}
		id := c.createSession(create)
		c.send(id, "go")
		evs := c.waitIdle(id, 1)
		if answer != nil {
			answer.check(t)
		}
		return evs, (<-results)[0]
	}
	skip := map[string]any{"name": "lookup", "skipPermission": true}

	t.Run("skipPermission", func(t *testing.T) {
		evs, res := run(t, map[string]any{"requestPermission": true, "tools": []any{skip}},
			&answerer{toolResult: map[string]any{"textResultForLlm": "ok"}})
		if count(evs, protocol.EventPermissionRequested) != 0 || count(evs, protocol.EventExternalToolRequested) != 1 {
			t.Errorf("events = %v", types(evs))
		}
		if !res.OK() || res.Text != "ok" {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("no requestPermission", func(t *testing.T) {
		evs, res := run(t, map[string]any{"tools": []any{lookupTool}}, nil)
		if count(evs, protocol.EventPermissionRequested) != 0 || count(evs, protocol.EventExternalToolRequested) != 0 {
			t.Errorf("events = %v", types(evs))
		}
		// CLI 1.0.102's words for a tool it could not ask about.
		if !strings.HasPrefix(res.Error, "Permission denied and could not request permission from user.") || res.ResultType != "denied" {
			t.Errorf("result = %+v", res)
		}
		for _, e := range evs {
			var complete protocol.ToolExecutionCompleteData
			if e.Type == protocol.EventToolExecutionComplete {
				if mustUnmarshal(t, e.Data, &complete); complete.Error == nil || complete.Error.Code != "denied" {
					t.Errorf("%s = %s", e.Type, e.Data)
				}
			}
		}
	})
	t.Run("unregistered tool", func(t *testing.T) {
		evs, res := run(t, map[string]any{"requestPermission": true}, nil)
		if count(evs, protocol.EventPermissionRequested) != 0 || count(evs, protocol.EventExternalToolRequested) != 0 || count(evs, protocol.EventToolExecutionComplete) != 1 {
			t.Errorf("events = %v", types(evs))
		}
		if res.OK() || !strings.Contains(res.Error, "lookup") {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("client error", func(t *testing.T) {
		_, res := run(t, map[string]any{"tools": []any{skip}}, &answerer{toolError: "disk on fire"})
		if res.OK() || res.Error != "disk on fire" || res.ResultType != "failure" {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("failure result type", func(t *testing.T) {
		_, res := run(t, map[string]any{"tools": []any{skip}},
			&answerer{toolResult: map[string]any{"textResultForLlm": "no such row", "resultType": "failure"}})
		if res.OK() || res.Error != "no such row" || res.ResultType != "failure" {
			t.Errorf("result = %+v", res)
		}
	})
}

func TestToolWaitHonoursAbort(t *testing.T) {
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(nil)}}))
	id := c.createSession(map[string]any{"tools": []any{map[string]any{"name": "lookup", "skipPermission": true}}})
	c.send(id, "go")
	var ext struct{ RequestID string }
	mustUnmarshal(t, c.waitType(id, protocol.EventExternalToolRequested).Data, &ext)
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, nil)
	evs := c.waitIdle(id, 1)
	if evs[len(evs)-2].Type != protocol.EventAbort {
		t.Errorf("events = %v", types(evs))
	}
	// The request is no longer pending.
	rerr := rpcError(t, c.call(protocol.MethodSessionToolsHandlePendingToolCall,
		map[string]any{"sessionId": id, "requestId": ext.RequestID, "result": "late"}, nil))
	if !strings.Contains(rerr.Message, "no pending tool call") {
		t.Errorf("late answer: %+v", rerr)
	}
	if got := count(c.events(id), protocol.EventToolExecutionComplete); got != 0 {
		t.Errorf("aborted tool completed")
	}
}

func TestToolWaitHonoursDestroy(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{toolModel(nil)}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}})
	c.send(id, "go")
	c.waitType(id, protocol.EventPermissionRequested)
	c.mustCall(protocol.MethodSessionDestroy, map[string]any{"sessionId": id}, nil)
	if n := waitRunningTurns(t, srv, 0); n != 0 {
		t.Errorf("turn still running after destroy")
	}
}

func TestLegacyToolCall(t *testing.T) {
	for _, opts := range []sim.Options{{ToolFlow: sim.ToolFlowLegacyRequest}, {ProtocolVersion: 2}} {
		results := make(chan []sim.ToolCallResult, 2)
		opts.Models = []sim.Model{toolModel(results)}
		srv := newServer(t, opts)
		c, _ := dial(t, srv)
		var mu sync.Mutex
		var calls []json.RawMessage
		c.onRequest = func(method string, params json.RawMessage) (any, error) {
			mu.Lock()
			calls = append(calls, params)
			n := len(calls)
			mu.Unlock()
			if method != protocol.MethodToolCall {
				return nil, errors.New("unexpected " + method)
			}
			if n == 1 {
				return map[string]any{"result": map[string]any{"textResultForLlm": "legacy ok", "resultType": "success"}}, nil
			}
			return nil, &jsonrpc2.Error{Code: -32000, Message: "tool exploded"}
		}
		id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}})
		c.send(id, "one")
		evs := c.waitIdle(id, 1)
		if count(evs, protocol.EventPermissionRequested) != 0 || count(evs, protocol.EventExternalToolRequested) != 0 {
			t.Errorf("protocol-3 events in the legacy flow: %v", types(evs))
		}
		if got := <-results; got[0].Text != "legacy ok" || !got[0].OK() {
			t.Errorf("first result = %+v", got[0])
		}
		c.send(id, "two")
		c.waitIdle(id, 2)
		if got := <-results; got[0].OK() || got[0].Error != "tool exploded" {
			t.Errorf("second result = %+v", got[0])
		}

		mu.Lock()
		var p struct{ SessionID, ToolCallID, ToolName string }
		mustUnmarshal(t, calls[0], &p)
		mu.Unlock()
		if p.SessionID != id || p.ToolName != "lookup" || p.ToolCallID == "" {
			t.Errorf("%s params = %+v", protocol.MethodToolCall, p)
		}
		answers := srv.Answers()
		if len(answers) != 2 || answers[0].Method != protocol.MethodToolCall || answers[0].Error != nil ||
			answers[1].Error == nil || answers[1].Error.Code != -32000 {
			t.Errorf("answers = %+v", answers)
		}
	}
}
