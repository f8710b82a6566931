package sim_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// agentText joins, per agentId ("" for the main agent), the deltaContent of
// the message_delta events and the content of the assistant.message events.
func agentText(t *testing.T, evs []sim.Event) (deltas, messages map[string]string) {
	t.Helper()
	deltas, messages = map[string]string{}, map[string]string{}
	for _, e := range evs {
		switch e.Type {
		case protocol.EventAssistantMessageDelta:
			var d protocol.AssistantMessageDeltaData
			mustUnmarshal(t, e.Data, &d)
			deltas[e.AgentID] += d.DeltaContent
		case protocol.EventAssistantMessage:
			var d protocol.AssistantMessageData
			mustUnmarshal(t, e.Data, &d)
			messages[e.AgentID] += d.Content
		}
	}
	return deltas, messages
}

func TestSubAgentTextIsTaggedAndComesBeforeTheMainMessage(t *testing.T) {
	reply := sim.Response{
		Text:      "the main answer",
		ChunkSize: 5,
		SubAgents: []sim.SubAgentText{{AgentID: "explore-1", Text: "looked at three files"}, {AgentID: "review-2", Text: "looks fine"}},
	}
	histories := make(chan []sim.Exchange, 2)
	srv := newServer(t, sim.Options{Models: []sim.Model{{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		histories <- turn.History
		return reply
	}}}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": true})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	checkEnvelopes(t, evs)

	deltas, messages := agentText(t, evs)
	wantDeltas := map[string]string{"explore-1": "looked at three files", "review-2": "looks fine", "": "the main answer"}
	wantMessages := map[string]string{"explore-1": "looked at three files", "review-2": "looks fine", "": "the main answer"}
	if !maps.Equal(deltas, wantDeltas) || !maps.Equal(messages, wantMessages) {
		t.Errorf("deltas %q, messages %q; want %q and %q", deltas, messages, wantDeltas, wantMessages)
	}

	// Each sub-agent's events come whole and in order, before the first
	// event of the main agent's message; only message events carry an
	// agentId.
	firstMain := slices.IndexFunc(evs, func(e sim.Event) bool {
		return e.AgentID == "" && (e.Type == protocol.EventAssistantMessageDelta || e.Type == protocol.EventAssistantMessage)
	})
	var order []string
	for i, e := range evs {
		if e.AgentID == "" {
			continue
		}
		if e.Type != protocol.EventAssistantMessageDelta && e.Type != protocol.EventAssistantMessage {
			t.Errorf("event %d: %s with agentId %q", i, e.Type, e.AgentID)
		}
		if i > firstMain {
			t.Errorf("event %d (%s of %s) follows the main agent's message", i, e.Type, e.AgentID)
		}
		if len(order) == 0 || order[len(order)-1] != e.AgentID {
			order = append(order, e.AgentID)
		}
	}
	if !slices.Equal(order, []string{"explore-1", "review-2"}) {
		t.Errorf("sub-agents in the order %q", order)
	}
	if n := count(evs, protocol.EventAssistantStreamingDelta); n != 3 { // "the main answer" in 5-rune pieces
		t.Errorf("%d streaming deltas, want 3: one per main-agent piece", n)
	}

	// The sub-agents' messages are kept, with their agentId; the session's
	// history holds only the main agent's reply.
	var got struct {
		Events []sim.Event `json:"events"`
	}
	c.mustCall(protocol.MethodSessionGetMessages, map[string]any{"sessionId": id}, &got)
	if _, persisted := agentText(t, got.Events); !maps.Equal(persisted, wantMessages) {
		t.Errorf("persisted messages %q, want %q", persisted, wantMessages)
	}
	c.send(id, "again")
	c.waitIdle(id, 2)
	<-histories
	if history := <-histories; len(history) != 1 || history[0].Response != "the main answer" {
		t.Errorf("history = %+v", history)
	}
}

func TestSubAgentTextWithoutStreaming(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Response{
		Text: "main", SubAgents: []sim.SubAgentText{{AgentID: "a1", Text: "sub"}},
	})}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": false})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	var messages []string
	for _, e := range evs {
		if e.Type == protocol.EventAssistantMessageDelta {
			t.Errorf("a delta in a session that does not stream: %+v", e)
		}
		if e.Type == protocol.EventAssistantMessage {
			messages = append(messages, e.AgentID)
		}
	}
	if !slices.Equal(messages, []string{"a1", ""}) {
		t.Errorf("%s agents %q, want the sub-agent's then the main one", protocol.EventAssistantMessage, messages)
	}
}

func TestSubAgentWithoutIDFailsTheTurn(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Response{
		Text: "main", SubAgents: []sim.SubAgentText{{Text: "whose?"}},
	})}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": true})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	if count(evs, protocol.EventSessionError) != 1 || count(evs, protocol.EventAssistantMessageDelta) != 0 {
		t.Errorf("events %v, want a session.error and no text", types(evs))
	}
}

func TestEmitAgentEventSetsAgentID(t *testing.T) {
	c, conn := dial(t, newServer(t, sim.Options{}))
	id := c.createSession(nil)
	delta := protocol.AssistantMessageDeltaData{MessageID: "m1", DeltaContent: "from a sub-agent"}
	if err := conn.EmitAgentEvent(id, "task-7", protocol.EventAssistantMessageDelta, delta, true); err != nil {
		t.Fatal(err)
	}
	if err := conn.EmitEvent(id, protocol.EventAssistantMessageDelta, delta, true); err != nil {
		t.Fatal(err)
	}
	lone := "no-such-session"
	if err := conn.EmitAgentEvent(lone, "task-8", protocol.EventAssistantMessageDelta, delta, true); err != nil {
		t.Fatal(err)
	}
	evs := c.waitEvents(id, "the injected deltas", func(evs []sim.Event) bool {
		return count(evs, protocol.EventAssistantMessageDelta) == 2
	})
	injected := evs[len(evs)-2:]
	if injected[0].AgentID != "task-7" || injected[1].AgentID != "" {
		t.Errorf("agentIds %q and %q, want task-7 and none", injected[0].AgentID, injected[1].AgentID)
	}
	if other := c.waitEvents(lone, "the lone delta", func(evs []sim.Event) bool { return len(evs) == 1 }); other[0].AgentID != "task-8" {
		t.Errorf("lone event agentId %q", other[0].AgentID)
	}
	// The main agent's event leaves agentId out rather than sending "".
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.wire {
		var p struct {
			Event map[string]json.RawMessage `json:"event"`
		}
		if e.Session != id || json.Unmarshal(e.Params, &p) != nil {
			continue
		}
		if raw, ok := p.Event["agentId"]; ok && strings.Trim(string(raw), `"`) == "" {
			t.Errorf("an event with an empty agentId: %s", e.Params)
		}
	}
}
