package copilot

// Conformance tests: the real Copilot CLI (the pinned @github/copilot),
// started as a child, offline, in a private network namespace where the
// machine allows one, against a local model API the test scripts. They fail
// (never skip) when the CLI is not installed: .ci/test.sh installs it.

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// startReal starts the real CLI against a model API serving models.
func startReal(t *testing.T, models map[string]modelapi.Responder, o Options) (*Client, *modelapi.Server) {
	t.Helper()
	return startRealAPI(t, modelapi.Config{Models: models}, o)
}

// startRealAPI starts the real CLI against a model API configured by cfg.
func startRealAPI(t *testing.T, cfg modelapi.Config, o Options) (*Client, *modelapi.Server) {
	t.Helper()
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the conformance tests need the real Copilot CLI: %v", err)
	}
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, cfg)
	o.CLIPath = bin
	o.Env = clitest.OfflineEnv(t, api.URL())
	o.WorkingDir = t.TempDir()
	o.Command = func(bin string, args ...string) *exec.Cmd { return sb.Command(context.Background(), bin, args...) }
	o.Dial = sb.Dial
	// The built-in GitHub MCP server only slows start-up offline.
	o.Args = append(o.Args, "--disable-builtin-mcps")
	c, err := Start(testutil.Context(t, hangGuard), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, api
}

func TestRealCLIHandshakeModelsAndTurn(t *testing.T) {
	for _, tr := range []Transport{Stdio, TCP} {
		t.Run(tr.String(), func(t *testing.T) {
			c, _ := startReal(t, map[string]modelapi.Responder{
				"alpha": modelapi.Fixed(modelapi.Text("Hello from alpha, over " + tr.String()).WithChunks(4)),
				"beta":  modelapi.Echo,
			}, Options{Transport: tr})
			ctx := testutil.Context(t, hangGuard)
			if info := c.Info(); info.ProtocolVersion != 3 || info.Version != clitest.Version {
				t.Errorf("handshake = %+v", info)
			}
			ms, err := c.Models(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, m := range ms {
				ids[m.ID] = true
			}
			if !ids["alpha"] || !ids["beta"] {
				t.Fatalf("models.list = %v, want alpha and beta", ids)
			}
			if err := c.RequireAuth(ctx); err != nil {
				t.Fatal(err)
			}
			s, err := c.NewSession(ctx, SessionConfig{Model: "alpha", BuiltinTools: NoBuiltinTools()})
			if err != nil {
				t.Fatal(err)
			}
			var deltas int
			r, err := s.Stream(ctx, "hi", TurnHandlers{OnDelta: func(string) { deltas++ }})
			if err != nil || r.Text != "Hello from alpha, over "+tr.String() || deltas != 4 {
				t.Fatalf("%q (%d deltas) %v", r.Text, deltas, err)
			}
			if r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
				t.Errorf("usage not reported: %+v", r.Usage)
			}
		})
	}
}

// Eight sessions on eight models stream interleaved turns over one
// connection; each gets exactly its own text, and session.start, with
// client-chosen ids.
func TestRealCLIEightConcurrentSessions(t *testing.T) {
	const n = 8
	models := map[string]modelapi.Responder{}
	for i := 0; i < n; i++ {
		id := fmt.Sprint("model-", i)
		models[id] = func(req modelapi.Request) modelapi.Reply {
			text := strings.Repeat(fmt.Sprintf("%s answers %q. ", req.Model, req.UserText), 6)
			return modelapi.Text(text).WithChunks(12).WithChunkDelay(5 * time.Millisecond)
		}
	}
	c, api := startReal(t, models, Options{})
	ctx := testutil.Context(t, hangGuard)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprint("model-", i)
			var seen eventTypes
			s, err := c.NewSession(ctx, SessionConfig{Model: id, BuiltinTools: NoBuiltinTools(), OnEvent: seen.on})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Destroy(context.Background())
			var streamed strings.Builder
			prompt := fmt.Sprint("question ", i)
			r, err := s.Stream(ctx, prompt, TurnHandlers{
				OnDelta: func(d string) { streamed.WriteString(d) },
			})
			want := strings.Repeat(fmt.Sprintf("%s answers %q. ", id, prompt), 6)
			if err != nil || r.Text != want || streamed.String() != want {
				t.Errorf("%s: %v; got %.80q", id, err, r.Text)
			}
			if first := seen.first(); first != protocol.EventSessionStart {
				t.Errorf("%s: first event %q, want session.start", id, first)
			}
		}(i)
	}
	wg.Wait()
	if got := len(api.Requests()); got < n {
		t.Errorf("the model API saw %d chat requests, want at least %d", got, n)
	}
	// (DroppedUnknown is not zero: the CLI's session.shutdown and friends
	// arrive after Destroy has deregistered the session, by design.)
	if s := c.Router().Stats(); s.FellBehind != 0 || s.DroppedRefused != 0 || s.Malformed != 0 {
		t.Errorf("router stats %+v", s)
	}
}

// A client tool with the permission flow, and two sessions calling tools
// at the same time.
func TestRealCLIToolsWithPermission(t *testing.T) {
	after := func(req modelapi.Request) modelapi.Reply {
		return modelapi.Text("The tool said: " + req.ToolResults()[0].Content)
	}
	c, api := startReal(t, map[string]modelapi.Responder{
		"tooler-a": modelapi.ToolThenText("lookup", `{"q":"weather in Oslo"}`, after),
		"tooler-b": modelapi.ToolThenText("lookup", `{"q":"weather in Lima"}`, after),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var mu sync.Mutex
	var asked []PermissionRequest
	lookup := Tool{
		Name:        "lookup",
		Description: "Looks things up",
		Parameters:  []byte(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		Handler: func(_ context.Context, call ToolCall) (string, error) {
			return "sunny for " + string(call.Arguments), nil
		},
	}
	policy := func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
		mu.Lock()
		asked = append(asked, r)
		mu.Unlock()
		return ApproveOnce(), nil
	}
	var wg sync.WaitGroup
	for _, m := range []string{"tooler-a", "tooler-b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.NewSession(ctx, SessionConfig{Model: m, BuiltinTools: NoBuiltinTools(),
				Tools: []Tool{lookup}, Permissions: policy})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Destroy(context.Background())
			r, err := s.Stream(ctx, "what is the weather?", TurnHandlers{})
			city := map[string]string{"tooler-a": "Oslo", "tooler-b": "Lima"}[m]
			if err != nil || !strings.Contains(r.Text, "The tool said: sunny for") || !strings.Contains(r.Text, city) || r.ToolCalls != 1 {
				t.Errorf("%s: %q %v (%d tool calls)", m, r.Text, err, r.ToolCalls)
			}
		}()
	}
	wg.Wait()
	if len(asked) != 2 || asked[0].ToolName != "lookup" || asked[0].Kind != "custom-tool" {
		t.Errorf("permission requests = %+v", asked)
	}
	for _, req := range api.Requests() {
		if len(req.Tools) != 1 || req.Tools[0].Name != "lookup" {
			t.Errorf("the model was offered %v, want only the client tool", req.Tools)
			break
		}
	}
}

// A refused permission ends the turn (CLI 1.0.102) with ErrPermissionDenied.
func TestRealCLIPermissionDenied(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{
		"m": modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var ran bool
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Tools: []Tool{{
		Name: "lookup", Handler: func(context.Context, ToolCall) (string, error) { ran = true; return "", nil },
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Ask(ctx, "go")
	if !errors.Is(err, ErrPermissionDenied) || ran {
		t.Fatalf("err = %v, handler ran = %v", err, ran)
	}
}

// Abort mid-turn, destroy, and a model API error as session.error.
func TestRealCLIAbortDestroyAndModelError(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{
		"staller": modelapi.Sequence(modelapi.Text("thinking about it").WithStall(), modelapi.Text("recovered")),
		"broken":  modelapi.Fixed(modelapi.Error(400, `{"error":{"message":"scripted bad request"}}`)),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)

	s, err := c.NewSession(ctx, SessionConfig{Model: "staller", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	turnCtx, cancel := context.WithCancel(ctx)
	var once sync.Once
	_, err = s.Stream(turnCtx, "take your time", TurnHandlers{OnDelta: func(string) { once.Do(cancel) }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("aborted turn: %v", err)
	}
	// The abort reached the CLI: the stalled model request is dropped, and
	// the session answers its next turn.
	if a, err := s.Ask(ctx, "again"); err != nil || a != "recovered" {
		t.Fatalf("after abort: %q %v", a, err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	err = c.Router().Call(ctx, protocol.MethodSessionSend, protocol.SessionSendParams{SessionID: s.ID(), Prompt: "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "Session not found") {
		t.Errorf("send after destroy: %v", err)
	}
	if api.Active() != 0 {
		t.Errorf("%d model requests still open after abort", api.Active())
	}

	b, err := c.NewSession(ctx, SessionConfig{Model: "broken", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Ask(ctx, "fail please")
	if !errors.Is(err, ErrTurnFailed) || !strings.Contains(err.Error(), "scripted bad request") && !strings.Contains(err.Error(), "400") {
		t.Fatalf("model error: %v", err)
	}
}

// Killing the CLI mid-stream fails every waiter at once with the router's
// stop error; with supervision, a new session works after the restart.
func TestRealCLIKilledMidStream(t *testing.T) {
	slow := func(req modelapi.Request) modelapi.Reply {
		return modelapi.Text(strings.Repeat("word ", 400)).WithChunks(200).WithChunkDelay(20 * time.Millisecond)
	}
	c, _ := startReal(t, map[string]modelapi.Responder{"slow": slow}, Options{
		Restart: &RestartPolicy{InitialInterval: 50 * time.Millisecond},
	})
	ctx := testutil.Context(t, hangGuard)
	const n = 3
	started := make(chan struct{}, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		s, err := c.NewSession(ctx, SessionConfig{Model: "slow", BuiltinTools: NoBuiltinTools()})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			var once sync.Once
			_, err := s.Stream(ctx, "talk", TurnHandlers{OnDelta: func(string) { once.Do(func() { started <- struct{}{} }) }})
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		<-started
	}
	pid := childPID(c)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := <-errs; !errors.Is(err, ErrStopped) || !errors.Is(err, ErrCLIExited) {
			t.Errorf("waiter %d: %v, want ErrStopped wrapping ErrCLIExited", i, err)
		}
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "slow", BuiltinTools: NoBuiltinTools()})
	for err != nil && errors.Is(err, ErrStopped) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond) // the supervisor has not begun the restart yet
		s, err = c.NewSession(ctx, SessionConfig{Model: "slow", BuiltinTools: NoBuiltinTools()})
	}
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Ask(ctx, "still there?"); err != nil || !strings.HasPrefix(a, "word") {
		t.Fatalf("after restart: %.40q %v", a, err)
	}
	if c.Restarts() != 1 {
		t.Errorf("restarts = %d", c.Restarts())
	}
}

// BenchmarkRealCLI measures, through this package, the real CLI's start-up
// (Start: process, handshake) and a short streamed turn against the local
// model API, as custom metrics: start-ms, first-turn-ms, turn-ms.
func BenchmarkRealCLI(b *testing.B) {
	bin, err := clitest.Binary()
	if err != nil {
		b.Fatal(err)
	}
	sb := clitest.NewSandbox(b)
	api := sb.StartModelAPI(b, modelapi.Config{Models: map[string]modelapi.Responder{
		"m": modelapi.Fixed(modelapi.Text("a short streamed reply").WithChunks(3)),
	}})
	var start, first, later time.Duration
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		t0 := time.Now()
		c, err := Start(ctx, Options{CLIPath: bin, Env: clitest.OfflineEnv(b, api.URL()), WorkingDir: b.TempDir(),
			Command: func(bin string, args ...string) *exec.Cmd { return sb.Command(ctx, bin, args...) },
			Args:    []string{"--disable-builtin-mcps"}})
		if err != nil {
			b.Fatal(err)
		}
		start += time.Since(t0)
		s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := s.Ask(ctx, "hi"); err != nil {
			b.Fatal(err)
		}
		first += time.Since(t1)
		t2 := time.Now()
		if _, err := s.Ask(ctx, "again"); err != nil {
			b.Fatal(err)
		}
		later += time.Since(t2)
		c.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(start.Milliseconds())/n, "start-ms")
	b.ReportMetric(float64(first.Milliseconds())/n, "first-turn-ms")
	b.ReportMetric(float64(later.Milliseconds())/n, "turn-ms")
}

// A session deregistered locally can be resumed by id on the same CLI.
func TestRealCLIResume(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Ask(ctx, "first"); err != nil || a != "first" {
		t.Fatalf("%q %v", a, err)
	}
	s.Close()
	r, err := c.ResumeSession(ctx, s.ID(), SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Destroy(context.Background())
	if a, err := r.Ask(ctx, "second"); err != nil || a != "second" {
		t.Fatalf("after resume: %q %v", a, err)
	}
}
