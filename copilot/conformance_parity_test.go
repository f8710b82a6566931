package copilot

// Real-CLI conformance for what the official SDKs configure and this
// package now does too: each test runs the pinned CLI offline (startReal)
// and checks that the setting reaches what the CLI does — mostly the model
// request the local model API records.
//
// Not exercised here, because the offline CLI cannot show them:
//   - ReasoningEffort's value in the model request: the model API records
//     no request body fields beyond messages and tools. The test pins what
//     is observable: the CLI reads the field (it refuses it for a model
//     without reasoning support) and takes it for a BYOK model declared to
//     support it.
//   - ReasoningSummary, InfiniteSessions, ConfigDirectory, GitHubToken: the
//     CLI takes them (TestRealCLIDirectoriesAndCustomAgents creates a
//     session with InfiniteSessions) but nothing offline shows their
//     effect; a per-session token would need GitHub's API.
//   - An MCP server's tools: startReal's account (the model API without
//     MCPEnabled) turns third-party MCP servers off, so the CLI lists the
//     configured server as filtered and never starts it. The test pins that
//     the CLI read the server's configuration; internal/mcpserver's
//     TestRealCLICallsQuorumMCPDiscuss runs a server's tools end to end
//     under an account that allows MCP.
//   - Elicitation from an MCP server (same policy); the test asks through
//     session.ui.elicitation instead, which the CLI serves the same way.
//
// conformance_setup_test.go holds the rest: directories and agents, forms,
// plan mode, MCP configuration, extra parameters.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// systemPrompt is the system message of a model request.
func systemPrompt(req modelapi.Request) string {
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		return ""
	}
	return req.Messages[0].Content
}

// toolNames lists the tools a model request offered.
func toolNames(req modelapi.Request) []string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// userTexts lists the user messages of a model request.
func userTexts(req modelapi.Request) []string {
	var texts []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			texts = append(texts, m.Content)
		}
	}
	return texts
}

// lastRequests returns the model requests made since n were recorded.
func lastRequests(t *testing.T, api *modelapi.Server, n int) []modelapi.Request {
	t.Helper()
	reqs := api.Requests()
	if len(reqs) <= n {
		t.Fatalf("no model request was made")
	}
	return reqs[n:]
}

// oneTurn creates a session with cfg, runs one turn of prompt and returns
// the session (destroyed when the test ends) and the turn's first model
// request.
func oneTurn(t *testing.T, c *Client, api *modelapi.Server, cfg SessionConfig, prompt string) (*Session, modelapi.Request) {
	t.Helper()
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Destroy(ctx) })
	n := len(api.Requests())
	if _, err := s.Stream(ctx, prompt, TurnHandlers{}); err != nil {
		t.Fatal(err)
	}
	return s, lastRequests(t, api, n)[0]
}

// A hook that rewrites the prompt: the model gets the rewritten text. The
// hooks' inputs are typed as the CLI sends them.
func TestRealCLIHookRewritesPrompt(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var mu sync.Mutex
	var submitted UserPromptSubmittedInput
	var start SessionStartInput
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Hooks: &Hooks{
		OnUserPromptSubmitted: func(_ context.Context, in UserPromptSubmittedInput) (*UserPromptSubmittedOutput, error) {
			mu.Lock()
			submitted = in
			mu.Unlock()
			return &UserPromptSubmittedOutput{ModifiedPrompt: "Rewritten by the hook: " + strings.ToUpper(in.Prompt)}, nil
		},
		OnSessionStart: func(_ context.Context, in SessionStartInput) (*SessionStartOutput, error) {
			mu.Lock()
			start = in
			mu.Unlock()
			return nil, nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	r, err := s.Stream(ctx, "quiet please", TurnHandlers{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "Rewritten by the hook: QUIET PLEASE"
	if req := lastRequests(t, api, 0)[0]; req.UserText != want || r.Text != want {
		t.Errorf("the model got %q and answered %q, want %q", req.UserText, r.Text, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if submitted.Prompt != "quiet please" || submitted.SessionID != s.ID() || submitted.WorkingDirectory == "" || time.Since(submitted.Time) > time.Minute {
		t.Errorf("userPromptSubmitted input %+v", submitted)
	}
	if start.Source != "new" || start.InitialPrompt != "quiet please" {
		t.Errorf("sessionStart input %+v", start)
	}
}

// A pre-tool-use hook that denies keeps the tool from running and tells the
// model why; a post-tool-use hook's result is what the model sees.
func TestRealCLIHooksAroundTools(t *testing.T) {
	after := func(req modelapi.Request) modelapi.Reply {
		return modelapi.Text("the tool said: " + req.ToolResults()[0].Content)
	}
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.ToolThenText("lookup", `{"q":"weather"}`, after)}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var ran sync.Map
	lookup := Tool{Name: "lookup", SkipPermission: true, Handler: func(_ context.Context, call ToolCall) (string, error) {
		ran.Store(call.SessionID, true)
		return "sunny", nil
	}}
	for _, tc := range []struct {
		name  string
		hooks *Hooks
		want  string
		runs  bool
	}{
		{"deny", &Hooks{OnPreToolUse: func(_ context.Context, in PreToolUseInput) (*PreToolUseOutput, error) {
			if in.ToolName != "lookup" || !jsonEqual(t, in.ToolArgs, `{"q":"weather"}`) {
				t.Errorf("preToolUse input %+v", in)
			}
			return &PreToolUseOutput{PermissionDecision: HookDeny, PermissionDecisionReason: "no lookups today"}, nil
		}}, "no lookups today", false},
		{"modify result", &Hooks{OnPostToolUse: func(_ context.Context, in PostToolUseInput) (*PostToolUseOutput, error) {
			var res protocol.ExternalToolTextResultForLLM
			if err := json.Unmarshal(in.ToolResult, &res); err != nil || res.TextResultForLLM != "sunny" {
				t.Errorf("postToolUse result %s: %v", in.ToolResult, err)
			}
			return &PostToolUseOutput{ModifiedResult: json.RawMessage(`{"textResultForLlm":"stormy, said the hook","resultType":"success"}`)}, nil
		}}, "the tool said: stormy, said the hook", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup}, Hooks: tc.hooks})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Destroy(ctx)
			r, err := s.Stream(ctx, "weather?", TurnHandlers{})
			if err != nil || !strings.Contains(r.Text, tc.want) {
				t.Fatalf("%q, %v; want it to contain %q", r.Text, err, tc.want)
			}
			if _, runs := ran.Load(s.ID()); runs != tc.runs {
				t.Errorf("the tool ran: %v, want %v", runs, tc.runs)
			}
		})
	}
}

// Attachments and request headers reach the model request: a file as the
// CLI's tagged-files entry, an image as an image (the CLI says so to the
// model), a header as an HTTP header.
func TestRealCLIPromptAttachmentsAndHeaders(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent protocol.UserMessageData
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	pixel := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
		"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	_, err = s.StreamPrompt(ctx, Prompt{
		Text:           "What do these say?",
		DisplayText:    "What do these say? (shown)",
		Attachments:    []protocol.Attachment{FileAttachment(file), BlobAttachment(pixel, "image/png", "pixel.png")},
		RequestHeaders: map[string]string{"X-Quorum-Test": "attached"},
	}, TurnHandlers{OnEvent: func(ev Event) {
		if ev.Type == protocol.EventUserMessage {
			mu.Lock()
			_ = ev.UnmarshalData(&sent)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	req := lastRequests(t, api, 0)[0]
	if !strings.Contains(req.UserText, "What do these say?") || !strings.Contains(req.UserText, "<tagged_files>") || !strings.Contains(req.UserText, file) {
		t.Errorf("the file did not reach the model: %q", req.UserText)
	}
	if !strings.Contains(req.UserText, "images") || !strings.Contains(req.UserText, "pixel.png") {
		t.Errorf("the image did not reach the model: %q", req.UserText)
	}
	if h := req.Header.Get("X-Quorum-Test"); h != "attached" {
		t.Errorf("X-Quorum-Test = %q", h)
	}
	mu.Lock()
	defer mu.Unlock()
	if sent.Content != "What do these say? (shown)" || len(sent.Attachments) != 2 {
		t.Errorf("user.message %+v", sent)
	}
}

// An immediate message steers the turn in progress: the model gets it at
// its next call, in the same turn, which Stream reads to the end.
func TestRealCLISteeringMessage(t *testing.T) {
	const steer = "Also mention the wind."
	respond := func(req modelapi.Request) modelapi.Reply {
		for _, u := range userTexts(req) {
			if strings.Contains(u, steer) {
				// The steering message follows the tool's result.
				var result string
				for _, m := range req.Messages {
					if m.Role == "tool" {
						result = m.Content
					}
				}
				return modelapi.Text("steered: " + result + "; " + steer)
			}
		}
		if req.HasToolResults {
			return modelapi.Text("not steered")
		}
		return modelapi.ToolCall("lookup", `{}`)
	}
	c, api := startReal(t, map[string]modelapi.Responder{"m": respond}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var s *Session
	lookup := Tool{Name: "lookup", SkipPermission: true, Handler: func(ctx context.Context, _ ToolCall) (string, error) {
		// The turn is in progress: the model waits for this result.
		if _, err := s.SendPrompt(ctx, Prompt{Text: steer, Mode: protocol.SendModeImmediate}); err != nil {
			return "", err
		}
		return "sunny", nil
	}}
	var err error
	if s, err = c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup}}); err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	r, err := s.Stream(ctx, "weather?", TurnHandlers{})
	if err != nil || r.Text != "steered: sunny; "+steer {
		t.Fatalf("%q, %v", r.Text, err)
	}
	if n := len(api.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2: the steering message joined the turn", n)
	}
}

// Replace stands in for the CLI's whole system prompt; customize changes
// its sections (a replaced one, a transformed one) and adds the message.
func TestRealCLISystemMessageReplaceAndCustomize(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	stream := func(cfg SessionConfig) modelapi.Request {
		t.Helper()
		cfg.Model, cfg.BuiltinTools = "m", NoBuiltinTools()
		_, req := oneTurn(t, c, api, cfg, "hello")
		return req
	}

	if got := systemPrompt(stream(SessionConfig{SystemMessage: "You are a terse parser.", SystemMode: SystemReplace})); got != "You are a terse parser." {
		t.Errorf("replaced system prompt = %.200q", got)
	}

	var offered string
	got := systemPrompt(stream(SessionConfig{SystemMessage: "Closing words.", SystemMode: SystemCustomize, SystemSections: map[string]SectionOverride{
		SectionTone: {Action: SectionReplace, Content: "Speak like a lighthouse keeper."},
		SectionSafety: {Transform: func(_ context.Context, id, content string) (string, error) {
			offered = content
			return "Safety, as the client sees it.", nil
		}},
	}}))
	tone, safety, closing := strings.Index(got, "Speak like a lighthouse keeper."), strings.Index(got, "Safety, as the client sees it."), strings.Index(got, "Closing words.")
	if tone < 0 || safety < 0 || closing < 0 || !strings.HasPrefix(got, "You are GitHub Copilot") {
		t.Errorf("customized system prompt (tone@%d safety@%d closing@%d): %.300q", tone, safety, closing, got)
	}
	if offered == "" || strings.Contains(got, offered) {
		t.Errorf("the safety section was offered as %.100q and is still in the prompt", offered)
	}
}

// Excluded tools are not offered, beside the built-in ones; the client's
// name is in the model request's User-Agent.
func TestRealCLIExcludedToolsAndClientName(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	for _, tc := range []struct {
		name      string
		cfg       SessionConfig
		want, not []string
	}{
		{"all built-ins but two", SessionConfig{ExcludedTools: []string{"bash", "view"}}, []string{"grep", "edit"}, []string{"bash", "view"}},
		{"some built-ins, less one", SessionConfig{BuiltinTools: []string{"grep", "glob"}, ExcludedTools: []string{"glob"}}, []string{"grep"}, []string{"glob", "bash"}},
		{"a client tool excluded", SessionConfig{BuiltinTools: NoBuiltinTools(), Tools: []Tool{{Name: "kept", Handler: noop}, {Name: "dropped", Handler: noop}}, ExcludedTools: []string{"dropped"}},
			[]string{"kept"}, []string{"dropped"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Model, cfg.ClientName = "m", "quorum-conformance"
			_, req := oneTurn(t, c, api, cfg, "hi")
			offered := toolNames(req)
			for _, name := range tc.want {
				if !slices.Contains(offered, name) {
					t.Errorf("%s not offered: %v", name, offered)
				}
			}
			for _, name := range tc.not {
				if slices.Contains(offered, name) {
					t.Errorf("%s offered: %v", name, offered)
				}
			}
			if ua := req.Header.Get("User-Agent"); !strings.Contains(ua, "quorum-conformance") {
				t.Errorf("User-Agent %q does not name the client", ua)
			}
		})
	}
}

// The CLI reads ReasoningEffort: it refuses it for a model without
// reasoning support. A BYOK provider (here the same local API) takes the
// model and the key, and a capability override lets it reason.
func TestRealCLIReasoningEffortAndProvider(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo, "byok": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	_, err := c.NewSession(ctx, SessionConfig{Model: "m", ReasoningEffort: "high", BuiltinTools: NoBuiltinTools()})
	if err == nil || !strings.Contains(err.Error(), "reasoning effort") {
		t.Fatalf("a reasoning effort for a model without reasoning: %v", err)
	}
	yes := true
	s, err := c.NewSession(ctx, SessionConfig{Model: "byok", ReasoningEffort: "high", BuiltinTools: NoBuiltinTools(),
		Provider: &protocol.ProviderConfig{Type: protocol.ProviderConfigTypeOpenai, BaseURL: api.URL(), APIKey: "byok-key-1",
			ModelCapabilities: &protocol.ModelCapabilitiesOverride{Supports: &protocol.ModelCapabilitiesOverrideSupports{ReasoningEffort: &yes}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	n := len(api.Requests())
	if r, err := s.Stream(ctx, "bring your own key", TurnHandlers{}); err != nil || r.Text != "bring your own key" {
		t.Fatalf("%q, %v", r.Text, err)
	}
	req := lastRequests(t, api, n)[0]
	if req.Model != "byok" || req.Header.Get("Authorization") != "Bearer byok-key-1" {
		t.Errorf("the provider was called for %q with Authorization %q", req.Model, req.Header.Get("Authorization"))
	}
}
