package copilot

// Real-CLI conformance, continued from conformance_parity_test.go (whose
// header says what is not exercised, and why): the session's directories and
// custom agents, forms, plan mode, MCP configuration, extra parameters.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Skill, instruction and additional directories reach the system prompt;
// custom agents are offered to the main agent, and the selected one runs
// the turn with its prompt.
func TestRealCLIDirectoriesAndCustomAgents(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	dir := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "skills", "haiku", "SKILL.md"), "---\nname: haiku\ndescription: Writes answers as haiku (skill-marker-7)\n---\n\nFive, seven, five.\n")
	write(filepath.Join(dir, "instructions", ".github", "instructions", "house.instructions.md"), "House rule: end with instruction-marker-9.")
	extra := filepath.Join(dir, "extra-dir-marker-3")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := SessionConfig{
		Model:                  "m",
		SkillDirectories:       []string{filepath.Join(dir, "skills")},
		InstructionDirectories: []string{filepath.Join(dir, "instructions")},
		AdditionalDirectories:  []string{extra},
		CustomAgents:           []CustomAgent{{Name: "reviewer", Description: "Reviews changes (agent-description-marker-5)", Prompt: "You review code (agent-prompt-marker-6)."}},
		InfiniteSessions:       &InfiniteSessions{BackgroundCompactionThreshold: 0.6, BufferExhaustionThreshold: 0.9},
	}
	for _, agent := range []string{"", "reviewer"} {
		t.Run("agent="+agent, func(t *testing.T) {
			cfg.Agent = agent
			s, req := oneTurn(t, c, api, cfg, "hi")
			all, _ := json.Marshal(req.Messages)
			for _, marker := range []string{"skill-marker-7", "instruction-marker-9", "extra-dir-marker-3"} {
				if !strings.Contains(string(all), marker) {
					t.Errorf("%s did not reach the model", marker)
				}
			}
			var offered bool
			for _, tl := range req.Tools {
				offered = offered || strings.Contains(tl.Description, "agent-description-marker-5")
			}
			if !offered {
				t.Errorf("the custom agent was not offered in any tool's description")
			}
			if selected := strings.Contains(string(all), "agent-prompt-marker-6"); selected != (agent != "") {
				t.Errorf("the agent's prompt reached the model: %v, with Agent %q", selected, agent)
			}
			cur, err := s.RPC().Agent.GetCurrent(ctx)
			if err != nil || cur.Agent.Name != agent {
				t.Errorf("agent.getCurrent = %+v, %v; want %q", cur, err, agent)
			}
		})
	}
}

// A form asked of the session (session.ui.elicitation, as an MCP tool asks)
// reaches OnElicitation, and its answer reaches the asker; a handler that
// fails cancels the form.
func TestRealCLIElicitation(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var fail atomic.Bool
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		OnElicitation: func(_ context.Context, d *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			if fail.Load() {
				return nil, errors.New("no one at the keyboard")
			}
			if d.Message != "Which database?" || d.RequestedSchema == nil || d.RequestedSchema.Properties["db"] == nil {
				t.Errorf("the handler got %+v", d)
			}
			return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionAccept,
				Content: protocol.UIElicitationResponseContent{"db": json.RawMessage(`"postgres"`)}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	ask := protocol.SessionUIElicitationParams{Message: "Which database?", RequestedSchema: protocol.UIElicitationSchema{
		Type: "object", Properties: map[string]protocol.UIElicitationSchemaProperty{"db": {Type: json.RawMessage(`"string"`)}}}}
	res, err := s.RPC().UI.Elicitation(ctx, ask)
	if err != nil || res.Action != protocol.UIElicitationResponseActionAccept || string(res.Content["db"]) != `"postgres"` {
		t.Fatalf("elicitation answered %+v, %v", res, err)
	}
	fail.Store(true)
	if res, err = s.RPC().UI.Elicitation(ctx, ask); err != nil || res.Action != protocol.UIElicitationResponseActionCancel {
		t.Fatalf("a failing handler answered %+v, %v; want cancel", res, err)
	}
}

// In plan mode the agent asks to leave it with exit_plan_mode; the CLI
// sends exitPlanMode.request (beside an exit_plan_mode.requested event
// for observers), which Handlers.ExitPlanModeRequest answers, and the model
// learns the answer.
func TestRealCLIExitPlanMode(t *testing.T) {
	respond := func(req modelapi.Request) modelapi.Reply {
		if req.HasToolResults {
			return modelapi.Text("after review: " + req.ToolResults()[0].Content)
		}
		return modelapi.ToolCall("exit_plan_mode", `{"summary":"Add a cache","actions":["interactive","autopilot"],"recommendedAction":"interactive"}`)
	}
	c, _ := startReal(t, map[string]modelapi.Responder{"m": respond}, Options{})
	ctx := testutil.Context(t, hangGuard)
	asked := make(chan *protocol.ExitPlanModeRequestParams, 1)
	cfg := SessionConfig{Model: "m", Permissions: ApproveAll}
	cfg.Handlers.ExitPlanModeRequest = func(_ context.Context, p *protocol.ExitPlanModeRequestParams) (*protocol.ExitPlanModeResponse, error) {
		asked <- p
		return &protocol.ExitPlanModeResponse{Approved: false, Feedback: "Use a smaller cache."}, nil
	}
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	if _, err := s.RPC().Mode.Set(ctx, protocol.SessionModeSetParams{Mode: protocol.SessionModePlan}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Stream(ctx, "plan a cache", TurnHandlers{})
	if err != nil {
		t.Fatal(err)
	}
	p := testutil.Receive(t, "exitPlanMode.request", hangGuard, asked)
	if p.Summary != "Add a cache" || p.SessionID != s.ID() {
		t.Errorf("the handler got %+v", p)
	}
	if !strings.Contains(r.Text, "Use a smaller cache.") {
		t.Errorf("the feedback did not reach the model: %q", r.Text)
	}
}

// The CLI reads a session's MCP servers: the offline account's policy
// (third-party MCP off) then filters the server out, by the name given.
func TestRealCLIMCPServerReachesTheCLI(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpecho")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpecho").CombinedOutput(); err != nil {
		t.Fatalf("building the test MCP server: %v\n%s", err, out)
	}
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", MCPServers: map[string]MCPServer{
		"echo-server": {Command: bin, Env: map[string]string{"MCPECHO": "1"}, Tools: []string{"shout"}, Timeout: 5 * time.Second},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	l, err := s.RPC().MCP.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(l)
	if !strings.Contains(string(raw), `"echo-server"`) {
		t.Errorf("mcp.list does not name the configured server: %s", raw)
	}
}

// ExtraParams reach what the CLI reads from session.create beyond the
// typed fields: organizationCustomInstructions lands in the system prompt
// the model gets.
func TestRealCLIExtraParams(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	const marker = "Always sign replies as the Lighthouse Guild (org rule 7)."
	_, req := oneTurn(t, c, api, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		ExtraParams: map[string]any{"organizationCustomInstructions": marker}}, "hello")
	if got := systemPrompt(req); !strings.Contains(got, marker) {
		t.Fatalf("the organization's instructions are not in the system prompt: %.400q", got)
	}
	_, req = oneTurn(t, c, api, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()}, "hello")
	if got := systemPrompt(req); strings.Contains(got, marker) {
		t.Fatal("the instructions reached a session that did not send them")
	}
}
