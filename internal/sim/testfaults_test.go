package sim_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// The hooks copilottest is built on: what clients sent, kept with its
// params (RecordCalls); events lost or repeated on the wire (EventCopies);
// a connection that dies mid-turn (Response.Crash); a form for the user
// (Response.Elicit).

func TestReceivedKeepsParamsOnlyWhenAsked(t *testing.T) {
	for _, record := range []bool{false, true} {
		srv := newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Text("hi"))}, RecordCalls: record})
		c, _ := dial(t, srv)
		id := c.createSession(map[string]any{"model": "m"})
		c.send(id, "hello there")
		c.waitIdle(id, 1)
		got := srv.Received()
		if !record {
			if len(got) != 0 || srv.Calls(protocol.MethodSessionSend) != 1 {
				t.Errorf("without RecordCalls: kept %d, counted %d sends", len(got), srv.Calls(protocol.MethodSessionSend))
			}
			continue
		}
		if len(got) != 2 || got[0].Method != protocol.MethodSessionCreate || got[1].Method != protocol.MethodSessionSend || got[1].Conn != 1 {
			t.Fatalf("received %+v", got)
		}
		var p struct{ SessionID, Prompt string }
		mustUnmarshal(t, got[1].Params, &p)
		if p.SessionID != id || p.Prompt != "hello there" {
			t.Errorf("send's params %s", got[1].Params)
		}
	}
}

func TestEventCopiesDropsAndRepeatsOnTheWireOnly(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := newServer(t, sim.Options{
		Models: []sim.Model{textModel("m", sim.Response{Text: "abc", Chunks: 3})},
		EventCopies: func(_, typ string) int {
			mu.Lock()
			asked = append(asked, typ)
			mu.Unlock()
			switch typ {
			case protocol.EventAssistantMessageDelta:
				return 0
			case protocol.EventAssistantMessage:
				return 2
			}
			return 1
		},
	})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": true})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	if n := count(evs, protocol.EventAssistantMessageDelta); n != 0 {
		t.Errorf("%d deltas reached the client, want all dropped", n)
	}
	var msgs []sim.Event
	for _, e := range evs {
		if e.Type == protocol.EventAssistantMessage {
			msgs = append(msgs, e)
		}
	}
	if len(msgs) != 2 || msgs[0].ID != msgs[1].ID {
		t.Errorf("assistant.message sent as %+v, want twice with one id", msgs)
	}
	mu.Lock()
	deltasAsked := slices.Contains(asked, protocol.EventAssistantMessageDelta)
	mu.Unlock()
	if !deltasAsked {
		t.Error("EventCopies was not asked about the deltas")
	}
	// The session's history is whole: only the wire lost and repeated.
	var hist struct{ Events []sim.Event }
	c.mustCall(protocol.MethodSessionGetMessages, map[string]any{"sessionId": id}, &hist)
	if count(hist.Events, protocol.EventAssistantMessage) != 1 {
		t.Errorf("history %v", types(hist.Events))
	}
}

func TestCrashClosesTheConnectionMidTurn(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Response{Text: "half an ans", Chunks: 2, Crash: true})}})
	c, conn := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": true})
	c.send(id, "go")
	<-conn.Done()
	<-c.rpc.DisconnectNotify()
	evs := c.events(id)
	if count(evs, protocol.EventAssistantMessageDelta) != 2 || count(evs, protocol.EventAssistantMessage) != 0 || count(evs, protocol.EventSessionIdle) != 0 {
		t.Errorf("before the crash the client read %v", types(evs))
	}
	// The server goes on: a new connection works.
	c2, _ := dial(t, srv)
	var models json.RawMessage
	c2.mustCall(protocol.MethodModelsList, map[string]any{}, &models)
}

func TestElicitWaitsForTheFormsAnswer(t *testing.T) {
	var got []*sim.ElicitationAnswer
	var mu sync.Mutex
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		mu.Lock()
		got = append(got, turn.Elicitation)
		mu.Unlock()
		if turn.Call == 0 {
			return sim.Response{Text: "I need a database", Elicit: &sim.Elicitation{Message: "Which database?",
				Properties: map[string]json.RawMessage{"db": json.RawMessage(`{"type":"string"}`)}, Required: []string{"db"}}}
		}
		return sim.Text("using " + string(turn.Elicitation.Content["db"]))
	}}
	srv := newServer(t, sim.Options{Models: []sim.Model{model}})
	c, _ := dial(t, srv)
	mute := c.createSession(map[string]any{"model": "m"})
	c.send(mute, "set it up")
	if evs := c.waitIdle(mute, 1); count(evs, protocol.EventElicitationRequested) != 0 || messageContent(t, evs) != "using " {
		t.Errorf("a client that cannot fill in forms: %v, %q", types(evs), messageContent(t, evs))
	}
	mu.Lock()
	if len(got) != 2 || got[1] == nil || got[1].Action != "cancel" {
		t.Errorf("the script saw %+v, want the form cancelled", got)
	}
	got = nil
	mu.Unlock()

	id := c.createSession(map[string]any{"model": "m", "requestElicitation": true})
	c.send(id, "set it up")
	ev := c.waitType(id, protocol.EventElicitationRequested)
	var req protocol.ElicitationRequestedData
	mustUnmarshal(t, ev.Data, &req)
	if req.Message != "Which database?" || req.Mode != protocol.ElicitationRequestedModeForm || req.RequestedSchema == nil || req.RequestedSchema.Required[0] != "db" {
		t.Fatalf("elicitation.requested %s", ev.Data)
	}
	var res protocol.UIElicitationResult
	bad := c.call(protocol.MethodSessionUIHandlePendingElicitation, map[string]any{"sessionId": id, "requestId": req.RequestID, "result": map[string]any{"action": "maybe"}}, &res)
	if rpcError(t, bad).Code != sim.CodeInvalidParams {
		t.Errorf("a bad action: %v", bad)
	}
	answer := map[string]any{"sessionId": id, "requestId": req.RequestID, "result": map[string]any{"action": "accept", "content": map[string]any{"db": "postgres"}}}
	c.mustCall(protocol.MethodSessionUIHandlePendingElicitation, answer, &res)
	if !res.Success {
		t.Error("the answer was not taken")
	}
	evs := c.waitIdle(id, 1)
	c.mustCall(protocol.MethodSessionUIHandlePendingElicitation, answer, &res)
	if res.Success {
		t.Error("a second answer to the same form was taken")
	}
	if messageContent(t, evs) != `using "postgres"` {
		t.Errorf("events %v; message %q", types(evs), messageContent(t, evs))
	}
	done := c.waitType(id, protocol.EventElicitationCompleted)
	var d protocol.ElicitationCompletedData
	mustUnmarshal(t, done.Data, &d)
	if d.RequestID != req.RequestID || d.Action != protocol.ElicitationCompletedActionAccept || string(d.Content["db"]) != `"postgres"` {
		t.Errorf("elicitation.completed %s", done.Data)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != nil || got[1] == nil || got[1].Action != "accept" {
		t.Errorf("the script saw %+v", got)
	}
}

// A ToolCall.Permission plays a tool of the CLI's the simulator has no
// other way to play by its permission request, of any kind.
func TestToolCallPermissionOfAnyKind(t *testing.T) {
	mcp := json.RawMessage(`{"kind":"mcp","serverName":"github","toolName":"list_issues","toolTitle":"List issues","readOnly":true}`)
	var results []sim.ToolCallResult
	var mu sync.Mutex
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call == 0 {
			return sim.Response{ToolCalls: []sim.ToolCall{{Name: "github-list_issues", Arguments: json.RawMessage(`{}`), Permission: mcp}}}
		}
		mu.Lock()
		results = turn.ToolResults
		mu.Unlock()
		return sim.Text("done")
	}}
	srv := newServer(t, sim.Options{Models: []sim.Model{model}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "requestPermission": true})
	for i, decision := range []map[string]any{{"kind": "approve-once"}, {"kind": "reject", "feedback": "not now"}} {
		c.send(id, "list them")
		var req struct {
			RequestID         string          `json:"requestId"`
			PermissionRequest json.RawMessage `json:"permissionRequest"`
		}
		c.waitEvents(id, "the permission request", func(evs []sim.Event) bool { return count(evs, protocol.EventPermissionRequested) == i+1 })
		for _, e := range c.events(id) {
			if e.Type == protocol.EventPermissionRequested {
				mustUnmarshal(t, e.Data, &req)
			}
		}
		if !sameJSON(t, req.PermissionRequest, mcp) {
			t.Fatalf("asked %s, want %s", req.PermissionRequest, mcp)
		}
		c.mustCall(protocol.MethodSessionPermissionsHandlePendingPermissionRequest, map[string]any{"sessionId": id, "requestId": req.RequestID, "result": decision}, nil)
		c.waitIdle(id, i+1)
		mu.Lock()
		r := results[0]
		mu.Unlock()
		switch {
		case i == 0 && (!r.OK() || r.Text != sim.PermittedToolOutput):
			t.Errorf("approved: %+v", r)
		case i == 1 && (r.OK() || !strings.Contains(r.Error, "not now")):
			t.Errorf("rejected with feedback: %+v", r)
		}
	}
}
