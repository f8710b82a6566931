package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
)

// TestTrafficMatchesTheCLISchemas drives the simulator with the project's
// own client through a schema tap: every frame either side sends that the
// CLI's schemas describe (methods, results, session events) must validate,
// in both start orders and both tool flows. This is what keeps the
// simulator from drifting from the real CLI.
func TestTrafficMatchesTheCLISchemas(t *testing.T) {
	schemas := schemacheck.Default(t)
	for _, order := range []sim.StartOrder{sim.StartBefore, sim.StartAfter} {
		t.Run(order.String(), func(t *testing.T) {
			model := sim.Model{ID: "sim-tools", Respond: func(turn sim.Turn) sim.Reply {
				if turn.Call == 0 && len(turn.Tools) > 0 {
					return sim.Reply{Text: "let me check", ToolCalls: []sim.ToolCall{sim.Call(turn.Tools[0], map[string]string{"q": "x"})}}
				}
				return sim.Text(fmt.Sprintf("done after %d tool results", len(turn.ToolResults)))
			}}
			srv := sim.NewServer(sim.Options{Models: append(sim.DefaultModels(), model), StartOrder: order})
			defer srv.Close()
			tap := schemacheck.Check(t, schemas, srv.Dial())
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			c, err := copilot.Connect(ctx, tap, copilot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Models(ctx); err != nil {
				t.Fatal(err)
			}
			tool := copilot.Tool{
				Name: "lookup", Description: "looks things up",
				Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
				Handler:    func(context.Context, copilot.ToolCall) (string, error) { return "found", nil },
			}
			s, err := c.NewSession(ctx, copilot.SessionConfig{Model: "sim-tools", Tools: []copilot.Tool{tool}, Permissions: copilot.ApproveAll})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Ask(ctx, "use the tool"); err != nil {
				t.Fatal(err)
			}
			plain, err := c.NewSession(ctx, copilot.SessionConfig{Model: "sim-fast", DisableStreaming: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := plain.Ask(ctx, "hello"); err != nil {
				t.Fatal(err)
			}
			for _, s := range []*copilot.Session{s, plain} {
				if err := s.Destroy(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// A turn brings over a dozen events; with two sessions, far more
			// than this were checked unless the tap saw nothing.
			if n := tap.Checked(); n < 30 {
				t.Errorf("only %d messages were checked against the schemas (unchecked: %v)", n, tap.Unchecked())
			}
		})
	}
}
