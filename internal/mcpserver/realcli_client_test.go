package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	bin := buildQuorum(t)
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
	// The CLI's built-in tools stay on: NoBuiltinTools sends an empty
	// availableTools, which filters MCP tools out too (CLI 1.0.102).
	s, err := c.NewSession(ctx, copilot.SessionConfig{Model: "m", Permissions: copilot.ApproveAll,
		MCPServers: map[string]copilot.MCPServer{"quorum": {Command: bin, Args: []string{"mcp", "--sim"}, Env: map[string]string{"HOME": t.TempDir()}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)

	// The CLI starts a session's MCP servers in the background: the turn
	// is sent once quorum mcp has connected, so that its tools are offered.
	awaitMCPServer(ctx, t, s, "quorum")

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

// awaitMCPServer waits until the session's MCP server name is connected,
// and fails the test if the CLI filtered it out (the account's policy),
// could not start it, or ctx ends first.
func awaitMCPServer(ctx context.Context, t *testing.T, s *copilot.Session, name string) {
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
			t.Fatalf("the CLI filtered %s out although the account allows MCP: mcp.list %s", name, raw)
		}
		for _, sv := range list.Servers {
			switch {
			case sv.Name != name:
			case sv.Status == "connected":
				return
			case sv.Status != "pending":
				t.Fatalf("the CLI could not start %s (status %s: %s): mcp.list %s", name, sv.Status, sv.Error, raw)
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s did not connect: mcp.list %s", name, raw)
		case <-time.After(50 * time.Millisecond): // the CLI says nothing when it connects: look again
		}
	}
}

// buildQuorum builds cmd/quorum into the test's temporary folder.
func buildQuorum(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building cmd/quorum needs the go command: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "quorum")
	cmd := exec.Command(goBin, "build", "-o", bin, "github.com/quorum-go/quorum/cmd/quorum")
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/quorum: %v\n%s", err, out)
	}
	return bin
}
