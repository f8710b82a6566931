package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/internal/cli/ask"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/mcpserver"
	"github.com/quorum-go/quorum/quorum"
)

// mcpGuard bounds every wait of the quorum mcp tests (a hang guard, not a
// timing assertion).
const mcpGuard = 90 * time.Second

// mcpConnect connects an MCP client to cmd over its stdio (the SDK's
// CommandTransport, which starts it). Closing the session ends it.
func mcpConnect(t *testing.T, ctx context.Context, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "quorum-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", cmd, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// keys are the top-level fields of a JSON object.
func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// The built binary over stdio, on the simulator: the tools and their
// schemas; every tool called, each result's structured content in the
// shape of the command's -o json result; nothing but the protocol on
// stdout; a clean exit when the client leaves.
func TestMCPBinary(t *testing.T) {
	bin := quorumBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), mcpGuard)
	t.Cleanup(cancel) // after the session's own cleanup: the server stops cleanly, not killed
	env := cleanEnv(t)
	cmd := exec.Command(bin, "mcp", "--sim")
	cmd.Env, cmd.Dir = env, t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs := mcpConnect(t, ctx, cmd)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		in, _ := json.Marshal(tool.InputSchema)
		if tool.OutputSchema == nil || !tool.Annotations.ReadOnlyHint || (tool.Name != "models" && !strings.Contains(string(in), `"description"`)) {
			t.Errorf("%s: input %s, output %v, annotations %+v", tool.Name, in, tool.OutputSchema != nil, tool.Annotations)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"ask", "debate", "discuss", "models", "plan", "review"}) {
		t.Fatalf("tools %v", names)
	}

	// The -o json result of each command, to compare shapes with.
	cli := func(args ...string) any {
		c := exec.CommandContext(ctx, bin, args...)
		c.Env, c.Dir = env, t.TempDir()
		r := runBinary(t, c)
		if r.code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		var out struct{ Result any }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		return out.Result
	}
	diff, err := os.ReadFile(goldenDiff)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"discuss", map[string]any{"topic": goldenTopic}, []string{"discuss", "--sim", "-q", "-o", "json", goldenTopic}},
		{"plan", map[string]any{"task": goldenTask}, []string{"plan", "--sim", "-q", "-o", "json", goldenTask}},
		{"debate", map[string]any{"claim": goldenClaim, "rounds": 1}, []string{"debate", "--sim", "-q", "-o", "json", "--rounds", "1", goldenClaim}},
		{"review", map[string]any{"diff": string(diff)}, nil},
		{"ask", map[string]any{"question": "What is a goroutine?"}, []string{"ask", "--sim", "-o", "json", "What is a goroutine?"}},
		{"models", map[string]any{}, []string{"models", "--sim", "-o", "json"}},
	} {
		res := callTool(t, ctx, cs, c.tool, c.args)
		if res.IsError || res.Meta["status"] != "ok" || res.Meta["simulated"] != true || toolText(res) == "" {
			t.Errorf("%s: isError %v, meta %v: %s", c.tool, res.IsError, res.Meta, toolText(res))
			continue
		}
		if c.cli != nil {
			if got, want := keys(t, res.StructuredContent), keys(t, cli(c.cli...)); !slices.Equal(got, want) {
				t.Errorf("%s: structured content has fields %v, quorum %s -o json's result %v", c.tool, got, c.tool, want)
			}
		}
	}
	cs.Close()
	if err := cmd.Wait(); err != nil && !errors.Is(err, os.ErrClosed) && cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("quorum mcp ended with %v; stderr:\n%s", err, stderr.String())
	}
	if strings.ContainsRune(stderr.String(), 0x1b) {
		t.Errorf("escape sequences in the log: %q", stderr.String())
	}
}

// The JSON shape of ask is internal/cli's and mcpserver's both: the same
// fields, so that -o json and the MCP result never drift (models's is
// checked in its package).
func TestMCPResultShapes(t *testing.T) {
	for _, c := range []struct{ cli, mcp any }{
		{ask.Result{}, mcpserver.AskResult{}},
	} {
		a, _ := json.Marshal(c.cli)
		b, _ := json.Marshal(c.mcp)
		if string(a) != string(b) {
			t.Errorf("-o json: %s\nMCP:      %s", a, b)
		}
	}
}

// buildSim builds the simulator program (it takes the real CLI's flags)
// into dir.
func buildSim(tb testing.TB) string { return buildInto(tb, "copilot-sim", "cmd/copilot-sim") }

// buildInto builds the module's package pkg as a program named name in a
// temporary directory, with -race when the tests run with it.
func buildInto(tb testing.TB, name, pkg string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), name)
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, "github.com/quorum-go/quorum/"+pkg)...).CombinedOutput(); err != nil {
		tb.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// children lists the processes whose parent is pid, by their /proc stat.
func children(t testing.TB, pid int) map[int]string {
	t.Helper()
	out := map[int]string{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces, so read after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 {
			if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
				out[child] = s[strings.IndexByte(s, '(')+1 : i]
			}
		}
	}
	return out
}

// alive reports whether pid is a process that has not been reaped.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Three calls at once on the built binary, with a CLI child (the
// simulator program in the CLI's place): one child serves them all. Then
// a client that disconnects mid-call: the server exits, and its child is
// gone.
func TestMCPBinaryOneChild(t *testing.T) {
	bin, simBin := quorumBinary(t), buildSim(t)
	ctx, cancel := context.WithTimeout(context.Background(), mcpGuard)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--cli-path", simBin, "--cli-args", "--sim-pace 20ms")
	cmd.Env, cmd.Dir = cleanEnv(t), t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-waited:
		case <-time.After(mcpGuard):
			cmd.Process.Kill()
			<-waited
		}
	})
	progress := make(chan string, 100)
	client := mcp.NewClient(&mcp.Implementation{Name: "quorum-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- r.Params.Message:
			default:
			}
		}})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if kids := children(t, cmd.Process.Pid); len(kids) != 0 {
		t.Errorf("a CLI started before any call: %v", kids)
	}
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 3)
	for i, model := range []string{"sim-alpha", "sim-beta", "sim-gamma"} {
		wg.Go(func() {
			results[i] = callTool(t, ctx, cs, "ask", map[string]any{"question": "Which is best?", "model": model})
		})
	}
	wg.Wait()
	for i, res := range results {
		if res == nil || res.IsError {
			t.Fatalf("call %d failed: %s\n%s", i, toolText(res), stderr.String())
		}
	}
	kids := children(t, cmd.Process.Pid)
	var sims []int
	for pid, comm := range kids {
		if strings.HasPrefix(comm, "copilot-sim") {
			sims = append(sims, pid)
		}
	}
	if len(sims) != 1 {
		t.Fatalf("CLI children after three calls at once: %v, want one", kids)
	}

	// The CLI killed mid-call: the call fails with a tool error that says
	// so, and the next call runs on a new child.
	crashed := make(chan *mcp.CallToolResult, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "debate", Arguments: map[string]any{"claim": "crash", "models": []string{"sim-alpha", "sim-beta"}, "rounds": 10}}
		p.SetProgressToken("crash")
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		crashed <- res
	}()
	select {
	case <-progress:
	case <-time.After(mcpGuard):
		t.Fatal("no progress from the debate")
	}
	if err := syscall.Kill(sims[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-crashed:
		if !res.IsError || !strings.Contains(toolText(res), "the Copilot CLI stopped during the call") {
			t.Errorf("the call on the killed CLI: isError %v: %s", res.IsError, toolText(res))
		}
	case <-time.After(mcpGuard):
		t.Fatal("the call on the killed CLI did not return")
	}
	if res := callTool(t, ctx, cs, "ask", map[string]any{"question": "Still there?"}); res.IsError {
		t.Fatalf("after the crash: %s\n%s", toolText(res), stderr.String())
	}
	killed := sims[0]
	sims = sims[:0]
	for pid, comm := range children(t, cmd.Process.Pid) {
		if strings.HasPrefix(comm, "copilot-sim") {
			sims = append(sims, pid)
		}
	}
	if len(sims) != 1 || !alive(sims[0]) || sims[0] == killed {
		t.Fatalf("CLI children after the restart: %v", sims)
	}
	for len(progress) > 0 { // the crashed call's, if any came late
		<-progress
	}

	// A long call, and the client gone once its first phase has started.
	go func() {
		p := &mcp.CallToolParams{Name: "debate", Arguments: map[string]any{"claim": "long", "models": []string{"sim-alpha", "sim-beta"}, "rounds": 10}}
		p.SetProgressToken("debate")
		cs.CallTool(ctx, p)
	}()
	select {
	case msg := <-progress:
		if !strings.HasPrefix(msg, "opening phase started") {
			t.Errorf("first progress: %q", msg)
		}
	case <-time.After(mcpGuard):
		t.Fatal("no progress from the debate")
	}
	stdin.Close() // the client dies: the server reads the end of its input
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("quorum mcp ended with %v; stderr:\n%s", err, stderr.String())
		}
		waited <- err // for the cleanup
	case <-time.After(mcpGuard):
		t.Fatalf("quorum mcp did not exit after its client left; stderr:\n%s", stderr.String())
	}
	if alive(sims[0]) {
		t.Errorf("the CLI child %d outlived quorum mcp", sims[0])
	}
	cs.Close()
}

// The quorum stays one shape: the mcp command's flags are settings, and
// its defaults reach the tools' schemas.
func TestMCPCommandDefaults(t *testing.T) {
	bin := quorumBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), mcpGuard)
	t.Cleanup(cancel) // after the session's own cleanup: the server stops cleanly, not killed
	cmd := exec.Command(bin, "mcp", "--sim", "-m", "sim-beta,sim-gamma", "--timeout", "90s", "-j", "2")
	cmd.Env, cmd.Dir = append(cleanEnv(t), "QUORUM_ROUNDS=4"), t.TempDir()
	cs := mcpConnect(t, ctx, cmd)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		in, _ := json.Marshal(tool.InputSchema)
		switch tool.Name {
		case "debate":
			for _, want := range []string{`"default":["sim-beta","sim-gamma"]`, `"default":90`, `"default":4`} {
				if !strings.Contains(string(in), want) {
					t.Errorf("debate's input schema lacks %s: %s", want, in)
				}
			}
		}
	}
	res := callTool(t, ctx, cs, "discuss", map[string]any{"topic": goldenTopic, "noReview": true})
	var d quorum.DiscussResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &d); err != nil || !slices.Equal(d.Models, []string{"sim-beta", "sim-gamma"}) {
		t.Errorf("%v: models %v", err, d.Models)
	}
}

// --http refuses an address other machines can reach without
// --allow-remote, as a usage error.
func TestMCPHTTPRefusesRemote(t *testing.T) {
	r := runBinary(t, func() *exec.Cmd {
		c := exec.Command(quorumBinary(t), "mcp", "--sim", "--http", "0.0.0.0:0")
		c.Env, c.Dir = cleanEnv(t), t.TempDir()
		return c
	}())
	if r.code != cmdutil.ExitUsage || !strings.Contains(r.stderr, "--allow-remote") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// BenchmarkMCPCalls runs n discussions at once through the built binary,
// whose CLI child is the simulator program (30 ms a streamed chunk), and
// reports the wall time of n at once against one alone (x-one), the CLI
// children the server had (one for all) and its peak resident memory
// (peak-rss-MB: with n calls in flight, as no other work runs).
//
//	go test -run X -bench MCPCalls ./internal/cli
func BenchmarkMCPCalls(b *testing.B) {
	bin, simBin := buildInto(b, "quorum", "cmd/quorum"), buildSim(b)
	for _, n := range []int{1, 3, 30} {
		b.Run("calls="+strconv.Itoa(n), func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*mcpGuard)
			defer cancel()
			cmd := exec.Command(bin, "mcp", "--cli-path", simBin, "--cli-args", "--sim-pace 30ms", "-j", "64")
			cmd.Env, cmd.Dir = append(os.Environ(), "HOME="+b.TempDir(), "XDG_CONFIG_HOME="+b.TempDir()), b.TempDir()
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			batch := func(n int) time.Duration {
				start := time.Now()
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "discuss", Arguments: map[string]any{"topic": "Should we shard the database? " + strconv.Itoa(i)}})
						if err != nil || res.IsError {
							b.Errorf("call %d: %v %v", i, err, res)
						}
					})
				}
				wg.Wait()
				return time.Since(start)
			}
			batch(1) // starts the CLI, too: a warm-up, not measured
			one := batch(1)
			b.ResetTimer()
			var total time.Duration
			for range b.N {
				total += batch(n)
			}
			b.StopTimer()
			b.ReportMetric(float64(total)/float64(b.N)/float64(one), "x-one")
			kids := 0
			for _, comm := range children(b, cmd.Process.Pid) {
				if strings.HasPrefix(comm, "copilot-sim") {
					kids++
				}
			}
			b.ReportMetric(float64(kids), "cli-children")
			b.ReportMetric(float64(peakRSS(b, cmd.Process.Pid))/1024, "peak-rss-MB")
		})
	}
}

// peakRSS is a process's peak resident set (VmHWM), in KiB.
func peakRSS(tb testing.TB, pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	tb.Fatal("no VmHWM")
	return 0
}
