package sim_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

func TestStreamingTurn(t *testing.T) {
	const text = "The quick brown fox jumps over the lazy dog."
	srv := newServer(t, sim.Options{Models: []sim.Model{
		textModel("m", sim.Response{Text: text, Chunks: 4, Usage: &sim.Usage{InputTokens: 11, OutputTokens: 22}}),
	}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m", "streaming": true})
	c.send(id, "tell me")
	evs := c.waitIdle(id, 1)

	want := []string{
		protocol.EventSessionStart,
		protocol.EventUserMessage,
		protocol.EventAssistantTurnStart,
		protocol.EventAssistantMessageDelta, protocol.EventAssistantStreamingDelta,
		protocol.EventAssistantMessageDelta, protocol.EventAssistantStreamingDelta,
		protocol.EventAssistantMessageDelta, protocol.EventAssistantStreamingDelta,
		protocol.EventAssistantMessageDelta, protocol.EventAssistantStreamingDelta,
		protocol.EventAssistantMessage,
		protocol.EventAssistantUsage,
		protocol.EventAssistantTurnEnd,
		protocol.EventAssistantIdle,
		protocol.EventSessionIdle,
	}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	if got := deltas(t, evs); got != text {
		t.Errorf("deltas joined = %q, want %q", got, text)
	}
	if got := messageContent(t, evs); got != text {
		t.Errorf("%s content = %q", protocol.EventAssistantMessage, got)
	}

	var user struct{ Content string }
	mustUnmarshal(t, evs[1].Data, &user)
	if user.Content != "tell me" {
		t.Errorf("%s content = %q", protocol.EventUserMessage, user.Content)
	}

	// Deltas name the message they build; sizes accumulate.
	var msg struct {
		MessageID    string            `json:"messageId"`
		ToolRequests []json.RawMessage `json:"toolRequests"`
	}
	mustUnmarshal(t, evs[11].Data, &msg)
	if msg.MessageID == "" || msg.ToolRequests == nil || len(msg.ToolRequests) != 0 {
		t.Errorf("%s data = %s", protocol.EventAssistantMessage, evs[11].Data)
	}
	size := 0
	for _, e := range evs {
		switch e.Type {
		case protocol.EventAssistantMessageDelta:
			var d struct{ MessageID, DeltaContent string }
			mustUnmarshal(t, e.Data, &d)
			if d.MessageID != msg.MessageID {
				t.Errorf("delta messageId %q, message %q", d.MessageID, msg.MessageID)
			}
			size += len(d.DeltaContent)
		case protocol.EventAssistantStreamingDelta:
			var d struct{ TotalResponseSizeBytes int }
			mustUnmarshal(t, e.Data, &d)
			if d.TotalResponseSizeBytes != size {
				t.Errorf("totalResponseSizeBytes = %d, want %d", d.TotalResponseSizeBytes, size)
			}
		case protocol.EventAssistantUsage:
			var u struct {
				Model        string
				InputTokens  int
				OutputTokens int
				Duration     *int
			}
			mustUnmarshal(t, e.Data, &u)
			if u.Model != "m" || u.InputTokens != 11 || u.OutputTokens != 22 || u.Duration == nil {
				t.Errorf("%s = %s", protocol.EventAssistantUsage, e.Data)
			}
		case protocol.EventAssistantTurnStart, protocol.EventAssistantTurnEnd:
			var d struct{ TurnID string }
			mustUnmarshal(t, e.Data, &d)
			if d.TurnID != "0" {
				t.Errorf("%s turnId = %q", e.Type, d.TurnID)
			}
		}
	}

	checkEnvelopes(t, evs)

	// getMessages returns exactly the non-ephemeral events, in order.
	var got struct {
		Events []sim.Event `json:"events"`
	}
	c.mustCall(protocol.MethodSessionGetMessages, map[string]any{"sessionId": id}, &got)
	var persisted []sim.Event
	for _, e := range evs {
		if !e.Ephemeral {
			persisted = append(persisted, e)
		}
	}
	if len(got.Events) != len(persisted) {
		t.Fatalf("getMessages: %v, want %v", types(got.Events), types(persisted))
	}
	for i := range persisted {
		if got.Events[i].ID != persisted[i].ID || !sameJSON(t, got.Events[i].Data, persisted[i].Data) {
			t.Errorf("getMessages[%d] = %+v, want %+v", i, got.Events[i], persisted[i])
		}
	}
}

// checkEnvelopes checks ids, timestamps, parent chain and ephemeral flags.
func checkEnvelopes(t *testing.T, evs []sim.Event) {
	t.Helper()
	// The types the CLI's schema marks ephemeral, of those the simulator
	// sends; written out, not taken from protocol.IsEphemeral, so that the
	// test does not repeat the code it checks.
	ephemeral := map[string]bool{
		protocol.EventAssistantMessageDelta: true, protocol.EventAssistantStreamingDelta: true,
		protocol.EventAssistantUsage: true, protocol.EventAssistantIdle: true, protocol.EventSessionIdle: true,
		protocol.EventExternalToolCompleted: true,
		protocol.EventUserInputRequested:    true, protocol.EventUserInputCompleted: true,
	}
	ids := map[string]bool{}
	var parent *string
	for i, e := range evs {
		if _, err := uuid.Parse(e.ID); err != nil || ids[e.ID] {
			t.Errorf("event %d (%s): id %q not a fresh UUID", i, e.Type, e.ID)
		}
		ids[e.ID] = true
		if _, err := time.Parse(time.RFC3339Nano, e.Timestamp); err != nil {
			t.Errorf("event %d (%s): timestamp %q: %v", i, e.Type, e.Timestamp, err)
		}
		if e.Ephemeral != ephemeral[e.Type] {
			t.Errorf("event %d (%s): ephemeral = %v", i, e.Type, e.Ephemeral)
		}
		switch {
		case parent == nil && e.ParentID != nil:
			t.Errorf("event %d (%s): parentId %q, want null", i, e.Type, *e.ParentID)
		case parent != nil && (e.ParentID == nil || *e.ParentID != *parent):
			t.Errorf("event %d (%s): parentId %v, want %q", i, e.Type, e.ParentID, *parent)
		}
		if !e.Ephemeral {
			id := e.ID
			parent = &id
		}
	}
}

func TestNonStreamingTurn(t *testing.T) {
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{{ID: "echo", Respond: sim.Echo}}}))
	id := c.createSession(map[string]any{"model": "echo", "streaming": false})
	c.send(id, "hello there")
	evs := c.waitIdle(id, 1)
	want := []string{protocol.EventSessionStart, protocol.EventUserMessage, protocol.EventAssistantTurnStart, protocol.EventAssistantMessage,
		protocol.EventAssistantUsage, protocol.EventAssistantTurnEnd, protocol.EventAssistantIdle, protocol.EventSessionIdle}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	if got := messageContent(t, evs); got != "echo: hello there" {
		t.Errorf("content = %q", got)
	}
	checkEnvelopes(t, evs)
}

func TestTurnNumbersAndHistory(t *testing.T) {
	var turns []sim.Turn
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		turns = append(turns, turn) // turns of one session run one at a time
		return sim.Text("reply " + turn.Prompt)
	}}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
	id := c.createSession(map[string]any{"systemMessage": "sys"})
	c.send(id, "one")
	c.waitIdle(id, 1)
	c.send(id, "two")
	c.waitIdle(id, 2)
	if len(turns) != 2 {
		t.Fatalf("script called %d times", len(turns))
	}
	second := turns[1]
	if second.Number != 2 || second.Call != 0 || second.SessionID != id || second.Model != "m" || second.SystemMessage != "sys" {
		t.Errorf("second turn = %+v", second)
	}
	if len(second.History) != 1 || second.History[0] != (sim.Exchange{Prompt: "one", Response: "reply one"}) {
		t.Errorf("history = %+v", second.History)
	}
}

func TestFailures(t *testing.T) {
	t.Run("after chunks", func(t *testing.T) {
		model := textModel("m", sim.Response{Text: "abcdef", ChunkSize: 2,
			Failure: &sim.Failure{Type: "rate_limit", Message: "slow down", AfterChunks: 2}})
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
		id := c.createSession(map[string]any{"streaming": true})
		c.send(id, "x")
		evs := c.waitIdle(id, 1)
		want := []string{protocol.EventSessionStart, protocol.EventUserMessage, protocol.EventAssistantTurnStart,
			protocol.EventAssistantMessageDelta, protocol.EventAssistantStreamingDelta,
			protocol.EventAssistantMessageDelta, protocol.EventAssistantStreamingDelta,
			protocol.EventSessionError, protocol.EventSessionIdle}
		if got := types(evs); !slices.Equal(got, want) {
			t.Fatalf("events:\n got %v\nwant %v", got, want)
		}
		if got := deltas(t, evs); got != "abcd" {
			t.Errorf("deltas = %q", got)
		}
		var e struct{ ErrorType, Message string }
		mustUnmarshal(t, evs[7].Data, &e)
		if e.ErrorType != "rate_limit" || e.Message != "slow down" {
			t.Errorf("%s = %s", protocol.EventSessionError, evs[7].Data)
		}
		// The session is usable afterwards.
		c.send(id, "again")
		c.waitIdle(id, 2)
	})
	t.Run("panicking script", func(t *testing.T) {
		model := sim.Model{ID: "m", Respond: func(sim.Turn) sim.Response { panic("boom") }}
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
		id := c.createSession(nil)
		c.send(id, "x")
		c.waitIdle(id, 1)
		var e struct{ ErrorType, Message string }
		mustUnmarshal(t, c.waitType(id, protocol.EventSessionError).Data, &e)
		if !strings.Contains(e.Message, "boom") {
			t.Errorf("%s = %+v", protocol.EventSessionError, e)
		}
	})
	t.Run("endless tool loop", func(t *testing.T) {
		model := sim.Model{ID: "m", Respond: func(sim.Turn) sim.Response {
			return sim.Response{ToolCalls: []sim.ToolCall{sim.Call("nope", nil)}}
		}}
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}, MaxToolRounds: 3}))
		id := c.createSession(nil)
		c.send(id, "x")
		evs := c.waitIdle(id, 1)
		if n := count(evs, protocol.EventAssistantTurnStart); n != 4 {
			t.Errorf("%d rounds, want 4", n)
		}
		if count(evs, protocol.EventSessionError) != 1 {
			t.Errorf("no session.error: %v", types(evs))
		}
	})
}

func TestAbortHangingTurn(t *testing.T) {
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Prompt == "hang" {
			return sim.Response{Text: "partial", Hang: true}
		}
		return sim.Text("done")
	}}
	srv := newServer(t, sim.Options{Models: []sim.Model{model}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"streaming": true})
	c.send(id, "hang")
	c.waitEvents(id, "the partial text", func(evs []sim.Event) bool { return deltas(t, evs) == "partial" })
	if n := srv.Stats().RunningTurns; n != 1 {
		t.Errorf("running turns = %d, want 1", n)
	}

	var res struct{ Success bool }
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, &res)
	if !res.Success {
		t.Errorf("%s = %+v", protocol.MethodSessionAbort, res)
	}
	evs := c.waitIdle(id, 1)
	n := len(evs)
	if evs[n-2].Type != protocol.EventAbort || evs[n-1].Type != protocol.EventSessionIdle {
		t.Fatalf("events = %v", types(evs))
	}
	var reason struct{ Reason string }
	mustUnmarshal(t, evs[n-2].Data, &reason)
	if reason.Reason != "user_initiated" {
		t.Errorf("%s reason = %q", protocol.EventAbort, reason.Reason)
	}
	var idle struct{ Aborted bool }
	mustUnmarshal(t, evs[n-1].Data, &idle)
	if !idle.Aborted {
		t.Errorf("%s after abort: %s", protocol.EventSessionIdle, evs[n-1].Data)
	}

	// The next turn runs normally and nothing of the aborted one leaks in.
	c.send(id, "next")
	evs = c.waitIdle(id, 2)
	after := evs[n:]
	if got := types(after); got[0] != protocol.EventUserMessage || count(after, protocol.EventAbort) != 0 {
		t.Errorf("after abort: %v", got)
	}
	if got := messageContent(t, after); got != "done" {
		t.Errorf("next turn content = %q", got)
	}
	// A second abort with nothing running emits nothing.
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, nil)
	c.mustCall(protocol.MethodPing, nil, nil)
	if got := count(c.events(id), protocol.EventAbort); got != 1 {
		t.Errorf("%d abort events, want 1", got)
	}
	if n := srv.Stats().RunningTurns; n != 0 {
		t.Errorf("running turns = %d after the turns ended", n)
	}
}

// TestDestroy: session.destroy stops the session and its turn and forgets it
// on the connection, without deleting it (manage_test.go: it stays on disk).
func TestDestroy(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Hang())}})
	c, _ := dial(t, srv)
	id := c.createSession(nil)
	other := c.createSession(nil)
	c.send(id, "hang forever")
	c.waitType(id, protocol.EventAssistantTurnStart)

	var res protocol.SuccessResult
	c.mustCall(protocol.MethodSessionDestroy, map[string]any{"sessionId": id}, &res)
	if !res.Success {
		t.Errorf("destroy = %+v", res)
	}
	for _, method := range []string{protocol.MethodSessionSend, protocol.MethodSessionAbort, protocol.MethodSessionGetMessages} {
		rerr := rpcError(t, c.call(method, map[string]any{"sessionId": id, "prompt": "x"}, nil))
		if !strings.Contains(rerr.Message, "session not found") {
			t.Errorf("%s after destroy: %+v", method, rerr)
		}
	}
	// As on the real CLI, destroying a session that is not live is
	// answered success:false, not with an error.
	res = protocol.SuccessResult{Success: true}
	c.mustCall(protocol.MethodSessionDestroy, map[string]any{"sessionId": id}, &res)
	if res.Success {
		t.Errorf("a second destroy = %+v", res)
	}
	if got := srv.LiveSessions(); !slices.Equal(got, []string{other}) {
		t.Errorf("live sessions = %v, want [%s]", got, other)
	}
	c.mustCall(protocol.MethodSessionDestroy, map[string]any{"sessionId": other}, nil)
	if got := srv.LiveSessions(); len(got) != 0 {
		t.Errorf("live sessions = %v, want none", got)
	}
	// The hanging turn's goroutine ended with the session; goleak checks the
	// rest when the test binary exits.
	if n := waitRunningTurns(t, srv, 0); n != 0 {
		t.Errorf("running turns = %d", n)
	}
	// A destroy is not a delete.
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.wire {
		if isLifecycle(e, protocol.LifecycleSessionDeleted) {
			t.Errorf("destroy announced %s", e.Params)
		}
	}
}

// waitRunningTurns polls until srv runs want turns (turn goroutines finish a
// moment after their last event) or the guard expires.
func waitRunningTurns(t *testing.T, srv *sim.Server, want int) int {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		n := srv.Stats().RunningTurns
		if n == want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBusyPolicy(t *testing.T) {
	release := make(chan struct{})
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Prompt == "slow" {
			select {
			case <-release:
			case <-time.After(guard): // never hang the server's Close
			}
		}
		return sim.Text("answer to " + turn.Prompt)
	}}
	t.Run("queue", func(t *testing.T) {
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
		id := c.createSession(nil)
		c.send(id, "slow")
		c.waitType(id, protocol.EventAssistantTurnStart)
		c.send(id, "fast")
		release <- struct{}{}
		evs := c.waitIdle(id, 2)
		var contents []string
		for _, e := range evs {
			if e.Type == protocol.EventAssistantMessage {
				var d struct{ Content string }
				mustUnmarshal(t, e.Data, &d)
				contents = append(contents, d.Content)
			}
		}
		if !slices.Equal(contents, []string{"answer to slow", "answer to fast"}) {
			t.Errorf("messages = %q", contents)
		}
	})
	t.Run("reject", func(t *testing.T) {
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}, Busy: sim.BusyReject}))
		id := c.createSession(nil)
		c.send(id, "slow")
		c.waitType(id, protocol.EventAssistantTurnStart)
		rerr := rpcError(t, c.call(protocol.MethodSessionSend, map[string]any{"sessionId": id, "prompt": "fast"}, nil))
		if !strings.Contains(rerr.Message, "session is busy") {
			t.Errorf("busy send: %+v", rerr)
		}
		release <- struct{}{}
		c.waitIdle(id, 1)
		// Right after session.idle the session takes a send.
		c.send(id, "fast")
		c.waitIdle(id, 2)
	})
}

// TestNothingAfterDestroyOrDelete ends a session in the middle of a stream:
// no event of it may follow the answer on the wire (nor, for a delete,
// session.deleted, which comes before the answer).
func TestNothingAfterDestroyOrDelete(t *testing.T) {
	for _, method := range []string{protocol.MethodSessionDestroy, protocol.MethodSessionDelete} {
		t.Run(method, func(t *testing.T) {
			model := textModel("m", sim.Response{Text: strings.Repeat("y", 400), ChunkSize: 1, ChunkDelay: 50 * time.Microsecond})
			c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
			id := c.createSession(map[string]any{"streaming": true})
			c.send(id, "x")
			c.waitEvents(id, "some deltas", func(evs []sim.Event) bool { return count(evs, protocol.EventAssistantMessageDelta) >= 10 })
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			endID := jsonrpc2.ID{Str: "end", IsString: true}
			if err := c.rpc.Call(ctx, method, map[string]any{"sessionId": id}, nil, jsonrpc2.PickID(endID)); err != nil {
				t.Fatal(err)
			}
			for range 20 {
				c.mustCall(protocol.MethodPing, nil, nil) // let anything still in flight arrive
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			end, deleted := -1, -1
			for i, e := range c.wire {
				if isLifecycle(e, protocol.LifecycleSessionDeleted) && deleted < 0 {
					deleted = i
				}
				if e.Response && e.ID == endID {
					end = i
				}
				if (end >= 0 || deleted >= 0) && e.Session == id {
					t.Fatalf("event %d of the ended session follows its end", i)
				}
			}
			if end < 0 || (method == protocol.MethodSessionDelete) != (deleted >= 0 && deleted < end) {
				t.Fatalf("answer at %d, session.deleted at %d", end, deleted)
			}
			if n := count(c.events_[id], protocol.EventSessionIdle); n != 0 {
				t.Errorf("the ended turn went idle %d times", n)
			}
		})
	}
}
