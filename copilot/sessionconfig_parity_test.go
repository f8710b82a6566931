package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// invalidParityConfigs are configurations of the fields that shape the
// CLI's agent that Validate refuses, each with the field its error names.
var invalidParityConfigs = []struct {
	name  string
	cfg   SessionConfig
	field string
}{
	{"unknown reasoning effort", SessionConfig{Model: "m", ReasoningEffort: "extreme"}, "ReasoningEffort"},
	{"unknown reasoning summary", SessionConfig{Model: "m", ReasoningSummary: "verbose"}, "ReasoningSummary"},
	{"unknown system mode", SessionConfig{Model: "m", SystemMode: "prepend"}, "SystemMode"},
	{"replace without a message", SessionConfig{Model: "m", SystemMode: SystemReplace}, "SystemMessage"},
	{"sections outside customize", SessionConfig{Model: "m", SystemSections: map[string]SectionOverride{SectionTone: {Action: SectionRemove}}}, "SystemSections"},
	{"unknown section action", SessionConfig{Model: "m", SystemMode: SystemCustomize, SystemSections: map[string]SectionOverride{SectionTone: {Action: "rewrite"}}}, `SystemSections["tone"].Action`},
	{"section action and transform", SessionConfig{Model: "m", SystemMode: SystemCustomize, SystemSections: map[string]SectionOverride{SectionTone: {Action: SectionRemove, Transform: keepSection}}}, `SystemSections["tone"]`},
	{"transform beside its handler", func() SessionConfig {
		cfg := SessionConfig{Model: "m", SystemMode: SystemCustomize, SystemSections: map[string]SectionOverride{SectionTone: {Transform: keepSection}}}
		cfg.Handlers.SystemMessageTransform = func(context.Context, *protocol.SystemMessageTransformParams) (*protocol.SystemMessageTransformResult, error) {
			return nil, nil
		}
		return cfg
	}(), "Handlers.SystemMessageTransform"},
	{"empty excluded tool", SessionConfig{Model: "m", ExcludedTools: []string{"bash", ""}}, "ExcludedTools[1]"},
	{"empty skill directory", SessionConfig{Model: "m", SkillDirectories: []string{""}}, "SkillDirectories[0]"},
	{"empty instruction directory", SessionConfig{Model: "m", InstructionDirectories: []string{""}}, "InstructionDirectories[0]"},
	{"empty additional directory", SessionConfig{Model: "m", AdditionalDirectories: []string{""}}, "AdditionalDirectories[0]"},
	{"MCP server neither local nor remote", SessionConfig{Model: "m", MCPServers: map[string]MCPServer{"x": {}}}, `MCPServers["x"]`},
	{"MCP server both local and remote", SessionConfig{Model: "m", MCPServers: map[string]MCPServer{"x": {Command: "c", URL: "http://h"}}}, `MCPServers["x"]`},
	{"local MCP server with headers", SessionConfig{Model: "m", MCPServers: map[string]MCPServer{"x": {Command: "c", Headers: map[string]string{"a": "b"}}}}, `MCPServers["x"]`},
	{"remote MCP server with args", SessionConfig{Model: "m", MCPServers: map[string]MCPServer{"x": {URL: "http://h", Args: []string{"-v"}}}}, `MCPServers["x"]`},
	{"MCP server with negative timeout", SessionConfig{Model: "m", MCPServers: map[string]MCPServer{"x": {Command: "c", Timeout: -time.Second}}}, `MCPServers["x"].Timeout`},
	{"agent without a name", SessionConfig{Model: "m", CustomAgents: []CustomAgent{{Prompt: "p"}}}, "CustomAgents[0] has no Name"},
	{"agent without a prompt", SessionConfig{Model: "m", CustomAgents: []CustomAgent{{Name: "a"}}}, "Prompt"},
	{"two agents of one name", SessionConfig{Model: "m", CustomAgents: []CustomAgent{{Name: "a", Prompt: "p"}, {Name: "a", Prompt: "q"}}}, "CustomAgents[1]"},
	{"agent with unknown effort", SessionConfig{Model: "m", CustomAgents: []CustomAgent{{Name: "a", Prompt: "p", ReasoningEffort: "lots"}}}, "CustomAgents[a].ReasoningEffort"},
	{"agent with a bad MCP server", SessionConfig{Model: "m", CustomAgents: []CustomAgent{{Name: "a", Prompt: "p", MCPServers: map[string]MCPServer{"x": {}}}}}, "CustomAgents[a].MCPServers"},
	{"unknown selected agent", SessionConfig{Model: "m", Agent: "ghost", CustomAgents: []CustomAgent{{Name: "a", Prompt: "p"}}}, `Agent "ghost"`},
	{"threshold above one", SessionConfig{Model: "m", InfiniteSessions: &InfiniteSessions{BufferExhaustionThreshold: 1.5}}, "InfiniteSessions.BufferExhaustionThreshold"},
	{"negative threshold", SessionConfig{Model: "m", InfiniteSessions: &InfiniteSessions{BackgroundCompactionThreshold: -0.1}}, "InfiniteSessions.BackgroundCompactionThreshold"},
	{"thresholds in the wrong order", SessionConfig{Model: "m", InfiniteSessions: &InfiniteSessions{BackgroundCompactionThreshold: 0.9, BufferExhaustionThreshold: 0.8}}, "InfiniteSessions.BackgroundCompactionThreshold"},
	{"provider without a URL", SessionConfig{Model: "m", Provider: &protocol.ProviderConfig{APIKey: "k"}}, "Provider.BaseURL"},
	{"provider of unknown type", SessionConfig{Model: "m", Provider: &protocol.ProviderConfig{BaseURL: "http://h", Type: "gemini"}}, "Provider.Type"},
	{"hooks beside their handler", func() SessionConfig {
		cfg := SessionConfig{Model: "m", Hooks: &Hooks{OnSessionEnd: func(context.Context, SessionEndInput) (*SessionEndOutput, error) { return nil, nil }}}
		cfg.Handlers.HooksInvoke = func(context.Context, *protocol.HookInvokeRequest) (*protocol.HookInvokeResponse, error) {
			return nil, nil
		}
		return cfg
	}(), "Handlers.HooksInvoke"},
}

func keepSection(_ context.Context, _, content string) (string, error) { return content, nil }

func TestSessionConfigValidateNamesTheAgentFields(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	for _, tc := range invalidParityConfigs {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if !errors.Is(err, ErrInvalidSessionConfig) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("Validate() = %v, want ErrInvalidSessionConfig naming %s", err, tc.field)
			}
			if s, err := c.NewSession(ctx, tc.cfg); !errors.Is(err, ErrInvalidSessionConfig) || s != nil {
				t.Errorf("NewSession = %v, %v; want ErrInvalidSessionConfig", s, err)
			}
		})
	}
}

// everyAgentField sets every field that shapes the CLI's agent.
func everyAgentField() SessionConfig {
	return SessionConfig{
		Model:                  "m",
		ReasoningEffort:        "high",
		ReasoningSummary:       protocol.ReasoningSummaryConcise,
		ClientName:             "my-app",
		SystemMessage:          "Be brief.",
		SystemMode:             SystemCustomize,
		SystemSections:         map[string]SectionOverride{SectionTone: {Action: SectionReplace, Content: "Be kind."}, SectionSafety: {Transform: keepSection}},
		AdditionalDirectories:  []string{"/more"},
		ConfigDirectory:        "/config",
		BuiltinTools:           []string{"view"},
		ExcludedTools:          []string{"bash"},
		MCPServers:             map[string]MCPServer{"local": {Command: "srv", Args: []string{"-v"}, Env: map[string]string{"K": "V"}, Dir: "/d", Tools: []string{}, Timeout: 1500 * time.Millisecond}, "remote": {URL: "https://mcp", Headers: map[string]string{"A": "b"}, SSE: true}},
		CustomAgents:           []CustomAgent{{Name: "reviewer", Description: "Reviews.", Prompt: "Review.", Tools: []string{"view"}, NoInfer: true, Model: "m2", ReasoningEffort: "low"}},
		Agent:                  "reviewer",
		SkillDirectories:       []string{"/skills"},
		DisabledSkills:         []string{"old"},
		InstructionDirectories: []string{"/instructions"},
		InfiniteSessions:       &InfiniteSessions{BackgroundCompactionThreshold: 0.7},
		Provider:               &protocol.ProviderConfig{Type: protocol.ProviderConfigTypeOpenai, BaseURL: "http://llm", APIKey: "key"},
		GitHubToken:            "gho_x",
		Hooks:                  &Hooks{OnAgentStop: func(context.Context, AgentStopInput) (*AgentStopOutput, error) { return nil, nil }},
		OnElicitation: func(context.Context, *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			return nil, nil
		},
	}
}

// createParams returns what session.create would be sent for cfg, as JSON
// fields.
func createParams(t *testing.T, c *Client, cfg SessionConfig) map[string]json.RawMessage {
	t.Helper()
	_, params, err := c.prepare(testutil.Context(t, hangGuard), cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	return fields
}

// Zero values mean the CLI's defaults: none of the new fields is sent.
func TestCreateParamsLeaveTheCLIDefaults(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	fields := createParams(t, c, SessionConfig{Model: "m"})
	for _, name := range []string{
		"clientName", "reasoningEffort", "reasoningSummary", "systemMessage", "additionalDirectories", "configDir",
		"excludedTools", "toolFilterPrecedence", "mcpServers", "envValueMode", "customAgents", "agent", "skillDirectories",
		"disabledSkills", "instructionDirectories", "infiniteSessions", "provider", "gitHubToken", "hooks", "requestElicitation",
	} {
		if v, ok := fields[name]; ok {
			t.Errorf("%s = %s sent for a zero SessionConfig", name, v)
		}
	}
}

func TestCreateParamsCarryTheAgentFields(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	fields := createParams(t, c, everyAgentField())
	want := map[string]string{
		"clientName":       `"my-app"`,
		"reasoningEffort":  `"high"`,
		"reasoningSummary": `"concise"`,
		"systemMessage": `{"mode":"customize","content":"Be brief.","sections":{` +
			`"safety":{"action":"transform"},"tone":{"action":"replace","content":"Be kind."}}}`,
		"additionalDirectories": `["/more"]`,
		"configDir":             `"/config"`,
		"availableTools":        `["view"]`,
		"excludedTools":         `["bash"]`,
		"toolFilterPrecedence":  `"excluded"`,
		"mcpServers": `{"local":{"type":"stdio","command":"srv","args":["-v"],"env":{"K":"V"},"cwd":"/d","tools":[],"timeout":1500},` +
			`"remote":{"type":"sse","url":"https://mcp","headers":{"A":"b"}}}`,
		"envValueMode":           `"direct"`,
		"customAgents":           `[{"name":"reviewer","description":"Reviews.","tools":["view"],"prompt":"Review.","infer":false,"model":"m2","reasoningEffort":"low"}]`,
		"agent":                  `"reviewer"`,
		"skillDirectories":       `["/skills"]`,
		"disabledSkills":         `["old"]`,
		"instructionDirectories": `["/instructions"]`,
		"infiniteSessions":       `{"backgroundCompactionThreshold":0.7}`,
		"provider":               `{"type":"openai","baseUrl":"http://llm","apiKey":"key"}`,
		"gitHubToken":            `"gho_x"`,
		"hooks":                  `true`,
		"requestElicitation":     `true`,
	}
	for name, w := range want {
		if !jsonEqual(t, fields[name], w) {
			t.Errorf("%s = %s, want %s", name, fields[name], w)
		}
	}
}

// Infinite sessions switched off say so; an MCP server's tools left nil are
// all of them (the field is not sent).
func TestCreateParamsInfiniteSessionsOffAndAllMCPTools(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	fields := createParams(t, c, SessionConfig{Model: "m", InfiniteSessions: &InfiniteSessions{Disabled: true},
		MCPServers: map[string]MCPServer{"s": {URL: "https://mcp"}}, SystemMessage: "x", SystemMode: SystemReplace})
	for name, w := range map[string]string{
		"infiniteSessions": `{"enabled":false}`,
		"mcpServers":       `{"s":{"type":"http","url":"https://mcp"}}`,
		"systemMessage":    `{"mode":"replace","content":"x"}`,
	} {
		if !jsonEqual(t, fields[name], w) {
			t.Errorf("%s = %s, want %s", name, fields[name], w)
		}
	}
}

// A session created with every field works against the simulator, which
// takes the fields it does not know as the CLI does.
func TestNewSessionWithEveryAgentField(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, everyAgentField())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	if got, err := s.Ask(ctx, "hi"); err != nil || got != "echo: hi" {
		t.Fatalf("%q, %v", got, err)
	}
}

func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	if got == nil {
		return false
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(g, w)
}
