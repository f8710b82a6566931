package session

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Protocol 3: the tool request is an event. Next stops at it, and the next
// Next reads the rest of the turn.
func TestNextStopsForAnExternalTool(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink,
		eventMsg("assistant.turn_start", ""),
		messageMsg("Let me look that up."),
		eventMsg(protocol.EventExternalToolRequested, `{"requestId":"req-1","sessionId":"s1","toolCallId":"call_1","toolName":"lookup","arguments":{"query":"x","n":2}}`),
		eventMsg("external_tool.completed", `{"requestId":"req-1"}`),
		eventMsg("tool.execution_complete", `{"toolCallId":"call_1","success":true}`),
		deltaMsg("It is "),
		deltaMsg("42."),
		messageMsg("It is 42."),
		idleMsg())
	var rec recorded
	h := rec.handlers()
	ctx := testutil.Context(t, hangGuard)
	step, err := ch.Next(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if step.Done() || step.Tool == nil || step.Permission != nil {
		t.Fatalf("step = %+v, want a tool request", step)
	}
	want := ToolRequest{RequestID: "req-1", ToolCallID: "call_1", ToolName: "lookup", Arguments: json.RawMessage(`{"query":"x","n":2}`)}
	if !reflect.DeepEqual(*step.Tool, want) {
		t.Errorf("tool = %+v\nwant   %+v", *step.Tool, want)
	}
	if step.Text != "Let me look that up." {
		t.Errorf("text before the tool = %q", step.Text)
	}
	step, err = ch.Next(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !step.Done() || step.Text != "It is 42." {
		t.Fatalf("second step = %+v, want the end of the turn", step)
	}
	if !reflect.DeepEqual(rec.deltas, []string{"It is ", "42."}) {
		t.Errorf("deltas = %q", rec.deltas)
	}
	if len(rec.events) != 9 {
		t.Errorf("OnEvent saw %d events over both steps, want 9: %q", len(rec.events), rec.events)
	}
}

// Protocol 2: the tool call is a request, answered by replying to it.
func TestNextStopsForAToolCallRequest(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	rec := &recorder{}
	deliver(t, sink,
		NewRequest(protocol.MethodToolCall, jsonrpc2.ID{Str: "tc-9", IsString: true},
			json.RawMessage(`{"sessionId":"s1","toolCallId":"call_9","toolName":"lookup","arguments":{"q":1}}`), rec),
		messageMsg("done"),
		idleMsg())
	ctx := testutil.Context(t, hangGuard)
	step, err := ch.Next(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if step.Done() || step.Tool == nil || step.Tool.Request == nil {
		t.Fatalf("step = %+v, want a tool.call request", step)
	}
	if tl := step.Tool; tl.ToolCallID != "call_9" || tl.ToolName != "lookup" || string(tl.Arguments) != `{"q":1}` || tl.RequestID != "" {
		t.Errorf("tool = %+v", tl)
	}
	if len(rec.all()) != 0 {
		t.Fatalf("the tool call was answered before the caller: %+v", rec.all())
	}
	if err := step.Tool.Request.Respond(ctx, map[string]string{"textResultForLlm": "1"}); err != nil {
		t.Fatal(err)
	}
	if rp := rec.only(t, jsonrpc2.ID{Str: "tc-9", IsString: true}); rp.Err != nil || !reflect.DeepEqual(rp.Result, map[string]string{"textResultForLlm": "1"}) {
		t.Errorf("reply = %+v", rp)
	}
	if step, err = ch.Next(ctx, nil, nil); err != nil || !step.Done() || step.Text != "done" {
		t.Fatalf("rest of the turn = %+v, %v", step, err)
	}
}

// A tool.call whose params name no tool is answered at once and skipped.
func TestNextAnswersABadToolCall(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	rec := &recorder{}
	deliver(t, sink,
		NewRequest(protocol.MethodToolCall, num(1), json.RawMessage(`{"sessionId":"s1","toolCallId":"c"}`), rec),
		NewRequest(protocol.MethodToolCall, num(2), json.RawMessage(`["not","an","object"]`), rec),
		messageMsg("ok"),
		idleMsg())
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	if err != nil || text != "ok" {
		t.Fatalf("ReadTurn = %q, %v", text, err)
	}
	for _, id := range []jsonrpc2.ID{num(1), num(2)} {
		rp := rec.only(t, id)
		if rp.Err == nil || rp.Err.Code != jsonrpc2.CodeInvalidParams {
			t.Errorf("request %v: answer %+v, want invalid params", id, rp)
		}
		if rp.Err != nil && strings.Contains(rp.Err.Message, "<nil>") {
			t.Errorf("request %v: message %q", id, rp.Err.Message)
		}
	}
}

func TestNextStopsForAPermission(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	details := `{"kind":"custom-tool","toolName":"lookup","toolCallId":"call_1","args":{"q":1}}`
	deliver(t, sink,
		eventMsg(protocol.EventPermissionRequested, `{"requestId":"perm-1","permissionRequest":`+details+`}`),
		eventMsg("permission.completed", `{"requestId":"perm-1"}`),
		idleMsg())
	ctx := testutil.Context(t, hangGuard)
	step, err := ch.Next(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if step.Done() || step.Permission == nil || step.Tool != nil {
		t.Fatalf("step = %+v, want a permission request", step)
	}
	p := step.Permission
	if p.RequestID != "perm-1" || p.Kind != "custom-tool" || p.ToolName != "lookup" || string(p.Details) != details {
		t.Errorf("permission = %+v", p)
	}
	if step, err = ch.Next(ctx, nil, nil); err != nil || !step.Done() {
		t.Fatalf("rest of the turn = %+v, %v", step, err)
	}
}

// Tool and permission events without a request id cannot be answered and
// do not stop the turn; nor does a permission a hook already resolved (the
// CLI wants no answer).
func TestNextIgnoresUnanswerableRequests(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink,
		eventMsg(protocol.EventExternalToolRequested, `{"toolCallId":"c","toolName":"x"}`),
		eventMsg(protocol.EventPermissionRequested, `{"permissionRequest":{"kind":"shell"}}`),
		eventMsg(protocol.EventPermissionRequested, `{"requestId":"p1","resolvedByHook":true,"permissionRequest":{"kind":"shell"}}`),
		eventMsg(protocol.EventExternalToolRequested, `"not an object"`),
		messageMsg("fine"),
		idleMsg())
	step, err := ch.Next(testutil.Context(t, hangGuard), nil, nil)
	if err != nil || !step.Done() || step.Text != "fine" {
		t.Fatalf("Next = %+v, %v", step, err)
	}
}

func TestReadTurnRefusesTools(t *testing.T) {
	t.Run("tool.call request", func(t *testing.T) {
		ch, sink := newChannel(t, Config{})
		rec := &recorder{}
		deliver(t, sink,
			messageMsg("calling"),
			NewRequest(protocol.MethodToolCall, num(5), json.RawMessage(`{"sessionId":"s1","toolCallId":"c5","toolName":"lookup"}`), rec))
		text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
		if !errors.Is(err, ErrUnexpectedTool) || !strings.Contains(err.Error(), "lookup") {
			t.Fatalf("err = %v, want ErrUnexpectedTool naming the tool", err)
		}
		if text != "calling" {
			t.Errorf("text = %q", text)
		}
		if rp := rec.only(t, num(5)); rp.Err == nil || rp.Err.Code != jsonrpc2.CodeMethodNotFound {
			t.Errorf("the tool call got %+v, want an error answer", rp)
		}
	})
	t.Run("external_tool event", func(t *testing.T) {
		ch, sink := newChannel(t, Config{})
		deliver(t, sink, eventMsg(protocol.EventExternalToolRequested, `{"requestId":"r","toolCallId":"c","toolName":"lookup"}`))
		if _, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil); !errors.Is(err, ErrUnexpectedTool) {
			t.Fatalf("err = %v, want ErrUnexpectedTool", err)
		}
	})
	t.Run("permission", func(t *testing.T) {
		ch, sink := newChannel(t, Config{})
		deliver(t, sink, eventMsg(protocol.EventPermissionRequested, `{"requestId":"p","permissionRequest":{"kind":"shell"}}`))
		_, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
		if !errors.Is(err, ErrUnexpectedTool) || !strings.Contains(err.Error(), "shell") {
			t.Fatalf("err = %v, want ErrUnexpectedTool naming the kind", err)
		}
	})
}

// Next hands the requests other than tool calls to its RequestHandler.
func TestOtherRequestsGoToTheRequestHandler(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	rec := &recorder{}
	deliver(t, sink,
		NewRequest("userInput.request", num(1), json.RawMessage(`{"sessionId":"s1","question":"Which?"}`), rec),
		messageMsg("thanks"),
		NewRequest("hooks.invoke", num(2), json.RawMessage(`{"sessionId":"s1"}`), rec),
		idleMsg())
	var got []string
	answer := func(ctx context.Context, m Message) {
		got = append(got, m.Method)
		if err := m.Respond(ctx, map[string]string{"answer": "this"}); err != nil {
			t.Errorf("reply: %v", err)
		}
	}
	step, err := ch.Next(testutil.Context(t, hangGuard), nil, answer)
	if err != nil || !step.Done() || step.Text != "thanks" {
		t.Fatalf("Next = %+v, %v", step, err)
	}
	if !reflect.DeepEqual(got, []string{"userInput.request", "hooks.invoke"}) {
		t.Errorf("the RequestHandler got %q", got)
	}
	for _, id := range []jsonrpc2.ID{num(1), num(2)} {
		if rp := rec.only(t, id); rp.Err != nil {
			t.Errorf("request %v answered with %+v, want the handler's result", id, rp)
		}
	}
}

// Without a RequestHandler (ReadTurn has none), the other requests are
// answered with method-not-found: the CLI never waits on them.
func TestOtherRequestsAnsweredWithoutARequestHandler(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	rec := &recorder{}
	deliver(t, sink,
		NewRequest("userInput.request", num(3), json.RawMessage(`{"sessionId":"s1"}`), rec),
		idleMsg())
	if _, err := ch.ReadTurn(testutil.Context(t, hangGuard), &TurnHandlers{}); err != nil {
		t.Fatal(err)
	}
	rp := rec.only(t, num(3))
	if rp.Err == nil || rp.Err.Code != jsonrpc2.CodeMethodNotFound || !strings.Contains(rp.Err.Message, "userInput.request") {
		t.Fatalf("answer %+v, want -32601 naming the method", rp)
	}
}
