package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// eventLog is an OnEvent that hands every event to the test.
type eventLog chan Event

func (l eventLog) on(ev Event) { l <- ev }

// await returns the first event of type typ, skipping others.
func (l eventLog) await(t *testing.T, typ string) Event {
	t.Helper()
	ctx := testutil.Context(t, hangGuard)
	for {
		select {
		case ev := <-l:
			if ev.Type == typ {
				return ev
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", typ)
		}
	}
}

// eventTypes records the types of a session's events, from any goroutine.
type eventTypes struct {
	mu    sync.Mutex
	types []string
}

func (r *eventTypes) on(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.types = append(r.types, ev.Type)
}

func (r *eventTypes) first() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.types) == 0 {
		return ""
	}
	return r.types[0]
}

func onlyConn(t *testing.T, srv *sim.Server) *sim.Conn {
	t.Helper()
	conns := srv.Conns()
	if len(conns) != 1 {
		t.Fatalf("%d simulator connections, want 1", len(conns))
	}
	return conns[0]
}

// Events that come between turns reach OnEvent at once, typed, and do not
// leak into the next turn: a background session.idle does not end it.
func TestEventsBetweenTurnsReachOnEvent(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	events := make(eventLog, 256)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", OnEvent: events.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	events.await(t, protocol.EventSessionStart) // before any turn: the dispatcher read it
	if r, err := s.Stream(ctx, "one", TurnHandlers{}); err != nil || r.Text != "echo: one" {
		t.Fatalf("first turn: %q, %v", r.Text, err)
	}
	events.await(t, protocol.EventSessionIdle) // a turn's events go to OnEvent too

	conn := onlyConn(t, srv)
	if err := conn.EmitEvent(s.ID(), protocol.EventSessionTitleChanged, map[string]string{"title": "Greetings"}, false); err != nil {
		t.Fatal(err)
	}
	if err := conn.EmitEvent(s.ID(), protocol.EventSessionIdle, map[string]any{}, true); err != nil {
		t.Fatal(err)
	}
	ev := events.await(t, protocol.EventSessionTitleChanged)
	d, err := ev.Decode()
	if title, ok := d.(*protocol.TitleChangedData); err != nil || !ok || title.Title != "Greetings" {
		t.Fatalf("title event decoded to %#v, %v", d, err)
	}
	events.await(t, protocol.EventSessionIdle)
	if r, err := s.Stream(ctx, "two", TurnHandlers{}); err != nil || r.Text != "echo: two" {
		t.Fatalf("second turn after a background idle: %q, %v", r.Text, err)
	}
}

// A request the CLI sends between turns is answered at once: by the
// session's handler; without one, by the protocol's decline where it has
// one, else with an error that names the handler to set.
func TestRequestsAreAnsweredAnyTime(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	var asked string
	cfg := SessionConfig{Model: "m"}
	cfg.Handlers.UserInputRequest = func(_ context.Context, p *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		asked = p.Question
		return &protocol.UserInputResponse{Answer: "blue", WasFreeform: true}, nil
	}
	cfg.Handlers.SessionFSReadFile = func(context.Context, *protocol.SessionFSReadFileParams) (*protocol.SessionFSReadFileResult, error) {
		return nil, errors.New("no such file")
	}
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	conn := onlyConn(t, srv)

	a := conn.CallSession(ctx, s.ID(), protocol.MethodUserInputRequest, map[string]any{"question": "Favourite colour?"})
	var ui protocol.UserInputResponse
	if a.Err != nil || a.Error != nil || json.Unmarshal(a.Result, &ui) != nil || ui.Answer != "blue" || asked != "Favourite colour?" {
		t.Fatalf("user input: %+v (asked %q)", a, asked)
	}
	// A handler's error is the answer's error.
	a = conn.CallSession(ctx, s.ID(), protocol.MethodSessionFSReadFile, map[string]any{"path": "/x"})
	if a.Error == nil || !strings.Contains(a.Error.Message, "no such file") {
		t.Fatalf("handler error: %+v", a)
	}
	// No handler: a hook is declined with a result that lets the CLI go on.
	a = conn.CallSession(ctx, s.ID(), protocol.MethodHooksInvoke, map[string]any{"hookType": "preToolUse", "input": map[string]any{}})
	if a.Err != nil || a.Error != nil || string(a.Result) != `{}` {
		t.Fatalf("hook decline: %+v", a)
	}
	// No handler and no way to say no: an error naming the handler.
	a = conn.CallSession(ctx, s.ID(), protocol.MethodProviderTokenGetToken, map[string]any{})
	if a.Error == nil || !strings.Contains(a.Error.Message, "SessionConfig.Handlers") {
		t.Fatalf("no handler: %+v", a)
	}
	// The session still works.
	if r, err := s.Stream(ctx, "after", TurnHandlers{}); err != nil || r.Text != "echo: after" {
		t.Fatalf("turn after requests: %q, %v", r.Text, err)
	}
}

// Setting a handler for an older request tells the CLI, at creation, that
// the client answers it.
func TestHandlersTurnRequestsOn(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	cfg := SessionConfig{Model: "m"}
	cfg.Handlers.UserInputRequest = func(context.Context, *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		return &protocol.UserInputResponse{}, nil
	}
	cfg.Handlers.HooksInvoke = func(context.Context, *protocol.HookInvokeRequest) (*protocol.HookInvokeResponse, error) {
		return &protocol.HookInvokeResponse{}, nil
	}
	_, created, err := c.prepare(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !created.RequestUserInput || !created.Hooks || created.RequestExitPlanMode {
		t.Fatalf("create params: %+v", created)
	}
	// With no built-in tool allowed, the CLI's ask_user stays available.
	cfg.BuiltinTools = NoBuiltinTools()
	if _, created, err = c.prepare(ctx, cfg); err != nil || created.AvailableTools == nil || !slices.Contains(*created.AvailableTools, "ask_user") {
		t.Fatalf("available tools %v, %v", created.AvailableTools, err)
	}
}

// The typed RPC reaches the CLI with the session id filled in; the
// client's goes to the current connection.
func TestTypedRPC(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	p, err := c.RPC().Ping(ctx, protocol.PingRequest{Message: "typed"})
	if err != nil || p.Message != "pong: typed" {
		t.Fatalf("ping: %+v, %v", p, err)
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	if _, err := s.RPC().Abort(ctx, protocol.SessionAbortParams{}); err != nil {
		t.Fatalf("abort with no turn: %v", err)
	}
}

// A sub-agent's text is kept apart from the main reply.
func TestSubAgentTextIsKeptApart(t *testing.T) {
	respond := func(sim.Turn) sim.Response {
		return sim.Response{Text: "main answer", SubAgents: []sim.SubAgentText{{AgentID: "explore-1", Text: "looked around"}}}
	}
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", respond)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	var main, sub strings.Builder
	r, err := s.Stream(ctx, "go", TurnHandlers{
		OnDelta:      func(d string) { main.WriteString(d) },
		OnAgentDelta: func(id, d string) { sub.WriteString(id + ":" + d) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "main answer" || main.String() != "main answer" {
		t.Errorf("main: %q, deltas %q", r.Text, main.String())
	}
	if r.AgentText["explore-1"] != "looked around" || !strings.HasPrefix(sub.String(), "explore-1:") {
		t.Errorf("sub-agent: %v, deltas %q", r.AgentText, sub.String())
	}
}

// A request that names no session is answered by Options.Handlers, or
// declined, or refused with an error naming where to set its handler.
func TestConnectionRequestsAreAnswered(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	defer srv.Close()
	var opts Options
	shutdowns := 0
	opts.Handlers.HostShutdown = func(context.Context, *protocol.HostEmptyResult) (*protocol.HostEmptyResult, error) {
		shutdowns++
		return &protocol.HostEmptyResult{}, nil
	}
	ctx := testutil.Context(t, hangGuard)
	c, err := Connect(ctx, srv.Dial(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := onlyConn(t, srv)
	if a := conn.Call(ctx, protocol.MethodHostShutdown, map[string]any{}); a.Err != nil || a.Error != nil || shutdowns != 1 {
		t.Fatalf("handled: %+v (%d calls)", a, shutdowns)
	}
	a := conn.Call(ctx, protocol.MethodInstallationsConfirm, map[string]any{
		"confirmationId": "c-1", "operationId": "o", "expiresAt": "2026-11-23T00:00:00Z", "reviewFingerprint": "f",
	})
	var decision protocol.InstallationConfirmationResponse
	if a.Err != nil || a.Error != nil || json.Unmarshal(a.Result, &decision) != nil || decision.Decision != protocol.InstallationDecisionDecline || decision.ConfirmationID != "c-1" {
		t.Fatalf("declined: %+v", a)
	}
	if a := conn.Call(ctx, protocol.MethodGitHubTokenGetToken, map[string]any{}); a.Error == nil || !strings.Contains(a.Error.Message, "Options.Handlers") {
		t.Fatalf("refused: %+v", a)
	}
}

// Sub-agents' deltas are asked for only when wanted, and only when the
// session streams at all.
func TestStreamSubAgentsAsksForTheirDeltas(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	for _, tc := range []struct {
		cfg  SessionConfig
		want bool
	}{
		{SessionConfig{Model: "m"}, false},
		{SessionConfig{Model: "m", StreamSubAgents: true}, true},
		{SessionConfig{Model: "m", StreamSubAgents: true, DisableStreaming: true}, false},
	} {
		_, p, err := c.prepare(ctx, tc.cfg)
		if err != nil || p.IncludeSubAgentStreamingEvents != tc.want {
			t.Errorf("%+v: includeSubAgentStreamingEvents = %v, %v", tc.cfg, p.IncludeSubAgentStreamingEvents, err)
		}
	}
}

// MaxToolCalls bounds a background agent's tool calls between turns as it
// bounds a turn's: counted from one session.idle to the next, the first
// call past the limit fails and the session's work is aborted once.
func TestToolCallLimitBetweenTurns(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	var calls int
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", MaxToolCalls: 2,
		Tools: []Tool{{Name: "t", Handler: func(context.Context, ToolCall) (string, error) { calls++; return "ok", nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	conn := onlyConn(t, srv)
	call := func(i int) protocol.ExternalToolTextResultForLLM {
		t.Helper()
		a := conn.CallSession(ctx, s.ID(), protocol.MethodToolCall, map[string]any{"toolCallId": fmt.Sprint("c", i), "toolName": "t", "arguments": map[string]any{}})
		var res protocol.ToolCallResult
		if a.Err != nil || a.Error != nil || json.Unmarshal(a.Result, &res) != nil {
			t.Fatalf("tool call %d: %+v", i, a)
		}
		return res.Result
	}
	for i := 1; i <= 2; i++ {
		if r := call(i); r.ResultType == "failure" || r.TextResultForLLM != "ok" {
			t.Fatalf("call %d within the limit: %+v", i, r)
		}
	}
	if r := call(3); r.ResultType != "failure" || !strings.Contains(r.Error+r.TextResultForLLM, "tool-call limit") {
		t.Fatalf("call 3, past the limit: %+v", r)
	}
	// The aborted work is abandoned: what it still asks is refused.
	if r := call(4); r.ResultType != "failure" || !strings.Contains(r.Error+r.TextResultForLLM, "abandoned") {
		t.Fatalf("call 4, after the abort: %+v", r)
	}
	if calls != 2 {
		t.Fatalf("the handler ran %d times, want 2", calls)
	}
	// A turn starting now would wait for the abort and drain the aborted
	// work to its session.idle, so that idle cannot end the new turn.
	if err := s.reader.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	unfinished, aborting := s.turns.unfinished, s.turns.abort != nil
	s.reader.release()
	if !unfinished || !aborting {
		t.Fatalf("after the abort: unfinished %v, abort pending %v; want both", unfinished, aborting)
	}
	// The CLI ends the aborted work with session.idle: the count starts again.
	if err := conn.EmitEvent(s.ID(), protocol.EventSessionIdle, map[string]any{}, true); err != nil {
		t.Fatal(err)
	}
	if r := call(5); r.ResultType == "failure" || calls != 3 {
		t.Fatalf("a call after session.idle: %+v (handler ran %d times)", r, calls)
	}
	// A turn waits for the abort: after it, the count is exact.
	if r, err := s.Stream(ctx, "after", TurnHandlers{}); err != nil || r.Text != "echo: after" {
		t.Fatalf("turn after the background limit: %q, %v", r.Text, err)
	}
	if n := srv.Calls(protocol.MethodSessionAbort); n != 1 {
		t.Errorf("%d aborts, want 1", n)
	}
}
