package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

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
	if err := m.Respond(context.Background(), 1); err != ErrNotRequest {
		t.Errorf("Reply: %v", err)
	}
	if err := m.RespondError(context.Background(), 1, "x"); err != ErrNotRequest {
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
