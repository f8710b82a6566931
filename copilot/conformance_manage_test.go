package copilot

// Conformance of what the official SDK offers beside turns, against the
// real CLI (see conformance_test.go): permission requests of each kind the
// offline CLI sends, the decisions it takes, rich tool results, session
// management, lifecycle notifications, model switches, the auto-mode
// switch after a rate limit, and Close.
//
// Not exercised here, because the offline CLI cannot be made to send or
// serve them: permission requests of kind mcp (an MCP server), memory
// (the memory feature, which needs GitHub), hook (a hook that asks; hooks
// belong to SessionConfig.Handlers), extension-* and workflow (extensions
// and workflows); approve-permanently and approve-read-only-for-session
// (no offline request offers them: web_fetch refuses loopback addresses
// after approval, and file reads are asked one at a time); a foreground
// session (only a CLI started with --ui-server, a terminal UI, has one:
// the headless CLI refuses, which is what is tested).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// echoToolResult answers, after a tool call, with the call's result as the
// model received it.
func echoToolResult(req modelapi.Request) modelapi.Reply {
	return modelapi.Text("RESULT: " + req.ToolResults()[0].Content)
}

// lastRequest is the last chat request of one session.
func lastRequest(t *testing.T, api *modelapi.Server, sessionID string) modelapi.Request {
	t.Helper()
	var last *modelapi.Request
	for _, r := range api.Requests() {
		if r.Conversation == sessionID {
			last = &r
		}
	}
	if last == nil {
		t.Fatalf("the model API saw no request of session %s", sessionID)
	}
	return *last
}

// The CLI's built-in tools ask before they act: bash as a shell request,
// view as read, create as write, web_fetch as url, and a client tool as
// custom-tool. Each reaches the policy typed, and an approval lets the
// tool run.
func TestRealCLIPermissionKinds(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the notes say hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := startReal(t, map[string]modelapi.Responder{
		"bash":   modelapi.ToolThenText("bash", `{"command":"echo shell says hi","description":"Greet"}`, echoToolResult),
		"view":   modelapi.ToolThenText("view", `{"path":"`+dir+`/notes.txt"}`, echoToolResult),
		"create": modelapi.ToolThenText("create", `{"path":"`+dir+`/new.txt","file_text":"created"}`, echoToolResult),
		"fetch":  modelapi.ToolThenText("web_fetch", `{"url":"http://127.0.0.1:9/page"}`, echoToolResult),
		"client": modelapi.ToolThenText("lookup", `{"q":"x"}`, echoToolResult),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	lookup := DefineTool("lookup", "Looks things up", func(context.Context, struct {
		Q string `json:"q"`
	}) (string, error) {
		return "looked up", nil
	})
	cases := []struct {
		model, kind, reply string
		check              func(t *testing.T, typed any)
	}{
		{"bash", PermissionKindShell, "shell says hi", func(t *testing.T, typed any) {
			r := typed.(*protocol.PermissionRequestShell)
			if r.FullCommandText != "echo shell says hi" || r.Intention != "Greet" || len(r.Commands) == 0 {
				t.Errorf("%+v", r)
			}
		}},
		{"view", PermissionKindRead, "the notes say hello", func(t *testing.T, typed any) {
			if r := typed.(*protocol.PermissionRequestRead); r.Path != filepath.Join(dir, "notes.txt") {
				t.Errorf("%+v", r)
			}
		}},
		{"create", PermissionKindWrite, "Created file", func(t *testing.T, typed any) {
			r := typed.(*protocol.PermissionRequestWrite)
			if r.FileName != filepath.Join(dir, "new.txt") || r.NewFileContents != "created" || !strings.Contains(r.Diff, "+created") {
				t.Errorf("%+v", r)
			}
		}},
		// The fetch is approved; the CLI then refuses loopback addresses
		// itself, and says so to the model.
		{"fetch", PermissionKindURL, "127.0.0.1", func(t *testing.T, typed any) {
			if r := typed.(*protocol.PermissionRequestURL); r.URL != "http://127.0.0.1:9/page" {
				t.Errorf("%+v", r)
			}
		}},
		{"client", PermissionKindCustomTool, "looked up", func(t *testing.T, typed any) {
			if r := typed.(*protocol.PermissionRequestCustomTool); r.ToolName != "lookup" || !strings.Contains(string(r.Args), `"x"`) {
				t.Errorf("%+v", r)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			var asked []PermissionRequest
			s, err := c.NewSession(ctx, SessionConfig{Model: tc.model, WorkingDirectory: dir, Tools: []Tool{lookup},
				Permissions: func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
					asked = append(asked, r)
					return ApproveOnce(), nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Delete(ctx)
			a, err := s.Ask(ctx, "go")
			if err != nil || !strings.Contains(a, tc.reply) {
				t.Fatalf("%q, %v; want the tool's result, with %q", a, err, tc.reply)
			}
			if len(asked) != 1 || asked[0].Kind != tc.kind || asked[0].RequestID == "" || asked[0].Request.ToolCallID == "" {
				t.Fatalf("asked %+v", asked)
			}
			typed, err := asked[0].Decode()
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, typed)
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "created" {
		t.Errorf("the approved write: %q, %v", b, err)
	}
}

// The decisions beyond approve-once and a plain reject, as CLI 1.0.102
// takes them: a rejection with feedback and user-not-available fail the
// tool and let the turn go on, the model reading why; approve-for-session
// and approve-for-location are not asked again.
func TestRealCLIPermissionDecisions(t *testing.T) {
	dir := t.TempDir()
	createTwice := func(prefix string) modelapi.Responder {
		return modelapi.Sequence(
			modelapi.ToolCall("create", `{"path":"`+dir+`/`+prefix+`-1.txt","file_text":"one"}`),
			modelapi.ToolCall("create", `{"path":"`+dir+`/`+prefix+`-2.txt","file_text":"two"}`),
			modelapi.Text("both written"))
	}
	c, api := startReal(t, map[string]modelapi.Responder{
		"bash":     modelapi.ToolThenText("bash", `{"command":"rm -rf build","description":"Clean"}`, echoToolResult),
		"session":  createTwice("session"),
		"location": createTwice("location"),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	run := func(t *testing.T, m string, decide func(PermissionRequest) PermissionDecision) (string, int, *Session) {
		t.Helper()
		asked := 0
		s, err := c.NewSession(ctx, SessionConfig{Model: m, WorkingDirectory: dir,
			Permissions: func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
				asked++
				return decide(r), nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Delete(context.Background()) })
		a, err := s.Ask(ctx, "go")
		if err != nil {
			t.Fatalf("the turn: %v", err)
		}
		return a, asked, s
	}
	t.Run("reject with feedback", func(t *testing.T) {
		a, _, s := run(t, "bash", func(PermissionRequest) PermissionDecision { return Reject("never delete the build, use make clean") })
		if !strings.Contains(a, "User feedback: never delete the build, use make clean") {
			t.Errorf("the model read %q", a)
		}
		if tr := lastRequest(t, api, s.ID()).ToolResults(); len(tr) != 1 || !strings.Contains(tr[0].Content, "use make clean") {
			t.Errorf("the tool result the model got: %+v", tr)
		}
	})
	t.Run("user not available", func(t *testing.T) {
		a, _, _ := run(t, "bash", func(PermissionRequest) PermissionDecision { return UserNotAvailable() })
		if !strings.Contains(a, "could not request permission") {
			t.Errorf("the model read %q", a)
		}
	})
	t.Run("approve for the session", func(t *testing.T) {
		a, asked, _ := run(t, "session", ApproveForSession)
		if a != "both written" || asked != 1 {
			t.Errorf("%q, asked %d times; want both files written on one question", a, asked)
		}
	})
	t.Run("approve for a location", func(t *testing.T) {
		a, asked, _ := run(t, "location", func(r PermissionRequest) PermissionDecision { return ApproveForLocation(r, dir) })
		if a != "both written" || asked != 1 {
			t.Errorf("%q, asked %d times; want both files written on one question", a, asked)
		}
	})
	for _, f := range []string{"session-1", "session-2", "location-1", "location-2"} {
		if _, err := os.Stat(filepath.Join(dir, f+".txt")); err != nil {
			t.Errorf("an approved write did not happen: %v", err)
		}
	}
}

// A whole ToolResult reaches the model: its text as the tool message, its
// image as a user message the CLI adds after it (modelapi flattens
// messages to their text, so the image shows as its description), its log
// in the timeline; a typed tool declares its schema and gets its
// arguments decoded.
func TestRealCLIRichToolResult(t *testing.T) {
	afterAnyTool := func(call modelapi.Reply) modelapi.Responder {
		return func(req modelapi.Request) modelapi.Reply {
			if slices.ContainsFunc(req.Messages, func(m modelapi.Message) bool { return m.Role == "tool" }) {
				return modelapi.Text("done")
			}
			return call
		}
	}
	c, api := startReal(t, map[string]modelapi.Responder{
		"draw":     afterAnyTool(modelapi.ToolCall("draw", `{}`)),
		"forecast": modelapi.ToolThenText("forecast", `{"city":"Oslo","days":3}`, echoToolResult),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	draw := Tool{Name: "draw", SkipPermission: true, Parameters: []byte(`{"type":"object","properties":{}}`),
		Handler: ResultHandler(func(context.Context, ToolCall) (ToolResult, error) {
			return ToolResult{
				TextResultForLLM: "a red dot",
				SessionLog:       "drew one pixel",
				BinaryResultsForLLM: []protocol.ExternalToolTextResultForLLMBinaryResultsForLLM{
					{Type: protocol.ExternalToolTextResultForLLMBinaryResultsForLLMTypeImage, Data: pixel, MimeType: "image/png", Description: "the dot itself"},
				},
			}, nil
		})}
	var complete *protocol.ToolExecutionCompleteData
	s, err := c.NewSession(ctx, SessionConfig{Model: "draw", BuiltinTools: NoBuiltinTools(), Tools: []Tool{draw},
		OnEvent: func(ev Event) {
			if d, err := protocol.DecodeEvent[protocol.ToolExecutionCompleteData](ev, protocol.EventToolExecutionComplete); err == nil {
				complete = d
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Delete(ctx)
	if a, err := s.Ask(ctx, "draw a dot"); err != nil || a != "done" {
		t.Fatalf("%q, %v", a, err)
	}
	msgs := lastRequest(t, api, s.ID()).Messages
	n := len(msgs)
	if n < 2 || msgs[n-2].Role != "tool" || msgs[n-2].Content != "a red dot" || msgs[n-1].Role != "user" || msgs[n-1].Content != "the dot itself" {
		t.Errorf("the model's next request ends with %+v", msgs[max(0, n-3):])
	}
	if complete == nil || !complete.Success || complete.Result == nil || complete.Result.DetailedContent != "drew one pixel" ||
		len(complete.Result.BinaryResultsForLLM) != 1 || complete.Result.BinaryResultsForLLM[0].Data != pixel {
		t.Errorf("tool.execution_complete: %+v", complete)
	}

	var got cityArgs
	forecast := DefineTool("forecast", "The weather ahead", func(_ context.Context, a cityArgs) (string, error) {
		got = a
		return fmt.Sprintf("%d days of sun in %s", a.Days, a.City), nil
	})
	f, err := c.NewSession(ctx, SessionConfig{Model: "forecast", BuiltinTools: NoBuiltinTools(), Tools: []Tool{forecast}, Permissions: ApproveAll})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Delete(ctx)
	if a, err := f.Ask(ctx, "weather?"); err != nil || a != "RESULT: 3 days of sun in Oslo" || got != (cityArgs{City: "Oslo", Days: 3}) {
		t.Fatalf("%q, %v; the handler got %+v", a, err, got)
	}
	offered := lastRequest(t, api, f.ID()).Tools
	want, _ := JSONSchemaFor[cityArgs]()
	if len(offered) != 1 || !strings.Contains(string(offered[0].Parameters), `"description":"The city to look up"`) ||
		!strings.Contains(string(offered[0].Parameters), `"required":["city"]`) {
		t.Errorf("the model was offered %s; declared %s", offered[0].Parameters, want)
	}
}

// The sessions the CLI keeps, and what it says of them: a session is
// listed once it has had a message, stays listed after Destroy, and is
// gone after Delete, which also stops a turn in flight; the lifecycle
// notifications say so.
func TestRealCLISessionManagement(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{
		"m":     modelapi.Echo,
		"stall": modelapi.Fixed(modelapi.Text("thinking").WithStall()),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	life := make(lifecycleLog, 256)
	defer c.OnLifecycle(life.on)()

	if id, err := c.LastSessionID(ctx); err != nil || id != "" {
		t.Fatalf("a fresh CLI's last session: %q, %v", id, err)
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	life.await(t, protocol.LifecycleSessionCreated, s.ID())
	if md, err := c.SessionMetadata(ctx, s.ID()); err != nil || md != nil {
		t.Fatalf("metadata before the first message: %+v, %v", md, err)
	}
	if _, err := s.Ask(ctx, "first words"); err != nil {
		t.Fatal(err)
	}
	life.await(t, protocol.LifecycleSessionUpdated, s.ID())
	md, err := c.SessionMetadata(ctx, s.ID())
	if err != nil || md == nil || md.SessionID != s.ID() || md.StartTime == "" || md.Summary != "first words" {
		t.Fatalf("metadata: %+v, %v", md, err)
	}
	if id, err := c.LastSessionID(ctx); err != nil || id != s.ID() {
		t.Errorf("last session %q, %v; want %s", id, err, s.ID())
	}
	if id, err := c.ForegroundSessionID(ctx); err != nil || id != "" {
		t.Errorf("a headless CLI's foreground session: %q, %v", id, err)
	}
	if err := c.SetForegroundSessionID(ctx, s.ID()); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "TUI+server") {
		t.Errorf("setting the foreground session of a headless CLI: %v", err)
	}

	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if !listed(t, c, s.ID()) {
		t.Fatal("a destroyed session is no longer listed: Destroy deleted it")
	}
	if err := c.DeleteSession(ctx, s.ID()); err != nil {
		t.Fatal(err)
	}
	life.await(t, protocol.LifecycleSessionDeleted, s.ID())
	if listed(t, c, s.ID()) {
		t.Fatal("a deleted session is still listed")
	}
	if err := c.DeleteSession(ctx, s.ID()); !errors.Is(err, ErrRefused) {
		t.Errorf("deleting it again: %v, want ErrRefused", err)
	}

	busy, err := c.NewSession(ctx, SessionConfig{Model: "stall", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := busy.Send(ctx, "take your time"); err != nil {
		t.Fatal(err)
	}
	for api.Active() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the turn never reached the model")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := busy.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	life.await(t, protocol.LifecycleSessionDeleted, busy.ID())
	for api.Active() != 0 {
		if ctx.Err() != nil {
			t.Fatal("the deleted session's model request is still open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if listed(t, c, busy.ID()) {
		t.Error("the deleted busy session is listed")
	}
}

// SetModel changes the model of the session's next model request, and
// the conversation goes on. (CLI 1.0.102 accepts a switch to a model it
// does not list, too: the check is the model API's, on the next turn.)
func TestRealCLISetModel(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo, "n": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Delete(ctx)
	if _, err := s.Ask(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if got := lastRequest(t, api, s.ID()).Model; got != "m" {
		t.Fatalf("first model %q", got)
	}
	if err := s.SetModel(ctx, "n"); err != nil || s.Model() != "n" {
		t.Fatalf("SetModel: %v; Model() = %q", err, s.Model())
	}
	// The CLI tells the model of the switch, before the prompt.
	if a, err := s.Ask(ctx, "two"); err != nil || !strings.HasSuffix(a, "two") || !strings.Contains(a, "switched from m to n") {
		t.Fatalf("%q, %v", a, err)
	}
	last := lastRequest(t, api, s.ID())
	if last.Model != "n" || !slices.ContainsFunc(last.Messages, func(m modelapi.Message) bool { return strings.HasSuffix(m.Content, "one") }) {
		t.Errorf("the next request asked %q, with the history %d messages long", last.Model, len(last.Messages))
	}
}

// After a rate limit the CLI asks whether to switch to the auto model:
// without a handler the client declines; with one, the CLI's request
// reaches the handler once, and its answer is the one taken.
func TestRealCLIAutoModeSwitch(t *testing.T) {
	limited := modelapi.Fixed(modelapi.Error(429, `{"error":{"message":"rate limited","code":"rate_limited"}}`).WithHeader("Retry-After", "1"))
	c, _ := startReal(t, map[string]modelapi.Responder{"limited": limited}, Options{})
	ctx := testutil.Context(t, hangGuard)
	type outcome struct {
		answers  []string // auto_mode_switch.completed's responses
		switched bool     // session.model_change to auto
		asked    int32
	}
	run := func(withHandler bool) outcome {
		var mu sync.Mutex
		var o outcome
		var asked atomic.Int32
		cfg := SessionConfig{Model: "limited", BuiltinTools: NoBuiltinTools(), OnEvent: func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			d, _ := ev.Decode()
			switch d := d.(type) {
			case *protocol.AutoModeSwitchCompletedData:
				o.answers = append(o.answers, string(d.Response))
			case *protocol.ModelChangeData:
				o.switched = o.switched || d.NewModel == "auto"
			}
		}}
		if withHandler {
			cfg.Handlers.AutoModeSwitchRequest = func(context.Context, *protocol.AutoModeSwitchRequestParams) (*protocol.AutoModeSwitchRequestResponse, error) {
				asked.Add(1)
				return &protocol.AutoModeSwitchRequestResponse{Response: protocol.UIAutoModeSwitchResponseYes}, nil
			}
		}
		s, err := c.NewSession(ctx, cfg)
		if err != nil {
			t.Error(err)
			return o
		}
		defer s.Delete(ctx)
		if _, err := s.Ask(ctx, "go"); !errors.Is(err, ErrTurnFailed) {
			t.Errorf("a rate-limited turn: %v", err)
		}
		// The answer's completion follows the failed turn's end.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			n := len(o.answers)
			mu.Unlock()
			if n > 0 {
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		o.asked = asked.Load()
		return o
	}
	var declined, decided outcome
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); declined = run(false) }()
	go func() { defer wg.Done(); decided = run(true) }()
	wg.Wait()
	if !slices.Equal(declined.answers, []string{"no"}) || declined.switched {
		t.Errorf("without a handler: answers %v, switched %v; want no", declined.answers, declined.switched)
	}
	if !slices.Equal(decided.answers, []string{"yes"}) || !decided.switched || decided.asked != 1 {
		t.Errorf("with a handler: answers %v, switched %v, handler asked %d times; want yes, once", decided.answers, decided.switched, decided.asked)
	}
}

// Close fails a turn in flight with an error that errors.Is finds
// ErrClosed in.
func TestRealCLICloseFailsTurnInFlight(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"stall": modelapi.Fixed(modelapi.Text("thinking").WithStall())}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "stall", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.Ask(ctx, "wait"); done <- err }()
	for api.Active() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the turn never reached the model")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Close()
	if err := <-done; !errors.Is(err, ErrClosed) || !errors.Is(err, ErrStopped) {
		t.Fatalf("the turn in flight: %v; want ErrClosed and ErrStopped", err)
	}
}
