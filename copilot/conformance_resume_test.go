package copilot

// Real-CLI conformance for resuming a session this client has open
// (ResumeSession of a live *Session): the eleven scenarios of the official
// Go SDK's end-to-end tests that resume a session on the client that holds
// it, and the hand-over of a turn in flight.

import (
	"context"
	"encoding/json"
	"errors"
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

// Each case creates a session, runs a turn, resumes it on the same client
// while it is open with a new configuration, and checks that the CLI
// applied it to the next turn; the old *Session is superseded.
func TestRealCLIResumeOpenSession(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{
		"m":      modelapi.Echo,
		"byok":   modelapi.Echo,
		"tooler": modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo),
	}, Options{})
	dir := t.TempDir()
	write := func(path, text string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write(filepath.Join(dir, "instructions", ".github", "instructions", "house.instructions.md"), "House rule: end with resume-instruction-marker-3.")
	cwd := filepath.Join(dir, "resume-cwd-marker-2")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32
	lookup := Tool{Name: "lookup", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Handler: func(context.Context, ToolCall) (string, error) { ran.Add(1); return "looked up", nil }}
	var oldAsked atomic.Int32
	oldPolicy := func(context.Context, PermissionRequest) (PermissionDecision, error) {
		oldAsked.Add(1)
		return ApproveOnce(), nil
	}
	plain := SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()}
	byok := func(headers map[string]string, key string) *protocol.ProviderConfig {
		return &protocol.ProviderConfig{Type: protocol.ProviderConfigTypeOpenai, BaseURL: api.URL(), APIKey: key, Headers: headers}
	}
	type check func(t *testing.T, s *Session, req modelapi.Request, events []Event)
	allText := func(req modelapi.Request) string { b, _ := json.Marshal(req.Messages); return string(b) }
	cases := []struct {
		name          string
		before, after SessionConfig
		prompt        string
		check         check
	}{
		{"system message", plain, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), SystemMessage: "resume-system-marker-1"}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				if !strings.Contains(systemPrompt(req), "resume-system-marker-1") {
					t.Errorf("the new system message is not in the system prompt")
				}
			}},
		{"working directory", plain, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), WorkingDirectory: cwd}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				if !strings.Contains(allText(req), "resume-cwd-marker-2") {
					t.Errorf("the new working directory did not reach the model")
				}
			}},
		{"instruction directories", plain, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), InstructionDirectories: []string{filepath.Join(dir, "instructions")}}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				if !strings.Contains(allText(req), "resume-instruction-marker-3") {
					t.Errorf("the new instruction directory's instructions did not reach the model")
				}
			}},
		{"available tools", plain, SessionConfig{Model: "m", BuiltinTools: []string{"grep"}}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				if got := toolNames(req); !slices.Equal(got, []string{"grep"}) {
					t.Errorf("offered %v, want only grep", got)
				}
			}},
		{"provider headers",
			SessionConfig{Model: "byok", BuiltinTools: NoBuiltinTools(), Provider: byok(map[string]string{"X-Resume-Marker": "before"}, "k")},
			SessionConfig{Model: "byok", BuiltinTools: NoBuiltinTools(), Provider: byok(map[string]string{"X-Resume-Marker": "after"}, "k")}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				if got := req.Header.Get("X-Resume-Marker"); got != "after" {
					t.Errorf("the provider got X-Resume-Marker %q, want after", got)
				}
			}},
		{"MCP servers", plain, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), MCPServers: map[string]MCPServer{"resumed-server": {Command: "/bin/true"}}}, "hi",
			func(t *testing.T, s *Session, _ modelapi.Request, _ []Event) {
				l, err := s.RPC().MCP.List(testutil.Context(t, hangGuard))
				if err != nil {
					t.Fatal(err)
				}
				if raw, _ := json.Marshal(l); !strings.Contains(string(raw), `"resumed-server"`) {
					t.Errorf("mcp.list does not name the server the resume configured: %s", raw)
				}
			}},
		{"custom agents", SessionConfig{Model: "m"}, SessionConfig{Model: "m", CustomAgents: []CustomAgent{{Name: "reviewer", Description: "Reviews (resume-agent-marker-5)", Prompt: "You review."}}}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				var offered bool
				for _, tl := range req.Tools {
					offered = offered || strings.Contains(tl.Description, "resume-agent-marker-5")
				}
				if !offered {
					t.Errorf("the custom agent of the resume was not offered")
				}
			}},
		{"custom provider", plain, SessionConfig{Model: "byok", BuiltinTools: NoBuiltinTools(), Provider: byok(nil, "byok-key-2")}, "hi",
			func(t *testing.T, _ *Session, req modelapi.Request, _ []Event) {
				if req.Model != "byok" || req.Header.Get("Authorization") != "Bearer byok-key-2" {
					t.Errorf("the provider was called for %q with Authorization %q", req.Model, req.Header.Get("Authorization"))
				}
			}},
		{"deny after resume",
			SessionConfig{Model: "tooler", BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup}, Permissions: oldPolicy},
			SessionConfig{Model: "tooler", BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup},
				Permissions: func(context.Context, PermissionRequest) (PermissionDecision, error) { return UserNotAvailable(), nil }}, "go",
			func(t *testing.T, _ *Session, _ modelapi.Request, events []Event) {
				var denied bool
				for _, ev := range events {
					var d protocol.ToolExecutionCompleteData
					if ev.Type == protocol.EventToolExecutionComplete && ev.UnmarshalData(&d) == nil && !d.Success &&
						d.Error != nil && strings.Contains(d.Error.Message, "Permission denied") {
						denied = true
					}
				}
				if !denied || ran.Load() != 1 {
					t.Errorf("denied %v, the handler ran %d times (once, before the resume)", denied, ran.Load())
				}
			}},
		{"same client", plain, plain, "second",
			func(t *testing.T, s *Session, req modelapi.Request, _ []Event) {
				if u := userTexts(req); len(u) < 2 || !strings.Contains(u[0], "first") {
					t.Errorf("the conversation did not go on: user messages %q", u)
				}
				msgs, err := s.Messages(testutil.Context(t, hangGuard))
				if err != nil {
					t.Fatal(err)
				}
				var answers []string
				for _, ev := range msgs {
					var d protocol.AssistantMessageData
					if ev.Type == protocol.EventAssistantMessage && ev.UnmarshalData(&d) == nil {
						answers = append(answers, d.Content)
					}
				}
				if !slices.Equal(answers, []string{"first", "second"}) {
					t.Errorf("the resumed session's messages hold the answers %q", answers)
				}
			}},
		// Not one of the official SDK's eleven: a resume need not name the
		// model, as theirs need not.
		{"model kept", plain, SessionConfig{BuiltinTools: NoBuiltinTools()}, "hi",
			func(t *testing.T, s *Session, req modelapi.Request, _ []Event) {
				if req.Model != "m" || s.Model() != "m" {
					t.Errorf("the model asked for %q; Session.Model %q; want the session's own, m", req.Model, s.Model())
				}
			}},
		{"permission handler",
			SessionConfig{Model: "tooler", BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup}, Permissions: oldPolicy},
			SessionConfig{Model: "tooler", BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup}}, "go",
			nil}, // the policy is set below: it counts
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testutil.Context(t, hangGuard)
			ran.Store(0)
			oldAsked.Store(0)
			old, err := c.NewSession(ctx, tc.before)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := old.Ask(ctx, "first"); err != nil {
				t.Fatal(err)
			}
			askedBefore := oldAsked.Load()
			var mu sync.Mutex
			var events []Event
			after := tc.after
			after.OnEvent = func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }
			var newAsked atomic.Int32
			if tc.check == nil {
				after.Permissions = func(context.Context, PermissionRequest) (PermissionDecision, error) {
					newAsked.Add(1)
					return ApproveOnce(), nil
				}
			}
			s, err := c.ResumeSession(ctx, old.ID(), after)
			if err != nil {
				t.Fatalf("resuming a session this client has open: %v", err)
			}
			defer s.Destroy(context.Background())
			if _, err := old.Ask(ctx, "to the old one"); !errors.Is(err, ErrSuperseded) {
				t.Errorf("a turn of the superseded session: %v, want ErrSuperseded", err)
			}
			// Destroying the old *Session must not end the session its
			// successor uses, nor Close unroute it.
			if err := old.Destroy(ctx); !errors.Is(err, ErrSuperseded) {
				t.Errorf("Destroy of the superseded session: %v, want ErrSuperseded", err)
			}
			if err := old.Close(); err != nil {
				t.Errorf("Close of the superseded session: %v", err)
			}
			n := len(api.Requests())
			if _, err := s.Ask(ctx, tc.prompt); err != nil {
				t.Fatal(err)
			}
			req := lastRequests(t, api, n)[0]
			mu.Lock()
			got := slices.Clone(events)
			mu.Unlock()
			if tc.check != nil {
				tc.check(t, s, req, got)
				return
			}
			if newAsked.Load() != 1 || oldAsked.Load() != askedBefore || ran.Load() != 2 {
				t.Errorf("after the resume the new policy was asked %d times (want 1), the old one %d more; the tool ran %d times (want 2)",
					newAsked.Load(), oldAsked.Load()-askedBefore, ran.Load())
			}
		})
	}
}

// A session resumed on its own client while a turn streams: the old
// Stream fails with ErrSuperseded, the new *Session reads the rest of the
// turn, and between the two every event of the session is delivered once —
// the old Session's OnEvent and the new one's together hold each event id
// once, all the events the CLI keeps for the session among them, and the
// streamed text, put together, is the whole answer.
func TestRealCLIResumeOpenSessionMidTurn(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
	c, _ := startReal(t, map[string]modelapi.Responder{
		"slow": modelapi.Fixed(modelapi.Text(answer).WithChunks(40).WithChunkDelay(15 * time.Millisecond)),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var mu sync.Mutex
	var ids []string
	var text strings.Builder
	record := func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		ids = append(ids, ev.ID)
		var d protocol.AssistantMessageDeltaData
		if ev.Type == protocol.EventAssistantMessageDelta && ev.UnmarshalData(&d) == nil {
			text.WriteString(d.DeltaContent)
		}
	}
	old, err := c.NewSession(ctx, SessionConfig{Model: "slow", BuiltinTools: NoBuiltinTools(), OnEvent: record})
	if err != nil {
		t.Fatal(err)
	}
	streaming := make(chan struct{})
	turn := make(chan error, 1)
	go func() {
		var once sync.Once
		_, err := old.Stream(ctx, "count", TurnHandlers{OnDelta: func(string) { once.Do(func() { close(streaming) }) }})
		turn <- err
	}()
	<-streaming
	idle := make(chan struct{})
	var idleOnce sync.Once
	s, err := c.ResumeSession(ctx, old.ID(), SessionConfig{Model: "slow", BuiltinTools: NoBuiltinTools(), OnEvent: func(ev Event) {
		record(ev)
		if ev.Type == protocol.EventSessionIdle {
			idleOnce.Do(func() { close(idle) })
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(context.Background())
	if err := <-turn; !errors.Is(err, ErrSuperseded) {
		t.Fatalf("the old Stream: %v, want ErrSuperseded", err)
	}
	testutil.Receive(t, "the turn's session.idle, read by the new session", hangGuard, idle)
	kept, err := s.Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]int{}
	for _, id := range ids {
		seen[id]++
		if seen[id] == 2 {
			t.Errorf("event %s was delivered twice", id)
		}
	}
	for _, ev := range kept {
		if seen[ev.ID] == 0 {
			t.Errorf("the CLI keeps event %s (%s), which neither session received", ev.ID, ev.Type)
		}
	}
	if text.String() != answer {
		t.Errorf("the streamed text, old and new together, is %q", text.String())
	}
}
