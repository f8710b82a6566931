package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
)

// TestTrafficMatchesTheCLISchemas drives the simulator with the project's
// own client through a schema tap: every frame either side sends that the
// CLI's schemas describe (methods, results, session events) must validate,
// in both start orders and both tool flows. This is what keeps the
// simulator from drifting from the real CLI.
func TestTrafficMatchesTheCLISchemas(t *testing.T) {
	schemas := schemacheck.Default(t)
	for _, order := range []sim.StartOrder{sim.StartBefore, sim.StartAfter} {
		t.Run(order.String(), func(t *testing.T) {
			model := sim.Model{ID: "sim-tools", Respond: func(turn sim.Turn) sim.Response {
				if turn.Call == 0 && len(turn.Tools) > 0 {
					return sim.Response{Text: "let me check", ToolCalls: []sim.ToolCall{sim.Call(turn.Tools[0], map[string]string{"q": "x"})}}
				}
				return sim.Text(fmt.Sprintf("done after %d tool results", len(turn.ToolResults)))
			}}
			srv := sim.NewServer(sim.Options{Models: append(sim.DefaultModels(), model), StartOrder: order})
			defer srv.Close()
			tap := schemacheck.Check(t, schemas, srv.Dial())
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			c, err := copilot.Connect(ctx, tap, copilot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Models(ctx); err != nil {
				t.Fatal(err)
			}
			// account.getQuota and account.getCurrentAuth, with the default
			// allowance.
			if _, err := c.PremiumQuota(ctx); err != nil {
				t.Fatal(err)
			}
			tool := copilot.Tool{
				Name: "lookup", Description: "looks things up",
				Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
				Handler:    func(context.Context, copilot.ToolCall) (string, error) { return "found", nil },
			}
			s, err := c.NewSession(ctx, copilot.SessionConfig{Model: "sim-tools", Tools: []copilot.Tool{tool}, Permissions: copilot.ApproveAll})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Ask(ctx, "use the tool"); err != nil {
				t.Fatal(err)
			}
			plain, err := c.NewSession(ctx, copilot.SessionConfig{Model: "sim-fast", DisableStreaming: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := plain.Ask(ctx, "hello"); err != nil {
				t.Fatal(err)
			}
			for _, s := range []*copilot.Session{s, plain} {
				if err := s.Destroy(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// A turn brings over a dozen events; with two sessions, far more
			// than this were checked unless the tap saw nothing.
			if n := tap.Checked(); n < 30 {
				t.Errorf("only %d messages were checked against the schemas (unchecked: %v)", n, tap.Unchecked())
			}
		})
	}
}

// TestSubAgentAndUserInputTrafficMatchesTheSchemas checks the traffic of a
// turn with sub-agents and a question for the user: the sub-agents' events
// (with agentId) and user_input.requested/completed against the schemas,
// and userInput.request, which the schemas leave out, against the protocol
// package's hand-written types, strictly.
func TestSubAgentAndUserInputTrafficMatchesTheSchemas(t *testing.T) {
	schemas := schemacheck.Default(t)
	model := sim.Model{ID: "m", Respond: sim.AskUser(sim.UserQuestion{Question: "Which?", Choices: []string{"a", "b"}, AllowFreeform: new(bool)}, func(turn sim.Turn) sim.Response {
		answer, _ := turn.UserAnswer()
		return sim.Response{Text: "picked " + answer, SubAgents: []sim.SubAgentText{{AgentID: "agent-1", Text: "checked the choice"}}}
	})}
	model.Respond = subAgentsFirst(model.Respond)
	srv := newServer(t, sim.Options{Models: []sim.Model{model}})
	tap := schemacheck.Check(t, schemas, srv.Dial())
	c := newClient(t, tap)
	c.onRequest = func(method string, params json.RawMessage) (any, error) {
		var p protocol.UserInputRequestParams
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil || p.SessionID == "" || p.Question == "" {
			t.Errorf("%s params %s: %v", method, params, err)
		}
		return protocol.UserInputResponse{Answer: "b"}, nil
	}
	for _, streaming := range []bool{true, false} {
		id := c.createSession(map[string]any{"model": "m", "streaming": streaming, "requestUserInput": true})
		c.send(id, "choose")
		evs := c.waitIdle(id, 1)
		if got := messageContent(t, evs); got != "picked b" {
			t.Errorf("final message %q", got)
		}
	}
	// Two questions, each a request and its answer.
	if got := tap.Unchecked()[protocol.MethodUserInputRequest]; got != 4 {
		t.Errorf("%d %s messages seen by the tap, want 4", got, protocol.MethodUserInputRequest)
	}
	if n := tap.Checked(); n < 40 {
		t.Errorf("only %d messages were checked against the schemas (unchecked: %v)", n, tap.Unchecked())
	}
}

// subAgentsFirst makes respond's first call of a turn also stream a
// sub-agent, so that sub-agent events go out in rounds with and without
// tool requests.
func subAgentsFirst(respond func(sim.Turn) sim.Response) func(sim.Turn) sim.Response {
	return func(t sim.Turn) sim.Response {
		r := respond(t)
		if t.Call == 0 {
			r.SubAgents = append(r.SubAgents, sim.SubAgentText{AgentID: "agent-0", Text: "planning"})
		}
		return r
	}
}

// TestManagementHooksAndRateLimitsMatchTheSchemas checks against the
// schemas the traffic of what the simulator does as CLI 1.0.102 does it:
// each permission decision and its permission.completed, hooks (hooks.invoke
// both ways, hook.start and hook.end, a permission asked by a hook, a
// blocked prompt's session.warning), model switches and the rate limit's
// auto-mode switch (the event and its answer, the request), and a resume.
func TestManagementHooksAndRateLimitsMatchTheSchemas(t *testing.T) {
	schemas := schemacheck.Default(t)
	limited := sim.Model{ID: "limited", Respond: sim.Always(sim.RateLimited(30))}
	srv := newServer(t, sim.Options{Models: []sim.Model{toolModel(nil), limited}})
	tap := schemacheck.Check(t, schemas, srv.Dial())
	c := newClient(t, tap)
	h := &hookClient{outputs: map[protocol.HookType]any{
		protocol.HookTypePreToolUse:  map[string]any{"permissionDecision": "ask", "modifiedArgs": map[string]any{"q": "changed"}},
		protocol.HookTypePostToolUse: map[string]any{"modifiedResult": map[string]any{"textResultForLlm": "stormy", "resultType": "success"}},
	}}
	h.install(c)
	hooked := c.onRequest
	c.onRequest = func(method string, params json.RawMessage) (any, error) {
		if method == protocol.MethodAutoModeSwitchRequest {
			return protocol.AutoModeSwitchRequestResponse{Response: protocol.UIAutoModeSwitchResponseYes}, nil
		}
		return hooked(method, params)
	}
	a := newAnswerer(c, "", map[string]any{"textResultForLlm": "sunny", "resultType": "success"}, "")
	approval := map[string]any{"kind": "custom-tool", "toolName": "lookup"}
	for _, decision := range []map[string]any{
		{"kind": "approve-once"},
		{"kind": "approve-for-session", "approval": approval},
		{"kind": "approve-for-location", "approval": approval, "locationKey": "/src"},
		{"kind": "approve-read-only-for-session", "directories": []string{"/src"}},
		{"kind": "reject", "feedback": "not now"},
		{"kind": "reject"},
		{"kind": "user-not-available"},
		{"kind": "denied-by-rules", "rules": []any{map[string]any{"kind": "custom-tool", "argument": "lookup"}}},
		{"kind": "denied-by-permission-request-hook", "message": "a plugin said no"},
		{"kind": "cancelled", "reason": "timed out"},
	} {
		a.decision = decision
		id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}, "streaming": true})
		c.send(id, "go")
		c.waitIdle(id, 1)
		a.check(t)
		c.deleteSession(id)
	}

	a.decision = map[string]any{"kind": "approve-once"}
	hooks := c.createSession(map[string]any{"hooks": true, "requestPermission": true, "tools": []any{lookupTool}})
	c.send(hooks, "weather?")
	c.waitIdle(hooks, 1)
	c.mustCall(protocol.MethodSessionModelSwitchTo, map[string]any{"sessionId": hooks, "modelId": "limited"}, nil)
	c.mustCall(protocol.MethodSessionModelGetCurrent, map[string]any{"sessionId": hooks}, nil)
	h.mu.Lock()
	h.outputs[protocol.HookTypeUserPromptSubmitted] = map[string]any{"decision": "block", "reason": "not today"}
	h.mu.Unlock()
	c.send(hooks, "blocked")
	c.waitIdle(hooks, 2)
	c.mustCall(protocol.MethodSessionDestroy, map[string]any{"sessionId": hooks}, nil)
	c.mustCall(protocol.MethodSessionResume, map[string]any{"sessionId": hooks}, nil)
	c.waitType(hooks, protocol.EventSessionResume)

	for _, ask := range []bool{false, true} {
		id := c.createSession(map[string]any{"model": "limited", "requestAutoModeSwitch": ask})
		c.send(id, "go")
		var req protocol.AutoModeSwitchRequestedData
		mustUnmarshal(t, c.waitType(id, protocol.EventAutoModeSwitchRequested).Data, &req)
		if !ask {
			answerAutoSwitch(c, id, req.RequestID, "yes")
		}
		c.waitIdle(id, 1)
		answerAutoSwitch(c, id, req.RequestID, "no") // no longer pending: success false
	}

	u := tap.Unchecked()
	if n := tap.Checked(); n < 300 || u[protocol.MethodSessionCreate] == 0 {
		t.Errorf("only %d messages were checked against the schemas (unchecked: %v)", n, u)
	}
	for _, m := range []string{protocol.MethodHooksInvoke, protocol.MethodSessionModelSwitchTo, protocol.MethodSessionModelGetCurrent, protocol.MethodSessionUIHandlePendingAutoModeSwitch} {
		if u[m] != 0 {
			t.Errorf("%s was not checked: the schemas should describe it (unchecked: %v)", m, u)
		}
	}
	// autoModeSwitch.request is one of the older requests the schemas
	// leave out (TestRateLimitAsksTheClient checks its params): the
	// request and its answer.
	if u[protocol.MethodAutoModeSwitchRequest] != 2 {
		t.Errorf("unchecked: %v", u)
	}
}

// TestBuiltinToolTrafficMatchesTheSchemas checks the traffic of the
// built-in tools against the schemas: each permission request kind (read,
// write, shell, url) with its promptRequest, and its permission.completed
// for approvals and refusals; tool.execution_start with its title and
// shellToolInfo; bash's tool.shell_output and tool.execution_partial_result;
// tool.execution_complete with fileEdits, shellExecution and shell_exit
// contents, or the failures (a path outside the folder, a command not
// run, an edit not made).
func TestBuiltinToolTrafficMatchesTheSchemas(t *testing.T) {
	schemas := schemacheck.Default(t)
	dir, secret := workdir(t)
	calls := func(turn sim.Turn) []sim.ToolCall {
		n := turn.Number
		return []sim.ToolCall{
			sim.ViewCall(dir),
			sim.Call(sim.ToolView, map[string]any{"path": "notes.txt", "view_range": []int{1, -1}}),
			sim.CreateCall(fmt.Sprintf("new%d.txt", n), "hello\n"),
			sim.CreateCall(fmt.Sprintf("empty%d.txt", n), ""),
			sim.EditCall("notes.txt", "line one\n", fmt.Sprintf("line one, turn %d\n", n)),
			sim.EditCall(secret, "SECRET", "x"),
			sim.BashCall("ls -a", "List files"),
			sim.BashCall("echo -n", ""),
			sim.BashCall("echo hi > out.txt && cat notes.txt", "Write"),
			sim.ViewCall(secret),
			sim.EditCall("dup.txt", "x = 1", "x = 2"),
			sim.WebFetchCall("https://example.com/"),
		}
	}
	srv := newServer(t, sim.Options{Models: []sim.Model{builtinModel(calls, nil)}})
	tap := schemacheck.Check(t, schemas, srv.Dial())
	c := newClient(t, tap)
	a := newAnswerer(c, "", nil, "")
	for _, decision := range []map[string]any{
		{"kind": "approve-once"},
		{"kind": "approve-for-session", "approval": map[string]any{"kind": "write"}},
		{"kind": "reject", "feedback": "not now"},
		{"kind": "user-not-available"},
		{"kind": "reject"},
	} {
		a.decision = decision
		id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir, "streaming": true})
		c.send(id, "go")
		evs := c.waitIdle(id, 1)
		a.check(t)
		if count(evs, protocol.EventPermissionRequested) == 0 {
			t.Errorf("%v: nothing was asked", decision)
		}
		c.deleteSession(id)
	}
	u := tap.Unchecked()
	for _, typ := range []string{protocol.EventPermissionRequested, protocol.EventToolExecutionComplete, protocol.EventToolShellOutput, protocol.EventToolExecutionPartialResult} {
		if u[typ] != 0 {
			t.Errorf("%s was not checked (unchecked: %v)", typ, u)
		}
	}
	if n := tap.Checked(); n < 200 {
		t.Errorf("only %d messages were checked against the schemas (unchecked: %v)", n, u)
	}
}
