package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/quorum"
)

// quorum mcp on the real Copilot CLI, offline: the binary runs in the
// sandbox (its CLI child inherits the namespace) and an MCP client calls
// discuss over its stdio; three calls at once run on its one CLI. These
// tests fail, not skip, when the CLI is missing.
func TestMCPRealCLI(t *testing.T) {
	p := newRealPanel(t)
	cliBin, bin, sb := p.cli, p.bin, p.sb
	ctx, cancel := context.WithTimeout(context.Background(), 2*mcpGuard)
	t.Cleanup(cancel) // after the session's own cleanup: the server stops cleanly, not killed
	cmd := sb.Command(ctx, bin, "mcp", "--cli-path", cliBin, "-m", "alpha,beta,gamma", "--moderator", "beta")
	cmd.Env = p.env(t)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &syncWriter{w: &stderr}
	cs := mcpConnect(t, ctx, cmd)

	res := callTool(t, ctx, cs, "discuss", map[string]any{"topic": goldenTopic})
	if res.IsError || res.Meta["simulated"] != false || res.Meta["status"] != "ok" {
		t.Fatalf("isError %v, meta %v: %s\nstderr: %s", res.IsError, res.Meta, toolText(res), stderr.String())
	}
	var d quorum.DiscussResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Answers) != 3 || len(d.Reviews) != 3 || !d.Ranked || d.Degraded || d.Synthesis == nil || d.Synthesis.Moderator != "beta" ||
		!strings.Contains(d.Synthesis.Conclusion, "synthesis by beta") || !strings.Contains(d.Answers[0].Text, "alpha answers") || d.Usage.InputTokens == 0 {
		t.Errorf("discussion: %+v", d)
	}
	if md := toolText(res); !strings.Contains(md, "alpha answers") || strings.Contains(md, "SIMULATED") {
		t.Errorf("markdown:\n%s", md)
	}

	// Three at once, on the one CLI the first call started.
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 3)
	for i, tool := range []string{"discuss", "plan", "ask"} {
		var args map[string]any
		switch tool {
		case "discuss":
			args = map[string]any{"topic": goldenTopic, "noReview": true}
		case "plan":
			args = map[string]any{"task": goldenTask}
		case "ask":
			args = map[string]any{"question": "Hello?", "model": "gamma"}
		}
		wg.Go(func() { results[i] = callTool(t, ctx, cs, tool, args) })
	}
	wg.Wait()
	for i, r := range results {
		if r.IsError {
			t.Errorf("call %d: %s", i, toolText(r))
		}
	}
	if got := toolText(results[2]); got != "gamma says hello from the local model API." {
		t.Errorf("ask: %q", got)
	}
	// One CLI child served every call (nsenter execs quorum: the pid is
	// the server's).
	kids := children(t, cmd.Process.Pid)
	t.Logf("children of quorum mcp: %v", kids)
	if len(kids) != 1 {
		t.Errorf("children of quorum mcp after four calls: %v, want the one CLI", kids)
	}
}

// syncWriter serialises writes to w: the child's stderr is copied on a
// goroutine of exec's while the test reads it.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// The real CLI as the MCP client: a session of the Copilot CLI given
// quorum mcp --sim as a local stdio MCP server, whose model calls the
// discuss tool.
//
// Offline, CLI 1.0.102 does not load it: it takes its MCP policy from the
// account (/copilot_internal/user, which the local model API answers),
// and for an account without third-party MCP it filters every session MCP
// server out by name before starting it (mcp.list: mcp3pEnabled false,
// the server under filteredServers), so the tool does not exist for the
// model. The test pins that; should a later CLI or setup load the server,
// it checks the whole round trip instead: the tool offered to the model,
// and the quorum's result in the tool result the model gets back.
func TestMCPRealCLIAsClient(t *testing.T) {
	cliBin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the real-CLI tests need the Copilot CLI: %v", err)
	}
	bin := quorumBinary(t)
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		"m": modelapi.ToolThenText("quorum-discuss", `{"topic": "Tabs or spaces?"}`, modelapi.Echo),
	}})
	ctx := testutil.Context(t, 2*mcpGuard)
	c, err := copilot.Start(ctx, copilot.Options{
		CLIPath: cliBin, Env: clitest.OfflineEnv(t, api.URL()), WorkingDir: t.TempDir(),
		Command: func(bin string, args ...string) *exec.Cmd { return sb.Command(context.Background(), bin, args...) },
		Dial:    sb.Dial, Args: []string{"--disable-builtin-mcps"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession(ctx, copilot.SessionConfig{Model: "m", BuiltinTools: copilot.NoBuiltinTools(), Permissions: copilot.ApproveAll,
		MCPServers: map[string]copilot.MCPServer{"quorum": {Command: bin, Args: []string{"mcp", "--sim"}, Env: map[string]string{"HOME": t.TempDir()}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	l, err := s.RPC().MCP.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(l)
	var list struct {
		Servers []struct{ Name string }
		Host    struct {
			MCP3pEnabled    bool     `json:"mcp3pEnabled"`
			FilteredServers []string `json:"filteredServers"`
		}
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	loaded := false
	for _, sv := range list.Servers {
		loaded = loaded || sv.Name == "quorum"
	}
	r, err := s.Stream(ctx, "Consult the quorum.", copilot.TurnHandlers{})
	if err != nil {
		t.Fatal(err)
	}
	if !loaded {
		if list.Host.MCP3pEnabled || !slices.Contains(list.Host.FilteredServers, "quorum") || !strings.Contains(r.Text, "Tool 'quorum-discuss' does not exist") {
			t.Fatalf("the CLI neither loaded quorum mcp nor filtered it by the account's policy: mcp.list %s, reply %q", raw, r.Text)
		}
		return
	}
	var got string
	for _, req := range api.Requests() {
		for _, m := range req.ToolResults() {
			got += m.Content
		}
	}
	if !strings.Contains(got, "[simulated sim-") || !strings.Contains(got, "Tabs or spaces?") {
		t.Errorf("the discuss tool's result did not reach the model: %q", got)
	}
}
