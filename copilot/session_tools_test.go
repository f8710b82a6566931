package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

func weatherTool(calls *int) Tool {
	return Tool{
		Name:        "weather",
		Description: "current weather",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
		Handler: func(_ context.Context, call ToolCall) (string, error) {
			*calls++
			var a struct{ City string }
			json.Unmarshal(call.Arguments, &a)
			return "sunny in " + a.City, nil
		},
	}
}

// reportTool answers with what the tool returned, or its error.
func reportTool(t sim.Turn) sim.Response {
	r := t.ToolResults[len(t.ToolResults)-1]
	if !r.OK() {
		return sim.Text("tool failed: " + r.Error)
	}
	return sim.Text("the tool said: " + r.Text)
}

func TestToolWithPermission(t *testing.T) {
	for _, flow := range []sim.ToolFlow{sim.ToolFlowEvents, sim.ToolFlowLegacyRequest} {
		t.Run(fmt.Sprint("flow", flow), func(t *testing.T) {
			c, _ := simClient(t, sim.Options{ToolFlow: flow, Models: []sim.Model{
				model("m", sim.UseTool("weather", map[string]string{"city": "Oslo"}, reportTool)),
			}})
			ctx := testutil.Context(t, hangGuard)
			var calls int
			var asked []PermissionRequest
			s, err := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{weatherTool(&calls)},
				Permissions: func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
					asked = append(asked, r)
					return ApproveOnce(), nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Stream(ctx, "weather?", TurnHandlers{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, "the tool said: sunny in Oslo") || calls != 1 || r.ToolCalls != 1 {
				t.Fatalf("reply %q, %d calls", r.Text, calls)
			}
			if flow == sim.ToolFlowEvents && (len(asked) != 1 || asked[0].ToolName != "weather" || asked[0].Kind != "custom-tool") {
				t.Errorf("permission requests = %+v", asked)
			}
		})
	}
}

// The default policy denies; the CLI then ends the turn, and the error
// says which permission was refused.
func TestToolDeniedByDefault(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.UseTool("weather", nil, reportTool))}})
	ctx := testutil.Context(t, hangGuard)
	var calls int
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{weatherTool(&calls)}})
	_, err := s.Ask(ctx, "x")
	if !errors.Is(err, ErrPermissionDenied) || !errors.Is(err, ErrAborted) || !strings.Contains(err.Error(), "weather") || calls != 0 {
		t.Fatalf("err = %v, calls = %d", err, calls)
	}
	// The session is still usable.
	if _, err := s.Ask(ctx, "y"); !errors.Is(err, ErrPermissionDenied) {
		t.Fatalf("second turn: %v", err)
	}
}

// With the built-in tools switched off, client tools must still be offered:
// the CLI's availableTools filters client tools too.
func TestClientToolsWithoutBuiltins(t *testing.T) {
	var offered []string
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", func(t sim.Turn) sim.Response {
		offered = t.Tools
		return sim.UseTool("weather", map[string]string{"city": "Lima"}, reportTool)(t)
	})}})
	ctx := testutil.Context(t, hangGuard)
	var calls int
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		Tools: []Tool{weatherTool(&calls)}, Permissions: ApproveAll})
	a, err := s.Ask(ctx, "x")
	if err != nil || calls != 1 || !strings.Contains(a, "sunny in Lima") || len(offered) != 1 {
		t.Fatalf("%q %v calls=%d offered=%v", a, err, calls, offered)
	}
}

func TestSkipPermissionTool(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.UseTool("weather", map[string]string{"city": "Rome"}, reportTool))}})
	ctx := testutil.Context(t, hangGuard)
	var calls int
	tool := weatherTool(&calls)
	tool.SkipPermission = true
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{tool}})
	a, err := s.Ask(ctx, "x")
	if err != nil || calls != 1 || !strings.Contains(a, "sunny in Rome") {
		t.Fatalf("%q %v", a, err)
	}
}

func TestHandlerErrorAndPanicBecomeHiddenFailures(t *testing.T) {
	for name, h := range map[string]ToolHandler{
		"error": func(context.Context, ToolCall) (string, error) { return "", errors.New("disk on fire") },
		"panic": func(context.Context, ToolCall) (string, error) { panic("disk on fire") },
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.UseTool("t", nil, reportTool))}})
			ctx := testutil.Context(t, hangGuard)
			s, _ := c.NewSession(ctx, SessionConfig{Model: "m", Permissions: ApproveAll,
				Tools: []Tool{{Name: "t", Handler: h}}})
			a, err := s.Ask(ctx, "x")
			// The model is told only that the tool failed: the handler's
			// text stays with the program.
			if err != nil || !strings.Contains(a, "tool failed") || !strings.Contains(a, toolFailed) || strings.Contains(a, "disk on fire") {
				t.Fatalf("%q %v", a, err)
			}
		})
	}
}

// loopingModel calls a tool on every model call, forever.
func loopingModel(t sim.Turn) sim.Response {
	return sim.Response{ToolCalls: []sim.ToolCall{sim.Call("t", map[string]int{"n": t.Call})}}
}

func TestToolCallLimitAbortsTurn(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", loopingModel)}})
	ctx := testutil.Context(t, hangGuard)
	var calls int
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m", Permissions: ApproveAll, MaxToolCalls: 2,
		Tools: []Tool{{Name: "t", Handler: func(context.Context, ToolCall) (string, error) { calls++; return "ok", nil }}}})
	r, err := s.Stream(ctx, "x", TurnHandlers{})
	if !errors.Is(err, ErrToolLimit) {
		t.Fatalf("err = %v", err)
	}
	if calls != 2 || r.ToolCalls != 3 || srv.Calls("session.abort") != 1 {
		t.Fatalf("handler ran %d times, %d calls seen, %d aborts", calls, r.ToolCalls, srv.Calls("session.abort"))
	}
	// The aborted turn ended at its session.idle: nothing is left for the
	// next turn to drain (it would wait drainQuiet for nothing).
	if err := s.reader.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	unfinished := s.turns.unfinished
	s.reader.release()
	if unfinished {
		t.Error("after the limit's abort the turn is still counted unfinished")
	}
	// The limit is per turn: the next turn may call tools again.
	if _, err := s.Stream(ctx, "y", TurnHandlers{}); !errors.Is(err, ErrToolLimit) || calls != 4 {
		t.Fatalf("second turn: %v, calls=%d", err, calls)
	}
}

func TestPipelineStages(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{
		model("m", sim.UseTool("big", nil, reportTool)),
		model("other", sim.UseTool("secret", nil, reportTool)),
	}})
	ctx := testutil.Context(t, hangGuard)
	trace := &ToolTrace{}
	big := Tool{Name: "big", Handler: func(context.Context, ToolCall) (string, error) { return strings.Repeat("é", 100), nil }}
	secret := Tool{Name: "secret", Handler: func(context.Context, ToolCall) (string, error) { return "leaked", nil }}
	panicky := ToolStage{Name: "panicky", Wrap: func(next ToolHandler) ToolHandler {
		return func(ctx context.Context, call ToolCall) (string, error) { panic("stage bug") }
	}}
	cfg := SessionConfig{Model: "m", Permissions: ApproveAll, Tools: []Tool{big, secret},
		Trace: trace, MaxToolOutputBytes: 11, Profile: "safe", Profiles: map[string][]string{"safe": {"big"}},
		Stages: []ToolStage{panicky}}
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Ask(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	// 11 bytes cut back to a character boundary: five two-byte characters.
	if !strings.Contains(a, "the tool said: ééééé\n[output truncated: 10 of 200 bytes shown]") {
		t.Fatalf("truncation: %q", a)
	}
	cfg.Model = "other"
	s2, _ := c.NewSession(ctx, cfg)
	a2, err := s2.Ask(ctx, "x")
	if err != nil || strings.Contains(a2, "leaked") || !strings.Contains(a2, "tool failed") {
		t.Fatalf("profile let an undeclared tool run: %q %v", a2, err)
	}
	// "secret" was never declared, so the CLI refused it without asking us.
	es := trace.Entries()
	if len(es) != 1 || es[0].Tool != "big" || !strings.Contains(es[0].Result, "truncated") {
		t.Fatalf("trace = %+v", es)
	}
	// Called anyway (a CLI that ignores the declaration), the profile stage
	// refuses it.
	out, err := s2.pipeline(ctx, ToolCall{Name: "secret"})
	if err == nil || out != "" || !strings.Contains(err.Error(), `not in profile "safe"`) {
		t.Fatalf("profile stage: %q %v", out, err)
	}
}

func TestProfileDeclaresOnlyItsTools(t *testing.T) {
	var seen []string
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", func(t sim.Turn) sim.Response {
		seen = t.Tools
		return sim.Text("ok")
	})}})
	ctx := testutil.Context(t, hangGuard)
	h := func(context.Context, ToolCall) (string, error) { return "", nil }
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{{Name: "a", Handler: h}, {Name: "b", Handler: h}},
		Profile: "p", Profiles: map[string][]string{"p": {"b"}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Ask(ctx, "x")
	if len(seen) != 1 || seen[0] != "b" {
		t.Fatalf("tools declared = %v", seen)
	}
	if _, err := c.NewSession(ctx, SessionConfig{Model: "m", Profile: "missing"}); err == nil {
		t.Fatal("an undefined profile was accepted")
	}
}
