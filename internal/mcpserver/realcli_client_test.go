package mcpserver

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// The real Copilot CLI as quorum mcp's client, as a user runs it: a
// session given `quorum mcp --sim` as a local stdio MCP server, under an
// account whose policy allows MCP servers (as users' do; the local model
// API serves one, modelapi.Config.MCPEnabled). The CLI loads the server,
// offers its tools to its model, calls quorum-discuss when the model asks,
// and hands the model the quorum's synthesis as the tool's result; the
// turn ends normally. A change that breaks any step fails here. It fails,
// not skips, when the CLI is missing.
func TestRealCLICallsQuorumMCPDiscuss(t *testing.T) {
	cliBin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the real-CLI tests need the Copilot CLI: %v", err)
	}
	bin := testutil.GoBuild(t, "github.com/quorum-go/quorum/cmd/quorum")
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{MCPEnabled: true, Models: map[string]modelapi.Responder{
		"m": modelapi.ToolThenText("quorum-discuss", `{"topic": "Tabs or spaces?"}`, modelapi.Echo),
	}})
	ctx := testutil.Context(t, 2*guard)
	c, err := copilot.Start(ctx, copilot.Options{
		CLIPath: cliBin, Env: clitest.OfflineEnv(t, api.URL()), WorkingDir: t.TempDir(),
		Command: func(bin string, args ...string) *exec.Cmd { return sb.Command(context.Background(), bin, args...) },
		Dial:    sb.Dial, Args: []string{"--disable-builtin-mcps"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := newSessionWithMCPServer(ctx, t, c, api, copilot.SessionConfig{Model: "m", Permissions: copilot.ApproveAll,
		MCPServers: map[string]copilot.MCPServer{"quorum": {Command: bin, Args: []string{"mcp", "--sim"}, Env: map[string]string{"HOME": t.TempDir()}}}})
	defer s.Destroy(ctx)

	r, err := s.Stream(ctx, "Consult the quorum.", copilot.TurnHandlers{})
	if err != nil {
		t.Fatalf("the turn that calls quorum-discuss: %v", err)
	}
	if r.ToolCalls != 0 {
		t.Errorf("the turn counted %d client tool calls; quorum-discuss is the CLI's MCP call, not a client tool", r.ToolCalls)
	}

	offered, got := false, ""
	for _, req := range api.Requests() {
		for _, tool := range req.Tools {
			offered = offered || tool.Name == "quorum-discuss"
		}
		for _, m := range req.ToolResults() {
			got += m.Content
		}
	}
	if !offered {
		t.Error("the CLI did not offer quorum-discuss to its model")
	}
	// quorum mcp --sim runs the discussion on simulated models, whose
	// answers name them and the topic: the synthesis carries both.
	if !strings.Contains(got, "[simulated sim-") || !strings.Contains(got, "Tabs or spaces?") {
		t.Fatalf("the discuss tool's synthesis did not reach the model in its tool result: %q", got)
	}
	if !strings.Contains(r.Text, "[simulated sim-") {
		t.Errorf("the model's answer after the tool result (it echoes what it was given) lacks the synthesis: %q", r.Text)
	}
}

// newSessionWithMCPServer creates a session with cfg's one MCP server and
// returns it once that server has connected. The CLI reads the account's MCP
// policy (GET /copilot_internal/user) in the background after it starts, and
// a session created before the answer has arrived has third-party MCP
// servers filtered out for good (CLI 1.0.102; seen on a loaded machine). So
// the session is created once the API has served the account, and a session
// that still saw no policy is replaced by a new one: each try waits on what
// the CLI reports, never on a clock, and ctx bounds them all.
// The CLI's built-in tools stay on in cfg: NoBuiltinTools sends an empty
// availableTools, which filters MCP tools out too (CLI 1.0.102).
func newSessionWithMCPServer(ctx context.Context, t *testing.T, c *copilot.Client, api *modelapi.Server, cfg copilot.SessionConfig) *copilot.Session {
	t.Helper()
	if len(cfg.MCPServers) != 1 {
		t.Fatalf("newSessionWithMCPServer takes one MCP server, got %d", len(cfg.MCPServers))
	}
	var name string
	for name = range cfg.MCPServers {
	}
	for !slices.Contains(api.Calls(), "GET /copilot_internal/user") {
		if !pause(ctx) {
			t.Fatalf("the CLI never asked the model API for the account (calls: %v)", api.Calls())
		}
	}
	const tries = 3
	for try := 1; ; try++ {
		s, err := c.NewSession(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if awaitMCPServer(ctx, t, s, name) {
			return s
		}
		if try == tries {
			t.Fatalf("the CLI filtered %s out of %d sessions although the account allows MCP", name, tries)
		}
		t.Logf("the session was created before the CLI applied the account's MCP policy; creating another")
		if err := s.Destroy(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// awaitMCPServer waits until the session's MCP server name is connected and
// reports true; it reports false if the CLI filtered the server out (the
// session saw no account policy allowing MCP), and fails the test if the
// CLI could not start it or ctx ends first.
func awaitMCPServer(ctx context.Context, t *testing.T, s *copilot.Session, name string) bool {
	t.Helper()
	for {
		l, err := s.RPC().MCP.List(ctx)
		if err != nil {
			t.Fatalf("mcp.list while waiting for %s to connect: %v", name, err)
		}
		raw, _ := json.Marshal(l)
		var list struct {
			Servers []struct{ Name, Status, Error string }
			Host    struct {
				MCP3pEnabled    bool     `json:"mcp3pEnabled"`
				FilteredServers []string `json:"filteredServers"`
			}
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		if !list.Host.MCP3pEnabled || slices.Contains(list.Host.FilteredServers, name) {
			t.Logf("the CLI filtered %s out: mcp.list %s", name, raw)
			return false
		}
		for _, sv := range list.Servers {
			switch {
			case sv.Name != name:
			case sv.Status == "connected":
				return true
			case sv.Status != "pending":
				t.Fatalf("the CLI could not start %s (status %s: %s): mcp.list %s", name, sv.Status, sv.Error, raw)
			}
		}
		if !pause(ctx) {
			t.Fatalf("%s did not connect: mcp.list %s", name, raw)
		}
	}
}

// pause waits a moment before the CLI is asked again (it says nothing when
// a server connects or the account arrives) and reports false once ctx has
// ended.
func pause(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(50 * time.Millisecond):
		return true
	}
}
