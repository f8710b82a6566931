package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// recorded collects what a turn's handlers saw.
type recorded struct {
	deltas []string
	events []string
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
