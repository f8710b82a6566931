package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

var cityQuestion = sim.UserQuestion{Question: "Which city?", Choices: []string{"Paris", "Rome"}}

// askingModel asks cityQuestion, then says what it learnt; turns sends each
// later call's Turn to the test.
func askingModel(turns chan<- sim.Turn) sim.Model {
	return sim.Model{ID: "m", Respond: sim.AskUser(cityQuestion, func(t sim.Turn) sim.Response {
		turns <- t
		if answer, ok := t.UserAnswer(); ok {
			return sim.Text("you chose " + answer)
		}
		return sim.Text("no answer: " + t.ToolResults[0].Error)
	})}
}

func TestAskUserAnswerReachesTheModel(t *testing.T) {
	turns := make(chan sim.Turn, 1)
	srv := newServer(t, sim.Options{Models: []sim.Model{askingModel(turns)}})
	c, _ := dial(t, srv)
	var mu sync.Mutex
	var asked []protocol.UserInputRequestParams
	c.onRequest = func(method string, params json.RawMessage) (any, error) {
		if method != protocol.MethodUserInputRequest {
			return nil, errors.New("unexpected " + method)
		}
		var p protocol.UserInputRequestParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return protocol.UserInputResponse{Answer: "Rome", WasFreeform: false}, nil
	}
	id := c.createSession(map[string]any{"model": "m", "requestUserInput": true})
	c.send(id, "tell me about a city")
	evs := c.waitIdle(id, 1)
	checkEnvelopes(t, evs)

	if got := messageContent(t, evs); got != "you chose Rome" {
		t.Errorf("final message %q", got)
	}
	turn := <-turns
	if !turn.CanAskUser || len(turn.ToolResults) != 1 || turn.ToolResults[0].Name != sim.AskUserTool {
		t.Errorf("the script's second call saw %+v", turn)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].SessionID != id || asked[0].Question != "Which city?" || !slices.Equal(asked[0].Choices, []string{"Paris", "Rome"}) {
		t.Errorf("%s params %+v", protocol.MethodUserInputRequest, asked)
	}
	mu.Unlock()

	want := []string{protocol.EventSessionStart, protocol.EventUserMessage,
		protocol.EventAssistantTurnStart, protocol.EventAssistantMessage, protocol.EventAssistantUsage,
		protocol.EventToolExecutionStart, protocol.EventUserInputRequested, protocol.EventUserInputCompleted, protocol.EventToolExecutionComplete,
		protocol.EventAssistantTurnEnd,
		protocol.EventAssistantTurnStart, protocol.EventAssistantMessage, protocol.EventAssistantUsage, protocol.EventAssistantTurnEnd,
		protocol.EventAssistantIdle, protocol.EventSessionIdle}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	var msg protocol.AssistantMessageData
	var start protocol.ToolExecutionStartData
	var requested protocol.UserInputRequestedData
	var completed protocol.UserInputCompletedData
	var complete protocol.ToolExecutionCompleteData
	mustUnmarshal(t, evs[3].Data, &msg)
	mustUnmarshal(t, evs[5].Data, &start)
	mustUnmarshal(t, evs[6].Data, &requested)
	mustUnmarshal(t, evs[7].Data, &completed)
	mustUnmarshal(t, evs[8].Data, &complete)
	if len(msg.ToolRequests) != 1 || msg.ToolRequests[0].Name != sim.AskUserTool || start.ToolName != sim.AskUserTool {
		t.Errorf("ask_user not requested: %s / %s", evs[3].Data, evs[5].Data)
	}
	callID := msg.ToolRequests[0].ToolCallID
	if requested.RequestID == "" || requested.Question != "Which city?" || requested.ToolCallID != callID {
		t.Errorf("%s = %s", protocol.EventUserInputRequested, evs[6].Data)
	}
	if completed.RequestID != requested.RequestID || completed.Answer != "Rome" || completed.WasFreeform == nil || *completed.WasFreeform {
		t.Errorf("%s = %s", protocol.EventUserInputCompleted, evs[7].Data)
	}
	if complete.ToolCallID != callID || !complete.Success || complete.Result == nil || complete.Result.Content != "Rome" {
		t.Errorf("%s = %s", protocol.EventToolExecutionComplete, evs[8].Data)
	}

	// On the wire the request sits between the two events.
	wire := c.waitWire("everything", func([]wireEntry) bool { return true })
	at := func(pred func(wireEntry) bool) int { return slices.IndexFunc(wire, pred) }
	req := at(func(e wireEntry) bool { return e.Method == protocol.MethodUserInputRequest })
	before := at(func(e wireEntry) bool { return isEvent(e, protocol.EventUserInputRequested) })
	after := at(func(e wireEntry) bool { return isEvent(e, protocol.EventUserInputCompleted) })
	if !(before >= 0 && before < req && req < after) {
		t.Errorf("user_input.requested at %d, the request at %d, user_input.completed at %d", before, req, after)
	}
	if answers := srv.Answers(); len(answers) != 1 || answers[0].Method != protocol.MethodUserInputRequest || answers[0].Error != nil {
		t.Errorf("answers = %+v", answers)
	}
}

// isEvent reports whether e is a session.event of typ.
func isEvent(e wireEntry, typ string) bool {
	var se sessionEvent
	return e.Method == protocol.NotificationSessionEvent && json.Unmarshal(e.Params, &se) == nil && se.Event.Type == typ
}

func TestAskUserWithoutRequestUserInputFailsTheTool(t *testing.T) {
	turns := make(chan sim.Turn, 1)
	srv := newServer(t, sim.Options{Models: []sim.Model{askingModel(turns)}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"model": "m"})
	c.send(id, "tell me about a city")
	evs := c.waitIdle(id, 1)

	if got := messageContent(t, evs); got != "no answer: Tool 'ask_user' does not exist." {
		t.Errorf("final message %q", got)
	}
	if turn := <-turns; turn.CanAskUser {
		t.Error("CanAskUser in a session without requestUserInput")
	} else if _, ok := turn.UserAnswer(); ok {
		t.Error("UserAnswer reports an answer that was never given")
	}
	if n := count(evs, protocol.EventUserInputRequested); n != 0 {
		t.Errorf("%d %s events", n, protocol.EventUserInputRequested)
	}
	if a := srv.Answers(); len(a) != 0 {
		t.Errorf("the client was asked: %+v", a)
	}
}

func TestAskUserClientError(t *testing.T) {
	turns := make(chan sim.Turn, 1)
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{askingModel(turns)}}))
	c.onRequest = func(string, json.RawMessage) (any, error) {
		return nil, &jsonrpc2.Error{Code: -32601, Message: "no user here"}
	}
	id := c.createSession(map[string]any{"model": "m", "requestUserInput": true})
	c.send(id, "ask")
	evs := c.waitIdle(id, 1)
	if got := messageContent(t, evs); got != "no answer: user input failed: no user here" {
		t.Errorf("final message %q", got)
	}
	var completed protocol.UserInputCompletedData
	mustUnmarshal(t, c.waitType(id, protocol.EventUserInputCompleted).Data, &completed)
	if completed.Answer != "" || completed.WasFreeform != nil {
		t.Errorf("%s after an error = %+v", protocol.EventUserInputCompleted, completed)
	}
	<-turns
}

func TestAbortWhileTheUserIsAsked(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{askingModel(make(chan sim.Turn, 1))}})
	c, _ := dial(t, srv)
	asked, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the client's cleanup, which waits for its answer
	c.onRequest = func(string, json.RawMessage) (any, error) {
		close(asked)
		<-release
		return protocol.UserInputResponse{Answer: "too late"}, nil
	}
	id := c.createSession(map[string]any{"model": "m", "requestUserInput": true})
	c.send(id, "ask")
	<-asked
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, nil)
	evs := c.waitIdle(id, 1)
	if n := waitRunningTurns(t, srv, 0); n != 0 {
		t.Fatalf("%d turns still running after the abort", n)
	}
	free()
	c.mustCall(protocol.MethodPing, nil, nil) // a late answer has had its chance to arrive
	if got := types(evs); got[len(got)-2] != protocol.EventAbort || count(evs, protocol.EventUserInputCompleted) != 0 {
		t.Errorf("events after an abort mid-question: %v", got)
	}
	if got := count(c.events(id), protocol.EventAssistantMessage); got != 1 {
		t.Errorf("%d assistant messages: the late answer restarted the turn", got)
	}
}

// TestCallReachesTheClientForEveryClientMethod sends each of the methods the
// CLI may send its client, with a session id, and checks that requests come
// back answered and notifications arrive as notifications.
func TestCallReachesTheClientForEveryClientMethod(t *testing.T) {
	c, conn := dial(t, newServer(t, sim.Options{}))
	var mu sync.Mutex
	notified := map[string]json.RawMessage{}
	c.onNotify = func(method string, params json.RawMessage) {
		mu.Lock()
		notified[method] = params
		mu.Unlock()
	}
	c.onRequest = func(method string, params json.RawMessage) (any, error) {
		var p struct{ SessionID string }
		json.Unmarshal(params, &p)
		return map[string]string{"method": method, "sessionId": p.SessionID}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	const sid = "a-session"
	for _, method := range protocol.ClientMethods {
		a := conn.CallSession(ctx, sid, method, nil)
		if a.Err != nil || a.Error != nil {
			t.Errorf("%s: %v %v", method, a.Err, a.Error)
			continue
		}
		if protocol.IsNotification(method) {
			if a.Result != nil {
				t.Errorf("%s: a notification got a result %s", method, a.Result)
			}
			continue
		}
		var got struct{ Method, SessionID string }
		if err := json.Unmarshal(a.Result, &got); err != nil || got.Method != method || got.SessionID != sid {
			t.Errorf("%s: answer %s", method, a.Result)
		}
	}
	c.mustCall(protocol.MethodPing, nil, nil) // every notification has been read
	mu.Lock()
	defer mu.Unlock()
	for _, method := range protocol.ClientMethods {
		var p struct{ SessionID string }
		raw, ok := notified[method]
		if protocol.IsNotification(method) && (!ok || json.Unmarshal(raw, &p) != nil || p.SessionID != sid) {
			t.Errorf("%s: notification %s (received: %v)", method, raw, ok)
		}
		if !protocol.IsNotification(method) && ok {
			t.Errorf("%s arrived as a notification", method)
		}
	}
}

func TestCallSessionKeepsTypedParams(t *testing.T) {
	c, conn := dial(t, newServer(t, sim.Options{}))
	got := make(chan protocol.UserInputRequestParams, 1)
	c.onRequest = func(_ string, params json.RawMessage) (any, error) {
		var p protocol.UserInputRequestParams
		err := json.Unmarshal(params, &p)
		got <- p
		return protocol.UserInputResponse{Answer: "yes", WasFreeform: true}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	a := conn.CallSession(ctx, "s1", protocol.MethodUserInputRequest, protocol.UserInputRequestParams{SessionID: "ignored", Question: "Go on?"})
	var answer protocol.UserInputResponse
	if a.Err != nil || a.Error != nil || json.Unmarshal(a.Result, &answer) != nil || answer.Answer != "yes" || !answer.WasFreeform {
		t.Fatalf("answer %+v", a)
	}
	if p := <-got; p.SessionID != "s1" || p.Question != "Go on?" {
		t.Errorf("params %+v", p)
	}
	if a := conn.CallSession(ctx, "s1", protocol.MethodUserInputRequest, []string{"not an object"}); a.Err == nil {
		t.Errorf("params that are not an object were sent: %+v", a)
	}
}
