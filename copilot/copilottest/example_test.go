package copilottest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// The examples use Start and Close, as an Example has no *testing.T; in a
// test, copilottest.NewServer(t, …) does both.

// Test your tool's handler: a model scripted to call it with given
// arguments, then to answer with what the tool returned. The handler runs
// in your process, as it would against the real CLI.
func Example_toolHandler() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{
		ID: "m",
		Respond: copilottest.UseTool("weather", map[string]string{"city": "Oslo"}, func(t copilottest.Turn) copilottest.Response {
			r := t.ToolResults[0]
			return copilottest.Response{Text: fmt.Sprintf("%s said %q (%s)", r.Name, r.Text, r.ResultType)}
		}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := copilot.DefineTool("weather", "Current weather of a city",
		func(_ context.Context, a weatherArgs) (string, error) { return "rain in " + a.City, nil })
	s, err := srv.Client().NewSession(ctx, copilot.SessionConfig{Model: "m", Tools: []copilot.Tool{weather}, Permissions: copilot.ApproveAll})
	if err != nil {
		fmt.Println(err)
		return
	}
	answer, err := s.Ask(ctx, "Do I need an umbrella?")
	fmt.Println(answer, err)

	// What the client sent: the tool's result, in the CLI's protocol.
	for _, r := range srv.Requests(protocol.MethodSessionToolsHandlePendingToolCall) {
		var p protocol.SessionToolsHandlePendingToolCallParams
		if err := r.Decode(&p); err == nil {
			fmt.Printf("%s: %s\n", r.Method, p.Result)
		}
	}
	// Output:
	// weather said "rain in Oslo" (success) <nil>
	// session.tools.handlePendingToolCall: {"resultType":"success","textResultForLlm":"rain in Oslo"}
}

// Test your permission policy: the model runs the CLI's built-in tools,
// each asking a permission of its kind; the policy lets reads through and
// refuses shell commands with a word for the model, which reads the
// outcome of each.
func Example_permissionPolicy() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "m", Respond: func(t copilottest.Turn) copilottest.Response {
		if t.Call == 0 {
			return copilottest.Response{ToolCalls: []copilottest.ToolCall{
				copilottest.Call(copilottest.BuiltinView, map[string]string{"path": "."}),
				copilottest.Call(copilottest.BuiltinBash, map[string]string{"command": "pwd", "description": "Where am I?"}),
			}}
		}
		var outcome []string
		for _, r := range t.ToolResults {
			outcome = append(outcome, strings.TrimSpace(fmt.Sprintf("%s: %s %s", r.Name, r.ResultType, r.Error)))
		}
		return copilottest.Response{Text: strings.Join(outcome, "\n")}
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	policy := func(_ context.Context, req copilot.PermissionRequest) (copilot.PermissionDecision, error) {
		fmt.Println("asked:", req.Kind)
		if req.Kind == copilot.PermissionKindRead {
			return copilot.ApproveOnce(), nil
		}
		return copilot.Reject("no shell in tests"), nil
	}
	s, err := srv.Client().NewSession(ctx, copilot.SessionConfig{Model: "m", Permissions: policy, WorkingDirectory: "/"})
	if err != nil {
		fmt.Println(err)
		return
	}
	answer, err := s.Ask(ctx, "Look around")
	fmt.Println(answer)
	fmt.Println("error:", err)
	// Output:
	// asked: read
	// asked: shell
	// view: success
	// bash: denied The user rejected this tool call. User feedback: no shell in tests
	// error: <nil>
}

// A fault: the CLI dies mid-turn. Your code has seen the first part of the
// answer stream in; then the turn fails with an error wrapping
// copilot.ErrStopped, and so does every later call on the client.
func Example_crashMidTurn() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "m", Respond: copilottest.Crash("The answer is")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	s, err := srv.Client().NewSession(ctx, copilot.SessionConfig{Model: "m"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var seen strings.Builder
	_, err = s.Stream(ctx, "What is the answer?", copilot.TurnHandlers{OnDelta: func(d string) { seen.WriteString(d) }})
	fmt.Printf("streamed %q\n", seen.String())
	fmt.Println("turn stopped:", errors.Is(err, copilot.ErrStopped))
	_, err = srv.Client().NewSession(ctx, copilot.SessionConfig{Model: "m"})
	fmt.Println("client stopped:", errors.Is(err, copilot.ErrStopped))
	// Output:
	// streamed "The answer is"
	// turn stopped: true
	// client stopped: true
}
