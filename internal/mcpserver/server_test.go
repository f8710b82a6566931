package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/quorum"
)

// The tools, their schemas and annotations, as a client lists them; the
// defaults in the input schemas are the user's configuration.
func TestListTools(t *testing.T) {
	f := start(t, nil, func(o *Options) {
		o.Settings.Models = []string{"sim-alpha", "sim-beta"}
		o.Settings.Moderator = "sim-moderator"
		o.Settings.Timeout = 90e9
	}, nil)
	ctx := testutil.Context(t, guard)
	res, err := f.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		required []string
		args     []string
	}{
		"discuss": {[]string{"topic"}, []string{"topic", "models", "moderator", "noReview", "reviewers", "phaseTimeoutSeconds", "maxPremium", "timeoutSeconds"}},
		"plan":    {[]string{"task"}, []string{"task", "models", "phaseTimeoutSeconds", "maxPremium", "timeoutSeconds"}},
		"debate":  {[]string{"claim"}, []string{"claim", "models", "moderator", "rounds", "phaseTimeoutSeconds", "maxPremium", "timeoutSeconds"}},
		"review":  {nil, []string{"diff", "base", "head", "context", "models", "phaseTimeoutSeconds", "maxPremium", "timeoutSeconds"}},
		"ask":     {[]string{"question"}, []string{"question", "model", "maxPremium", "timeoutSeconds"}},
		"models":  {nil, nil},
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint || tool.Annotations.Title == "" {
			t.Errorf("%s: annotations %+v", tool.Name, tool.Annotations)
		}
		if tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: no description or output schema", tool.Name)
		}
		var in jsonschema.Schema
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		var args []string
		for name, p := range in.Properties {
			args = append(args, name)
			if len(p.Description) < 20 {
				t.Errorf("%s.%s: description %q", tool.Name, name, p.Description)
			}
		}
		slices.Sort(args)
		wantArgs := slices.Clone(w.args)
		slices.Sort(wantArgs)
		if !slices.Equal(args, wantArgs) || !slices.Equal(in.Required, w.required) {
			t.Errorf("%s: arguments %v required %v; want %v required %v", tool.Name, args, in.Required, wantArgs, w.required)
		}
		switch tool.Name {
		case "discuss":
			for arg, def := range map[string]string{"models": `["sim-alpha","sim-beta"]`, "moderator": `"sim-moderator"`, "timeoutSeconds": "90", "phaseTimeoutSeconds": "300"} {
				if got := string(in.Properties[arg].Default); got != def {
					t.Errorf("discuss.%s: default %s, want %s", arg, got, def)
				}
			}
		case "ask":
			if got := string(in.Properties["model"].Default); got != `"sim-alpha"` {
				t.Errorf("ask.model: default %s", got)
			}
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"ask", "debate", "discuss", "models", "plan", "review"}) {
		t.Errorf("tools %v", names)
	}
	// The output schema is the result type's: the discussion's has its
	// fields.
	for _, tool := range res.Tools {
		if tool.Name != "discuss" {
			continue
		}
		b, _ := json.Marshal(tool.OutputSchema)
		for _, field := range []string{`"answers"`, `"reviews"`, `"ranking"`, `"synthesis"`, `"failures"`, `"usageByModel"`} {
			if !strings.Contains(string(b), field) {
				t.Errorf("discuss's output schema lacks %s", field)
			}
		}
	}
}

const testDiff = `diff --git a/main.go b/main.go
index 1111111..2222222 100644
--- a/main.go
+++ b/main.go
@@ -1,3 +1,4 @@
 package main
 
+// TODO: handle the error
 func main() {}
`

// Every tool on the simulator: a result with structured content of the
// command's -o json result type, a Markdown text, and the status.
func TestEachTool(t *testing.T) { checkEachTool(t, start(t, nil, nil, nil)) }

func checkEachTool(t *testing.T, f *fixture) {
	ctx := testutil.Context(t, guard)
	ok := func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		if res.IsError || res.Meta["status"] != "ok" || res.Meta["simulated"] != true {
			t.Fatalf("isError %v, meta %v: %s", res.IsError, res.Meta, text(res))
		}
	}
	t.Run("discuss", func(t *testing.T) {
		res := f.call(t, ctx, "discuss", map[string]any{"topic": "Should we adopt Go?"})
		ok(t, res)
		var d quorum.DiscussResult
		decode(t, res, &d)
		if len(d.Answers) != 3 || len(d.Reviews) != 3 || d.Synthesis == nil || d.Synthesis.Moderator != "sim-moderator" || d.Question != "Should we adopt Go?" {
			t.Errorf("%+v", d)
		}
		if md := text(res); !strings.Contains(md, "Should we adopt Go?") || !strings.Contains(md, "sim-alpha") || !strings.Contains(strings.ToLower(md), "synthesis") {
			t.Errorf("markdown:\n%s", md)
		}
	})
	t.Run("plan", func(t *testing.T) {
		res := f.call(t, ctx, "plan", map[string]any{"task": "Migrate CI to GitHub Actions", "models": []string{"sim-alpha", "sim-beta"}})
		ok(t, res)
		var p quorum.PlanResult
		decode(t, res, &p)
		if len(p.Proposals) != 2 || p.Winner == "" || len(p.Models) != 2 {
			t.Errorf("%+v", p)
		}
	})
	t.Run("debate", func(t *testing.T) {
		res := f.call(t, ctx, "debate", map[string]any{"claim": "Monorepos scale", "rounds": 1})
		ok(t, res)
		var d quorum.DebateResult
		decode(t, res, &d)
		if len(d.Debaters) != 3 || d.Verdict == nil {
			t.Errorf("%+v", d)
		}
	})
	t.Run("review", func(t *testing.T) {
		res := f.call(t, ctx, "review", map[string]any{"diff": testDiff})
		ok(t, res)
		var r quorum.ReviewResult
		decode(t, res, &r)
		if len(r.Inspections) != 3 {
			t.Errorf("%+v", r)
		}
	})
	t.Run("ask", func(t *testing.T) {
		res := f.call(t, ctx, "ask", map[string]any{"question": "What is a goroutine?", "model": "sim-beta"})
		ok(t, res)
		var a AskResult
		decode(t, res, &a)
		if a.Model != "sim-beta" || a.Question != "What is a goroutine?" || !strings.Contains(a.Answer, "[simulated sim-beta]") || a.Usage.Calls != 1 {
			t.Errorf("%+v", a)
		}
		if text(res) != a.Answer {
			t.Errorf("text %q, answer %q", text(res), a.Answer)
		}
	})
	t.Run("models", func(t *testing.T) {
		res := f.call(t, ctx, "models", map[string]any{})
		ok(t, res)
		var m ModelsResult
		decode(t, res, &m)
		var ids []string
		for _, x := range m.Models {
			ids = append(ids, x.ID)
		}
		if !slices.Equal(ids, []string{"sim-alpha", "sim-beta", "sim-gamma", "sim-moderator"}) || !strings.Contains(text(res), "| sim-gamma |") {
			t.Errorf("%v\n%s", ids, text(res))
		}
	})
	if n := f.connects.Load(); n != 1 {
		t.Errorf("%d connections to the CLI, want 1 for the server's life", n)
	}
	if live := f.srv.LiveSessions(); len(live) != 0 {
		t.Errorf("sessions left on the CLI: %v", live)
	}
}

// Three calls at once run together on one CLI: every answer-phase turn
// waits until all three calls have one in flight.
func TestConcurrentCallsOneCLI(t *testing.T) {
	topics := []string{"topic one", "topic two", "topic three"}
	var mu sync.Mutex
	seen := map[string]bool{}
	all := make(chan struct{})
	models := scripted(func(turn sim.Turn) (sim.Response, bool) {
		if !isPhase(turn.Prompt, quorum.PhaseAnswer) {
			return sim.Response{}, false
		}
		mu.Lock()
		for _, tp := range topics {
			if strings.Contains(turn.Prompt, tp) && !seen[tp] {
				seen[tp] = true
				if len(seen) == len(topics) {
					close(all)
				}
			}
		}
		mu.Unlock()
		testutil.Receive(t, "the three calls' answer turns", guard, all)
		return sim.Response{}, false
	})
	f := start(t, models, nil, nil)
	ctx := testutil.Context(t, guard)
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, len(topics))
	errs := make([]error, len(topics))
	for i, tp := range topics {
		wg.Go(func() {
			results[i], errs[i] = f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "discuss", Arguments: map[string]any{"topic": tp, "noReview": true}})
		})
	}
	wg.Wait()
	for i := range topics {
		if errs[i] != nil || results[i].IsError {
			t.Fatalf("call %d: %v %s", i, errs[i], text(results[i]))
		}
		var d quorum.DiscussResult
		decode(t, results[i], &d)
		if d.Question != topics[i] || len(d.Answers) != 3 {
			t.Errorf("call %d: %+v", i, d)
		}
	}
	if n, m := f.connects.Load(), f.s.CLIStarts(); n != 1 || m != 1 {
		t.Errorf("%d connections, %d starts: want one CLI for every call", n, m)
	}
	if n := f.srv.MaxConcurrentTurns(); n < len(topics) {
		t.Errorf("at most %d turns at once", n)
	}
}

// -j bounds the calls that run at once: with one slot, the second call
// waits until the first has ended, and both finish.
func TestMaxCalls(t *testing.T) {
	release := make(chan struct{})
	started := newSignal()
	models := scripted(func(turn sim.Turn) (sim.Response, bool) {
		if turn.Model == "sim-alpha" && strings.Contains(turn.Prompt, "first call") {
			started.send("first")
			testutil.Receive(t, "the release of the first call", guard, release)
		}
		if strings.Contains(turn.Prompt, "second call") {
			started.send("second")
		}
		return sim.Response{}, false
	})
	waits := newSignal()
	f := start(t, models, func(o *Options) { o.MaxCalls = 1; o.Logger = slog.New(signalHandler{waits}) }, nil)
	ctx := testutil.Context(t, guard)
	var wg sync.WaitGroup
	var first *mcp.CallToolResult
	wg.Go(func() {
		first = f.call(t, ctx, "ask", map[string]any{"question": "first call", "model": "sim-alpha"})
	})
	if got := testutil.Receive(t, "the first call's turn", guard, started.ch); got != "first" {
		t.Fatalf("%s started first", got)
	}
	var second *mcp.CallToolResult
	wg.Go(func() {
		second = f.call(t, ctx, "ask", map[string]any{"question": "second call", "model": "sim-beta"})
	})
	// The second call waits for the slot, and its turn has not started.
	for msg := ""; msg != "a call waits for a free slot"; {
		msg = testutil.Receive(t, "the second call's wait", guard, waits.ch)
	}
	select {
	case got := <-started.ch:
		t.Fatalf("%s started while the first call held the only slot", got)
	default:
	}
	close(release)
	wg.Wait()
	if first.IsError || second.IsError {
		t.Fatalf("%s\n%s", text(first), text(second))
	}
}

// Bad arguments are tool errors that say what to do, never protocol errors.
func TestBadArguments(t *testing.T) {
	f := start(t, nil, nil, nil)
	ctx := testutil.Context(t, guard)
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"discuss", map[string]any{}, `missing properties: ["topic"]`},
		{"discuss", map[string]any{"topic": "x", "modelz": []string{"a"}}, "modelz"},
		{"discuss", map[string]any{"topic": 42}, "topic"},
		{"discuss", map[string]any{"topic": "  "}, "topic is empty"},
		{"discuss", map[string]any{"topic": "x", "models": []string{"sim-alpha", "gpt-99"}}, "unknown model gpt-99; use one the Copilot CLI offers: sim-alpha, sim-beta"},
		{"discuss", map[string]any{"topic": "x", "models": []string{"sim-alpha"}}, "needs at least 2 models"},
		{"discuss", map[string]any{"topic": "x", "models": []string{"sim-alpha", "sim-alpha"}}, "named twice"},
		{"discuss", map[string]any{"topic": "x", "timeoutSeconds": -1}, "must be positive"},
		{"debate", map[string]any{"claim": "x", "rounds": 11}, "rounds must be between 1 and 10"},
		{"review", map[string]any{}, "the review needs a change"},
		{"review", map[string]any{"diff": testDiff, "base": "main"}, "not both"},
		{"review", map[string]any{"diff": "not a diff"}, "diff"},
		{"review", map[string]any{"diff": testDiff, "context": []string{"../../etc/passwd"}}, "cannot be read"},
		{"review", map[string]any{"diff": testDiff, "context": []string{"/etc/passwd"}}, "must be relative"},
		{"review", map[string]any{"base": "--output=/tmp/x"}, "is not one"},
		{"review", map[string]any{"base": "main"}, "is not the top of a git repository, so git diff main..HEAD cannot run there"},
		{"ask", map[string]any{"question": "x", "model": "nope"}, "unknown model nope"},
		{"nosuchtool", map[string]any{}, ""},
	} {
		res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if c.tool == "nosuchtool" { // the one protocol error: no such tool
			if err == nil {
				t.Errorf("an unknown tool: %s", text(res))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: protocol error %v", c.tool, c.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(text(res), c.want) || res.StructuredContent != nil {
			t.Errorf("%s %v: isError %v, structured %v, text %q; want %q", c.tool, c.args, res.IsError, res.StructuredContent != nil, text(res), c.want)
		}
	}
	// The schema's complaint says what to do.
	res := f.call(t, ctx, "discuss", map[string]any{"topic": "x", "modelz": 1})
	if !strings.Contains(text(res), "call it again with the arguments its schema describes") {
		t.Errorf("%s", text(res))
	}
	if n := f.connects.Load(); n != 1 {
		t.Errorf("%d connections", n)
	}
}

// A call with a progress token gets a notification per phase and per
// model, with growing values.
func TestProgress(t *testing.T) {
	var mu sync.Mutex
	var msgs []string
	var values []float64
	done := newSignal()
	copts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		msgs = append(msgs, r.Params.Message)
		values = append(values, r.Params.Progress)
		mu.Unlock()
		if r.Params.ProgressToken == "tok" && strings.HasPrefix(r.Params.Message, "synthesis phase finished") {
			done.send("")
		}
	}}
	f := start(t, nil, nil, copts)
	ctx := testutil.Context(t, guard)
	params := &mcp.CallToolParams{Name: "discuss", Arguments: map[string]any{"topic": "progress?"}}
	params.SetProgressToken("tok")
	res, err := f.cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	testutil.Receive(t, "the last progress notification", guard, done.ch)
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"answer phase started: sim-alpha, sim-beta, sim-gamma", "sim-beta answered (", "sim-gamma reviewed (", "review phase finished",
		"sim-moderator wrote the synthesis ("} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Errorf("progress went from %v to %v", values[i-1], values[i])
		}
	}
	// Without a token, none.
	before := len(msgs)
	mu.Unlock()
	f.call(t, ctx, "ask", map[string]any{"question": "quiet?"})
	mu.Lock()
	if len(msgs) != before {
		t.Errorf("notifications without a progress token: %v", msgs[before:])
	}
}
