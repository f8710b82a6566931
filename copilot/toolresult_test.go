package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// pixel is a 1×1 PNG, base64.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// lastToolResult answers with the last tool result the model was given,
// whole, so that a test can read it from the reply.
func lastToolResult(t sim.Turn) sim.Response {
	r := t.ToolResults[len(t.ToolResults)-1]
	return sim.Text(fmt.Sprintf("type=%s text=%q error=%q", r.ResultType, r.Text, r.Error))
}

// toolAnswers are the results the client sent for tool calls, in order.
func toolAnswers(t *testing.T, w *wireLog) []ToolResult {
	t.Helper()
	var out []ToolResult
	for _, raw := range w.params(t, protocol.MethodSessionToolsHandlePendingToolCall) {
		var p struct{ Result ToolResult }
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Result)
	}
	return out
}

// A ResultHandler's whole result reaches the CLI: its binary results, log
// and result type, with the text the pipeline's stages made of its text.
func TestRichToolResultReachesTheCLI(t *testing.T) {
	c, _, w := recordedClient(t, sim.Options{Models: []sim.Model{model("m", sim.UseTool("draw", nil, lastToolResult))}})
	ctx := testutil.Context(t, hangGuard)
	draw := Tool{Name: "draw", SkipPermission: true, Handler: ResultHandler(func(context.Context, ToolCall) (ToolResult, error) {
		return ToolResult{
			TextResultForLLM: "a red dot, drawn at the centre of the canvas",
			ResultType:       ToolFailure,
			Error:            "the canvas was smaller than asked",
			SessionLog:       "drew one pixel",
			BinaryResultsForLLM: []protocol.ExternalToolTextResultForLLMBinaryResultsForLLM{
				{Type: protocol.ExternalToolTextResultForLLMBinaryResultsForLLMTypeImage, Data: pixel, MimeType: "image/png", Description: "the dot"},
			},
		}, nil
	})}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{draw}, MaxToolOutputBytes: 9})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Ask(ctx, "draw")
	if err != nil {
		t.Fatal(err)
	}
	// The simulator gives the model a failed result's error as its text.
	if a != `type=failure text="the canvas was smaller than asked" error="the canvas was smaller than asked"` {
		t.Errorf("the model saw %s", a)
	}
	sent := toolAnswers(t, w)
	if len(sent) != 1 {
		t.Fatalf("%d answers", len(sent))
	}
	r := sent[0]
	if !strings.HasPrefix(r.TextResultForLLM, "a red dot\n[output truncated: 9 of 44 bytes shown]") || r.ResultType != ToolFailure ||
		r.Error == "" || r.SessionLog != "drew one pixel" || len(r.BinaryResultsForLLM) != 1 || r.BinaryResultsForLLM[0].Data != pixel {
		t.Errorf("sent %+v", r)
	}
}

// A plain handler's text, a rich result without a type, and an error each
// make the result the CLI expects of them.
func TestToolResultOf(t *testing.T) {
	cases := []struct {
		name string
		out  string
		err  error
		rich *ToolResult
		want ToolResult
	}{
		{"plain", "ok", nil, nil, ToolResult{TextResultForLLM: "ok", ResultType: ToolSuccess}},
		{"error, hidden", "partial", errors.New("boom"), nil, ToolResult{TextResultForLLM: toolFailed, ResultType: ToolFailure, Error: toolFailed}},
		{"rich error wins", "x", errors.New("boom"), &ToolResult{SessionLog: "log"}, ToolResult{TextResultForLLM: toolFailed, ResultType: ToolFailure, Error: toolFailed}},
		{"error for the model", "x", fmt.Errorf("wrapped: %w", &ToolError{ForModel: "no such city", Err: errors.New("dial 10.0.0.1: refused")}), nil,
			ToolResult{TextResultForLLM: "no such city", ResultType: ToolFailure, Error: "no such city"}},
		{"rich untyped", "staged", nil, &ToolResult{TextResultForLLM: "raw", SessionLog: "log"}, ToolResult{TextResultForLLM: "staged", ResultType: ToolSuccess, SessionLog: "log"}},
		{"rich with an error message", "t", nil, &ToolResult{Error: "half done"}, ToolResult{TextResultForLLM: "t", ResultType: ToolFailure, Error: "half done"}},
		{"rich typed", "t", nil, &ToolResult{ResultType: "rejected"}, ToolResult{TextResultForLLM: "t", ResultType: "rejected"}},
	}
	for _, tc := range cases {
		res, hidden := toolResultOf(tc.out, tc.err, tc.rich)
		if want := tc.err != nil && !strings.Contains(tc.name, "for the model"); hidden != want {
			t.Errorf("%s: hidden %v", tc.name, hidden)
		}
		got, _ := json.Marshal(res)
		want, _ := json.Marshal(tc.want)
		if string(got) != string(want) {
			t.Errorf("%s: %s, want %s", tc.name, got, want)
		}
	}
}

type cityArgs struct {
	City string `json:"city" jsonschema:"description=The city to look up"`
	Days int    `json:"days,omitempty"`
}

// DefineTool declares In's schema, decodes each call's arguments into an
// In, and returns text or a whole result; arguments that do not fit fail
// the call, not the turn.
func TestDefineTool(t *testing.T) {
	c, _, w := recordedClient(t, sim.Options{Models: []sim.Model{
		model("text", sim.UseTool("forecast", map[string]any{"city": "Oslo", "days": 3}, lastToolResult)),
		model("rich", sim.UseTool("map", map[string]any{"city": "Lima"}, lastToolResult)),
		model("bad", sim.UseTool("forecast", map[string]any{"city": "Oslo", "days": "three"}, lastToolResult)),
	}})
	ctx := testutil.Context(t, hangGuard)
	var got []cityArgs
	forecast := DefineTool("forecast", "The weather ahead", func(_ context.Context, a cityArgs) (string, error) {
		got = append(got, a)
		return fmt.Sprintf("%d days of sun in %s", a.Days, a.City), nil
	})
	mapTool := DefineTool("map", "A map of the city", func(_ context.Context, a *cityArgs) (ToolResult, error) {
		return ToolResult{TextResultForLLM: "a map of " + a.City, SessionLog: "mapped"}, nil
	})
	for _, tc := range []struct{ model, want string }{
		{"text", `type=success text="3 days of sun in Oslo" error=""`},
		{"rich", `type=success text="a map of Lima" error=""`},
		{"bad", `type=failure text="the arguments of forecast do not fit its parameters' schema: json: cannot unmarshal string into Go struct field cityArgs.days of type int"`},
	} {
		s, err := c.NewSession(ctx, SessionConfig{Model: tc.model, Tools: []Tool{forecast, mapTool}, Permissions: ApproveAll})
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.Ask(ctx, "go")
		if err != nil || !strings.HasPrefix(a, tc.want) {
			t.Errorf("%s: %s, %v; want %s", tc.model, a, err, tc.want)
		}
	}
	if len(got) != 1 || got[0] != (cityArgs{City: "Oslo", Days: 3}) {
		t.Errorf("the handler got %+v", got)
	}
	var create protocol.SessionCreateParams
	if err := json.Unmarshal(w.params(t, protocol.MethodSessionCreate)[0], &create); err != nil {
		t.Fatal(err)
	}
	schema, _ := JSONSchemaFor[cityArgs]()
	if len(create.Tools) != 2 || string(create.Tools[0].Parameters) != string(schema) || create.Tools[0].Description != "The weather ahead" {
		t.Errorf("declared %+v", create.Tools)
	}
	if answers := toolAnswers(t, w); len(answers) != 3 || answers[1].SessionLog != "mapped" {
		t.Errorf("answers %+v", answers)
	}
}

// A tool whose arguments cannot be described is a mistake in the program,
// found when it is defined.
func TestDefineToolPanicsOnAnUndescribableType(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), `DefineTool("bad")`) {
			t.Fatalf("recovered %v", p)
		}
	}()
	DefineTool("bad", "", func(context.Context, struct{ C chan int }) (string, error) { return "", nil })
}
