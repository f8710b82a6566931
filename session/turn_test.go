package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// recorded collects what a turn's handlers saw.
type recorded struct {
	deltas   []string
	events   []string
	requests []Message
}

func (r *recorded) handlers() *TurnHandlers {
	return &TurnHandlers{
		OnDelta: func(s string) { r.deltas = append(r.deltas, s) },
		OnEvent: func(e Event) { r.events = append(r.events, e.Type) },
	}
}

func deltaMsg(text string) Message {
	b, _ := json.Marshal(map[string]string{"messageId": "m1", "deltaContent": text})
	return eventMsg(protocol.EventAssistantMessageDelta, string(b))
}

func streamingDelta(total int) Message {
	return eventMsg("assistant.streaming_delta", fmt.Sprintf(`{"totalResponseSizeBytes":%d}`, total))
}

func messageMsg(content string) Message {
	b, _ := json.Marshal(map[string]any{"messageId": "m1", "content": content, "toolRequests": []any{}})
	return eventMsg(protocol.EventAssistantMessage, string(b))
}

func idleMsg() Message {
	return NewNotification(protocol.NotificationSessionEvent, json.RawMessage(`{"sessionId":"s1","event":{"type":"session.idle","data":{},"id":"ev-idle-`+fmt.Sprint(eventIDs.Add(1))+`","timestamp":"2025-06-01T12:00:01.000Z","parentId":"ev-x","ephemeral":true}}`))
}

func types(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if ev, err := m.Event(); err == nil {
			out = append(out, ev.Type)
		}
	}
	return out
}

// A streamed turn as the CLI sends it: each chunk is a message_delta and a
// streaming_delta, then the whole message, then the idle that ends it.
func TestReadTurnStreamed(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	chunks := []string{"Hel", "lo, ", "wor", "ld — ", "“quoted”\n", "done."}
	turn := []Message{
		eventMsg("user.message", `{"content":"hi"}`),
		eventMsg("assistant.turn_start", `{"turnId":"0"}`),
	}
	total := 0
	for _, c := range chunks {
		total += len(c)
		turn = append(turn, deltaMsg(c), streamingDelta(total))
	}
	turn = append(turn,
		messageMsg(strings.Join(chunks, "")),
		eventMsg("assistant.turn_end", `{"turnId":"0"}`),
		eventMsg(protocol.EventAssistantUsage, `{"model":"claude-sonnet-4.5","duration":120,"inputTokens":10,"outputTokens":6}`),
		eventMsg("assistant.idle", ""),
		idleMsg(),
		eventMsg("user.message", `{"content":"next turn"}`), // must stay for the next read
	)
	deliver(t, sink, turn...)

	var rec recorded
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), rec.handlers())
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(chunks, ""); text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if !reflect.DeepEqual(rec.deltas, chunks) {
		t.Errorf("OnDelta got %q, want %q", rec.deltas, chunks)
	}
	if want := types(turn[:len(turn)-1]); !reflect.DeepEqual(rec.events, want) {
		t.Errorf("OnEvent got\n%q\nwant\n%q", rec.events, want)
	}
	if msgs, _ := ch.Buffered(); msgs != 1 {
		t.Errorf("%d messages left after the turn, want the next turn's 1", msgs)
	}
}

// Deltas alone (no closing assistant.message) still make the text.
func TestReadTurnDeltasOnly(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink, deltaMsg("a"), deltaMsg(""), deltaMsg("b"), idleMsg())
	var rec recorded
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), rec.handlers())
	if err != nil || text != "ab" {
		t.Fatalf("ReadTurn = %q, %v; want ab", text, err)
	}
	if !reflect.DeepEqual(rec.deltas, []string{"a", "b"}) {
		t.Errorf("OnDelta got %q; empty chunks should be skipped", rec.deltas)
	}
}

func TestReadTurnNotStreamed(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink,
		eventMsg("assistant.turn_start", ""),
		messageMsg("The whole answer."),
		eventMsg("assistant.turn_end", ""),
		idleMsg())
	var rec recorded
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), rec.handlers())
	if err != nil || text != "The whole answer." {
		t.Fatalf("ReadTurn = %q, %v", text, err)
	}
	if len(rec.deltas) != 0 {
		t.Errorf("OnDelta called for a non-streamed turn: %q", rec.deltas)
	}
}

func TestReadTurnJoinsMessages(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink, messageMsg("First."), messageMsg(""), messageMsg("Second."), idleMsg())
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	if err != nil || text != "First.\n\nSecond." {
		t.Fatalf("ReadTurn = %q, %v", text, err)
	}
}

func TestReadTurnSessionError(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink,
		deltaMsg("partial"),
		eventMsg(protocol.EventSessionError, `{"errorType":"model_call","message":"Failed to get response from the AI model; retried 5 times","stack":"..."}`),
		eventMsg(protocol.EventSessionError, `{"errorType":"second","message":"ignored"}`),
		idleMsg(),
		eventMsg("user.message", ""))
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	var te *TurnError
	if !errors.As(err, &te) || !errors.Is(err, ErrTurnFailed) {
		t.Fatalf("err = %v (%T), want a *TurnError", err, err)
	}
	if te.Type != "model_call" || te.Message != "Failed to get response from the AI model; retried 5 times" {
		t.Errorf("TurnError = %+v; want the first session.error's type and message", te)
	}
	if !strings.Contains(err.Error(), "model_call") || !strings.Contains(err.Error(), "retried 5 times") {
		t.Errorf("Error() = %q", err.Error())
	}
	if text != "partial" {
		t.Errorf("text = %q, want what streamed before the error", text)
	}
	// The error waited for session.idle: the next turn's first event is next.
	if msgs, _ := ch.Buffered(); msgs != 1 {
		t.Errorf("%d messages left, want 1", msgs)
	}
}

func TestTurnErrorWithoutType(t *testing.T) {
	err := &TurnError{Message: "boom"}
	if err.Error() != "session: turn failed: boom" || !errors.Is(err, ErrTurnFailed) {
		t.Fatalf("Error() = %q", err.Error())
	}
}

func TestReadTurnAbort(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink, deltaMsg("cut "), eventMsg(protocol.EventAbort, `{"reason":"user initiated"}`), idleMsg())
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("err = %v, want ErrAborted", err)
	}
	if text != "cut " {
		t.Errorf("text = %q", text)
	}
}

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
	if err := step.Tool.Request.Reply(ctx, map[string]string{"textResultForLlm": "1"}); err != nil {
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
		if err := m.Reply(ctx, map[string]string{"answer": "this"}); err != nil {
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

// Messages that are not well-formed events are skipped; the turn goes on.
func TestMalformedEventsDoNotBreakTheTurn(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	var rec recorded
	deliver(t, sink,
		NewNotification(protocol.NotificationSessionEvent, json.RawMessage(`{"sessionId":"s1","event":`)), // invalid JSON
		NewNotification(protocol.NotificationSessionEvent, json.RawMessage(`{"sessionId":"s1"}`)),         // no event
		NewNotification(protocol.NotificationSessionEvent, nil),
		NewNotification("session.lifecycle", json.RawMessage(`{"type":"session.updated"}`)),
		eventMsg(protocol.EventAssistantMessageDelta, `{"deltaContent":7}`), // wrong type: no text
		eventMsg(protocol.EventAssistantMessage, `["not","an","object"]`),   // no content
		eventMsg(protocol.EventSessionError, `"no fields"`),                 // still a failure
		deltaMsg("ok"),
		idleMsg())
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), rec.handlers())
	var te *TurnError
	if !errors.As(err, &te) || te.Type != "" || te.Message != "" {
		t.Fatalf("err = %v; a session.error with unreadable data still fails the turn", err)
	}
	if text != "ok" {
		t.Errorf("text = %q", text)
	}
	want := []string{protocol.EventAssistantMessageDelta, protocol.EventAssistantMessage, protocol.EventSessionError, protocol.EventAssistantMessageDelta, protocol.EventSessionIdle}
	if !reflect.DeepEqual(rec.events, want) {
		t.Errorf("OnEvent got %q, want %q", rec.events, want)
	}
}

// A Receive error ends the turn with the error and the text read so far.
func TestReceiveErrorEndsTheTurn(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		ch, sink := newChannel(t, Config{})
		deliver(t, sink, messageMsg("One."), deltaMsg("Tw"), deltaMsg("o"))
		stop := errors.New("router stopped")
		sink.Fail(stop)
		text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
		if err != stop {
			t.Fatalf("err = %v, want the failure", err)
		}
		if text != "One.\n\nTwo" {
			t.Errorf("text = %q, want all that was read: the message and the partial one", text)
		}
	})
	t.Run("context", func(t *testing.T) {
		ch, sink := newChannel(t, Config{})
		deliver(t, sink, deltaMsg("so far"))
		ctx, cancel := context.WithCancel(context.Background())
		var rec recorded
		h := rec.handlers()
		h.OnDelta = func(string) { cancel() }
		step, err := ch.Next(ctx, h, nil)
		if err != context.Canceled || step.Text != "so far" || !step.Done() {
			t.Fatalf("Next = %+v, %v", step, err)
		}
	})
}

func TestMessageReplyToANotification(t *testing.T) {
	m := eventMsg("x", "")
	if m.IsRequest() {
		t.Fatal("a notification is a request")
	}
	if err := m.Reply(context.Background(), 1); err != ErrNotRequest {
		t.Errorf("Reply: %v", err)
	}
	if err := m.ReplyError(context.Background(), 1, "x"); err != ErrNotRequest {
		t.Errorf("ReplyError: %v", err)
	}
	if _, err := NewNotification("session.lifecycle", nil).Event(); err == nil {
		t.Error("Event() on another method succeeded")
	}
}

func TestEventEnvelope(t *testing.T) {
	m := NewNotification(protocol.NotificationSessionEvent, json.RawMessage(`{"sessionId":"s1","event":{"type":"session.idle","data":{"a":1},"id":"e1","timestamp":"t","parentId":"p","ephemeral":true,"unknown":1}}`))
	ev, err := m.Event()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != protocol.EventSessionIdle || string(ev.Data) != `{"a":1}` || ev.ID != "e1" || ev.Timestamp != "t" || ev.ParentID == nil || *ev.ParentID != "p" || !ev.Ephemeral {
		t.Fatalf("event = %+v", ev)
	}
}

// agentMsg is an event of a sub-agent: the CLI names it in the envelope's
// agentId.
func agentMsg(agentID, typ string, data any) Message {
	b, _ := json.Marshal(data)
	return NewNotification(protocol.NotificationSessionEvent, json.RawMessage(fmt.Sprintf(
		`{"sessionId":"s1","event":{"type":%q,"data":%s,"id":"ev-%08d","timestamp":"2025-06-01T12:00:00.000Z","parentId":null,"agentId":%q}}`,
		typ, b, eventIDs.Add(1), agentID)))
}

// A sub-agent's text is kept apart from the main agent's: not in Text,
// not passed to OnDelta, but in AgentText by agentId and to OnAgentDelta.
func TestSubAgentTextKeptApart(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	deliver(t, sink,
		deltaMsg("main "),
		agentMsg("explore-1", protocol.EventAssistantMessageDelta, map[string]string{"messageId": "a1", "deltaContent": "looking"}),
		agentMsg("explore-1", protocol.EventAssistantMessage, map[string]any{"messageId": "a1", "content": "found it"}),
		agentMsg("task-2", protocol.EventAssistantMessageDelta, map[string]string{"messageId": "a2", "deltaContent": "half"}),
		deltaMsg("answer"),
		messageMsg("main answer"),
		idleMsg(),
	)
	var main []string
	agents := map[string]string{}
	h := &TurnHandlers{
		OnDelta:      func(s string) { main = append(main, s) },
		OnAgentDelta: func(id, s string) { agents[id] += s },
	}
	step, err := ch.Next(testutil.Context(t, hangGuard), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if step.Text != "main answer" || strings.Join(main, "") != "main answer" {
		t.Errorf("main text %q, deltas %q", step.Text, main)
	}
	want := map[string]string{"explore-1": "found it", "task-2": "half"}
	if !reflect.DeepEqual(step.AgentText, want) {
		t.Errorf("AgentText = %v, want %v", step.AgentText, want)
	}
	if !reflect.DeepEqual(agents, map[string]string{"explore-1": "looking", "task-2": "half"}) {
		t.Errorf("OnAgentDelta saw %v", agents)
	}
}
