package copilot

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// One typed call from each area of the schema that the offline CLI can
// serve, decoded into the generated types, with what the CLI answered
// checked against what the test did. (Areas that need the network — MCP
// servers, remote sessions, account login — answer offline with their
// failure, or not at all; the auto-mode-switch answer of the ui area is
// exercised by TestRealCLIModelErrors' rate limit.)
func TestRealCLITypedCalls(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo, "n": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	if _, err := s.Stream(ctx, "hello", TurnHandlers{}); err != nil {
		t.Fatal(err)
	}
	server, rpc := c.RPC(), s.RPC()

	t.Run("models", func(t *testing.T) {
		l, err := server.Models.List(ctx, protocol.ModelsListRequest{})
		if err != nil || !slices.ContainsFunc(l.Models, func(m protocol.Model) bool { return m.ID == "n" }) {
			t.Fatalf("%+v, %v", l, err)
		}
	})
	t.Run("sessions", func(t *testing.T) {
		l, err := server.Sessions.List(ctx, protocol.SessionsListRequest{})
		if err != nil || !slices.ContainsFunc(l.Sessions, func(e protocol.SessionListEntry) bool { return e.SessionID == s.ID() }) {
			t.Fatalf("our session is not listed: %+v, %v", l, err)
		}
	})
	t.Run("tools", func(t *testing.T) {
		l, err := server.Tools.List(ctx, protocol.ToolsListRequest{})
		if err != nil || !slices.ContainsFunc(l.Tools, func(tl protocol.Tool) bool { return tl.Name == "bash" }) {
			t.Fatalf("no bash among the built-in tools: %v", err)
		}
	})
	t.Run("agents", func(t *testing.T) {
		b, err := server.Agents.GetBuiltins(ctx)
		if err != nil || len(b.Names) == 0 {
			t.Fatalf("%+v, %v", b, err)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		l, err := server.MCP.Config.List(ctx)
		if err != nil || len(l.Servers) != 0 {
			t.Fatalf("a fresh home has no configured MCP server: %+v, %v", l, err)
		}
	})
	t.Run("model", func(t *testing.T) {
		cur, err := rpc.Model.GetCurrent(ctx)
		if err != nil || cur.ModelID != "m" {
			t.Fatalf("current %+v, %v", cur, err)
		}
		sw, err := rpc.Model.SwitchTo(ctx, protocol.SessionModelSwitchToParams{ModelID: "n"})
		if err != nil || sw.ModelID != "n" {
			t.Fatalf("switch %+v, %v", sw, err)
		}
		if cur, err := rpc.Model.GetCurrent(ctx); err != nil || cur.ModelID != "n" {
			t.Fatalf("after the switch %+v, %v", cur, err)
		}
	})
	t.Run("mode", func(t *testing.T) {
		if m, err := rpc.Mode.Get(ctx); err != nil || m != protocol.SessionModeInteractive {
			t.Fatalf("%q, %v", m, err)
		}
	})
	t.Run("permissions", func(t *testing.T) {
		p, err := rpc.Permissions.Paths.List(ctx)
		if err != nil || p.Primary == "" || !slices.Contains(p.Directories, p.Primary) {
			t.Fatalf("%+v, %v", p, err)
		}
	})
	t.Run("history", func(t *testing.T) {
		if _, err := rpc.History.ListRewindPoints(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("usage", func(t *testing.T) {
		u, err := rpc.Usage.GetMetrics(ctx)
		if err != nil || u.TotalUserRequests != 1 {
			t.Fatalf("one turn so far: %+v, %v", u, err)
		}
	})
	t.Run("plan", func(t *testing.T) {
		p, err := rpc.Plan.Read(ctx)
		if err != nil || p.Exists {
			t.Fatalf("%+v, %v", p, err)
		}
	})
}

// Events come between turns too: renaming the session makes the CLI send
// session.title_changed, which reaches OnEvent with no turn running.
func TestRealCLIEventsBetweenTurns(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	events := make(eventLog, 1024)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), OnEvent: events.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	events.await(t, protocol.EventSessionStart)
	if r, err := s.Stream(ctx, "one", TurnHandlers{}); err != nil || !strings.Contains(r.Text, "one") {
		t.Fatalf("%q, %v", r.Text, err)
	}
	events.await(t, protocol.EventSessionIdle)
	if err := s.RPC().Name.Set(ctx, protocol.SessionNameSetParams{Name: "renamed between turns"}); err != nil {
		t.Fatal(err)
	}
	for {
		ev := events.await(t, protocol.EventSessionTitleChanged)
		d, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if d.(*protocol.TitleChangedData).Title == "renamed between turns" {
			break
		}
	}
	if r, err := s.Stream(ctx, "two", TurnHandlers{}); err != nil || !strings.Contains(r.Text, "two") {
		t.Fatalf("the next turn: %q, %v", r.Text, err)
	}
}

// A request from the CLI reaches its typed handler: with a user-input
// handler set, the CLI offers the model ask_user, sends userInput.request
// when the model calls it, and gives the model the handler's answer.
func TestRealCLIUserInputRequest(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{
		"m": modelapi.ToolThenText("ask_user", `{"question":"Which colour?","choices":["red","blue"]}`, func(req modelapi.Request) modelapi.Reply {
			res := req.ToolResults()
			return modelapi.Text("the user said: " + res[len(res)-1].Content)
		}),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var mu sync.Mutex
	var asked *protocol.UserInputRequestParams
	// With no built-in tool allowed, a user-input handler still lets the
	// model ask (the package allows ask_user when the handler is set).
	cfg := SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()}
	cfg.Handlers.UserInputRequest = func(_ context.Context, p *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		mu.Lock()
		asked = p
		mu.Unlock()
		return &protocol.UserInputResponse{Answer: "blue"}, nil
	}
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	r, err := s.Stream(ctx, "ask me", TurnHandlers{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked == nil || asked.Question != "Which colour?" || asked.SessionID != s.ID() {
		var offered []string
		for _, req := range api.Requests() {
			for _, tl := range req.Tools {
				offered = append(offered, tl.Name)
			}
		}
		t.Fatalf("the handler was asked %+v; the reply was %q; the model was offered %v", asked, r.Text, offered)
	}
	if !strings.Contains(r.Text, "blue") {
		t.Errorf("the answer did not reach the model: %q (model requests: %d)", r.Text, len(api.Requests()))
	}
}
