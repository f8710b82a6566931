package cli

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
