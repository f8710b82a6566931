package sim_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// hookClient answers hooks.invoke with outputs by hook type (none for a
// type not in it) and records the invocations.
type hookClient struct {
	mu      sync.Mutex
	invoked []protocol.HookInvokeRequest
	outputs map[protocol.HookType]any
	fail    bool // answer every invocation with an error
}

func (h *hookClient) install(c *client) {
	c.onRequest = func(method string, params json.RawMessage) (any, error) {
		if method != protocol.MethodHooksInvoke {
			return nil, errors.New("unexpected " + method)
		}
		var req protocol.HookInvokeRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.invoked = append(h.invoked, req)
		if h.fail {
			return nil, errors.New("the hook broke")
		}
		if out, ok := h.outputs[req.HookType]; ok {
			return map[string]any{"output": out}, nil
		}
		return map[string]any{}, nil
	}
}

func (h *hookClient) types() []protocol.HookType {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []protocol.HookType
	for _, r := range h.invoked {
		out = append(out, r.HookType)
	}
	return out
}

// input returns the input of the last invocation of typ.
func (h *hookClient) input(t *testing.T, typ protocol.HookType) map[string]any {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.invoked) - 1; i >= 0; i-- {
		if h.invoked[i].HookType == typ {
			var in map[string]any
			mustUnmarshal(t, h.invoked[i].Input, &in)
			return in
		}
	}
	t.Fatalf("%s was not invoked", typ)
	return nil
}

// A userPromptSubmitted hook rewrites the prompt the model gets; the hooks
// run where CLI 1.0.102 runs them, with its inputs, each between hook.start
// and hook.end (copilot's TestRealCLIHookRewritesPrompt is the real CLI's
// side).
func TestHookRewritesThePrompt(t *testing.T) {
	var log turnLog
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{{ID: "m", Respond: log.respond}}}))
	h := &hookClient{outputs: map[protocol.HookType]any{
		protocol.HookTypeUserPromptSubmitted: map[string]any{"modifiedPrompt": "QUIET PLEASE"},
	}}
	h.install(c)
	id := c.createSession(map[string]any{"hooks": true, "workingDirectory": "/work"})
	c.send(id, "quiet please")
	evs := c.waitIdle(id, 1)
	if turn := log.last(); turn.Prompt != "QUIET PLEASE" || messageContent(t, evs) != "m says: QUIET PLEASE" {
		t.Errorf("the model got %q", turn.Prompt)
	}
	var msg protocol.UserMessageData
	mustUnmarshal(t, c.waitType(id, protocol.EventUserMessage).Data, &msg)
	if msg.Content != "quiet please" || msg.TransformedContent != "QUIET PLEASE" {
		t.Errorf("%s %+v", protocol.EventUserMessage, msg)
	}
	want := []protocol.HookType{protocol.HookTypeSessionStart, protocol.HookTypeUserPromptSubmitted, protocol.HookTypeUserPromptTransformed, protocol.HookTypeAgentStop}
	if got := h.types(); !slices.Equal(got, want) {
		t.Fatalf("hooks %v, want %v", got, want)
	}
	if in := h.input(t, protocol.HookTypeSessionStart); in["source"] != "new" || in["initialPrompt"] != "quiet please" || in["cwd"] != "/work" || in["sessionId"] != id || in["timestamp"] == nil {
		t.Errorf("sessionStart input %v", in)
	}
	if in := h.input(t, protocol.HookTypeUserPromptSubmitted); in["prompt"] != "quiet please" {
		t.Errorf("userPromptSubmitted input %v", in)
	}
	if in := h.input(t, protocol.HookTypeAgentStop); in["stopReason"] != "end_turn" || in["stop_hook_active"] != false || !strings.HasSuffix(in["transcriptPath"].(string), "/events.jsonl") {
		t.Errorf("agentStop input %v", in)
	}
	if n, m := count(evs, protocol.EventHookStart), count(evs, protocol.EventHookEnd); n != 4 || m != 4 {
		t.Errorf("%d hook.start and %d hook.end: %v", n, m, types(evs))
	}
	if i := slices.IndexFunc(evs, func(e sim.Event) bool { return e.Type == protocol.EventUserMessage }); count(evs[:i], protocol.EventHookEnd) != 3 {
		t.Errorf("user.message before the prompt hooks ended: %v", types(evs))
	}

	// sessionStart runs at the first send only.
	c.send(id, "again")
	c.waitIdle(id, 2)
	if got := h.types()[len(want):]; slices.Contains(got, protocol.HookTypeSessionStart) || len(got) != 3 {
		t.Errorf("second turn's hooks %v", got)
	}
}

// A userPromptSubmitted hook that blocks: no message, no model call, a
// policy_blocked warning, and the session is not written to disk.
func TestHookBlocksThePrompt(t *testing.T) {
	var log turnLog
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{{ID: "m", Respond: log.respond}}}))
	h := &hookClient{outputs: map[protocol.HookType]any{
		protocol.HookTypeUserPromptSubmitted: map[string]any{"decision": "block", "reason": "not today"},
	}}
	h.install(c)
	id := c.createSession(map[string]any{"hooks": true})
	msgID := c.send(id, "weather?")
	evs := c.waitIdle(id, 1)
	var w protocol.WarningData
	mustUnmarshal(t, c.waitType(id, protocol.EventSessionWarning).Data, &w)
	if w.WarningType != "policy_blocked" || w.Message != "not today" || w.OriginatingMessageID != msgID {
		t.Errorf("%s %+v", protocol.EventSessionWarning, w)
	}
	if count(evs, protocol.EventUserMessage) != 0 || len(log.turns) != 0 || len(c.listed()) != 0 {
		t.Errorf("a blocked prompt went on: %v", types(evs))
	}
	if got := types(evs[len(evs)-3:]); !slices.Equal(got, []string{protocol.EventSessionWarning, protocol.EventAssistantIdle, protocol.EventSessionIdle}) {
		t.Errorf("the turn ends with %v", got)
	}
}

// preToolUse decides for the tool: deny keeps it from running and tells
// the model why, allow runs it without asking permission, ask asks even
// for a tool that skips permission; modifiedArgs change its arguments;
// postToolUse's modifiedResult is what the model gets; a failed tool runs
// postToolUseFailure.
func TestHooksAroundTools(t *testing.T) {
	needsPermission := map[string]any{"name": "lookup", "parameters": map[string]any{"type": "object"}}
	skips := map[string]any{"name": "lookup", "skipPermission": true}
	for _, tc := range []struct {
		name    string
		outputs map[protocol.HookType]any
		tool    map[string]any
		ran     bool // the client was asked to run the tool
		asked   string
		reply   string
	}{
		{"deny", map[protocol.HookType]any{protocol.HookTypePreToolUse: map[string]any{"permissionDecision": "deny", "permissionDecisionReason": "no lookups today"}},
			needsPermission, false, "", "tool failed: Denied by preToolUse hook: no lookups today"},
		{"allow", map[protocol.HookType]any{protocol.HookTypePreToolUse: map[string]any{"permissionDecision": "allow"}},
			needsPermission, true, "", "tool said: sunny"},
		{"ask", map[protocol.HookType]any{protocol.HookTypePreToolUse: map[string]any{"permissionDecision": "ask"}},
			skips, true, "hook", "tool said: sunny"},
		{"no decision", nil, needsPermission, true, "custom-tool", "tool said: sunny"},
		{"modify", map[protocol.HookType]any{
			protocol.HookTypePreToolUse:  map[string]any{"modifiedArgs": map[string]any{"q": "changed"}},
			protocol.HookTypePostToolUse: map[string]any{"modifiedResult": map[string]any{"textResultForLlm": "stormy", "resultType": "success"}},
		}, skips, true, "", "tool said: stormy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(nil)}}))
			a := newAnswerer(c, "approve-once", map[string]any{"textResultForLlm": "sunny"}, "")
			h := &hookClient{outputs: tc.outputs}
			h.install(c)
			id := c.createSession(map[string]any{"hooks": true, "requestPermission": true, "tools": []any{tc.tool}})
			c.send(id, "weather?")
			evs := c.waitIdle(id, 1)
			a.check(t)
			if got := messageContent(t, evs); got != tc.reply {
				t.Errorf("the model got %q, want %q", got, tc.reply)
			}
			if ran := count(evs, protocol.EventExternalToolRequested) == 1; ran != tc.ran {
				t.Errorf("the tool ran: %v: %v", ran, types(evs))
			}
			asked := ""
			if n := count(evs, protocol.EventPermissionRequested); n == 1 {
				var p protocol.PermissionRequestedData
				mustUnmarshal(t, c.waitType(id, protocol.EventPermissionRequested).Data, &p)
				asked = p.PermissionRequest.Kind
				if asked == "hook" && (p.PermissionRequest.ToolName != "lookup" || p.PermissionRequest.HookMessage == "") {
					t.Errorf("a hook's permission request %+v", p.PermissionRequest)
				}
			}
			if asked != tc.asked {
				t.Errorf("permission asked of kind %q, want %q", asked, tc.asked)
			}
			if in := h.input(t, protocol.HookTypePreToolUse); in["toolName"] != "lookup" || !jsonIs(t, in["toolArgs"], `{"q":"answer"}`) {
				t.Errorf("preToolUse input %v", in)
			}
			if tc.name == "modify" {
				var ext protocol.ExternalToolRequestedData
				mustUnmarshal(t, c.waitType(id, protocol.EventExternalToolRequested).Data, &ext)
				post := h.input(t, protocol.HookTypePostToolUse)
				if !sameJSON(t, ext.Arguments, json.RawMessage(`{"q":"changed"}`)) || !jsonIs(t, post["toolArgs"], `{"q":"changed"}`) ||
					!jsonIs(t, post["toolResult"], `{"textResultForLlm":"sunny","resultType":"success"}`) {
					t.Errorf("the tool ran with %s; postToolUse input %v", ext.Arguments, post)
				}
			}
			if tc.name == "deny" && slices.Contains(h.types(), protocol.HookTypePostToolUseFailure) {
				t.Error("postToolUseFailure after a denial")
			}
		})
	}

	t.Run("failure", func(t *testing.T) {
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(nil)}}))
		newAnswerer(c, "approve-once", nil, "disk on fire")
		h := &hookClient{}
		h.install(c)
		id := c.createSession(map[string]any{"hooks": true, "tools": []any{skips}})
		c.send(id, "weather?")
		c.waitIdle(id, 1)
		if in := h.input(t, protocol.HookTypePostToolUseFailure); in["error"] != "disk on fire" || in["toolName"] != "lookup" {
			t.Errorf("postToolUseFailure input %v", in)
		}
	})
}

// jsonIs reports whether v, decoded from JSON, is the JSON value want.
func jsonIs(t *testing.T, v any, want string) bool {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return sameJSON(t, raw, json.RawMessage(want))
}

// A hooks.invoke answered with an error is no output: the turn goes on as
// without the hook. Without hooks:true no hook runs.
func TestHooksAnsweredWithErrorsOrOff(t *testing.T) {
	for _, on := range []bool{true, false} {
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{toolModel(nil)}}))
		newAnswerer(c, "approve-once", map[string]any{"textResultForLlm": "sunny"}, "")
		h := &hookClient{fail: true}
		h.install(c)
		id := c.createSession(map[string]any{"hooks": on, "requestPermission": true, "tools": []any{lookupTool}})
		c.send(id, "weather?")
		if got := messageContent(t, c.waitIdle(id, 1)); got != "tool said: sunny" {
			t.Errorf("hooks %v: the model got %q", on, got)
		}
		if n := len(h.types()); (n == 6) != on || (n == 0) == on {
			t.Errorf("hooks %v: %v invoked", on, h.types())
		}
	}
}
