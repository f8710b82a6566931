package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// invokeHook sends hooks.invoke for s as the CLI does and returns the
// answer's output.
func invokeHook(t *testing.T, conn *sim.Conn, s *Session, typ protocol.HookType, input string) json.RawMessage {
	t.Helper()
	a := conn.CallSession(testutil.Context(t, hangGuard), s.ID(), protocol.MethodHooksInvoke,
		map[string]any{"hookType": typ, "input": json.RawMessage(input)})
	if a.Err != nil || a.Error != nil {
		t.Fatalf("hooks.invoke %s: %v %+v", typ, a.Err, a.Error)
	}
	var res protocol.HookInvokeResponse
	if err := json.Unmarshal(a.Result, &res); err != nil {
		t.Fatalf("hooks.invoke %s answered %s: %v", typ, a.Result, err)
	}
	return res.Output
}

// Each hook gets its input typed (the time from Unix milliseconds, cwd as
// WorkingDirectory) and its output reaches the CLI; a hook type without a
// hook, a hook that fails and one that panics answer with no output.
func TestHooksAnswerHooksInvoke(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	var mu sync.Mutex
	var prompt UserPromptSubmittedInput
	var pre PreToolUseInput
	var failure ErrorOccurredInput
	hooks := &Hooks{
		OnUserPromptSubmitted: func(_ context.Context, in UserPromptSubmittedInput) (*UserPromptSubmittedOutput, error) {
			mu.Lock()
			prompt = in
			mu.Unlock()
			return &UserPromptSubmittedOutput{ModifiedPrompt: "rewritten: " + in.Prompt}, nil
		},
		OnPreToolUse: func(_ context.Context, in PreToolUseInput) (*PreToolUseOutput, error) {
			mu.Lock()
			pre = in
			mu.Unlock()
			return &PreToolUseOutput{PermissionDecision: HookDeny, PermissionDecisionReason: "not on Fridays"}, nil
		},
		OnErrorOccurred: func(_ context.Context, in ErrorOccurredInput) (*ErrorOccurredOutput, error) {
			mu.Lock()
			failure = in
			mu.Unlock()
			return nil, errors.New("the hook itself failed")
		},
		OnSessionEnd: func(context.Context, SessionEndInput) (*SessionEndOutput, error) { panic("boom") },
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	conn := onlyConn(t, srv)

	out := invokeHook(t, conn, s, protocol.HookTypeUserPromptSubmitted,
		`{"sessionId":"`+s.ID()+`","timestamp":1795400418299,"cwd":"/work","prompt":"hello"}`)
	if !jsonEqual(t, out, `{"modifiedPrompt":"rewritten: hello"}`) {
		t.Errorf("userPromptSubmitted output %s", out)
	}
	out = invokeHook(t, conn, s, protocol.HookTypePreToolUse,
		`{"sessionId":"`+s.ID()+`","timestamp":1795400418300,"cwd":"/work","toolName":"bash","toolArgs":{"command":"rm -rf /"},"agentId":"sub-1"}`)
	if !jsonEqual(t, out, `{"permissionDecision":"deny","permissionDecisionReason":"not on Fridays"}`) {
		t.Errorf("preToolUse output %s", out)
	}
	for _, tc := range []struct {
		typ   protocol.HookType
		input string
	}{
		{protocol.HookTypeErrorOccurred, `{"sessionId":"x","timestamp":1,"cwd":"/","error":{"message":"model unavailable","stack":"…"},"errorContext":"model_call","recoverable":true}`},
		{protocol.HookTypeSessionEnd, `{"sessionId":"x","timestamp":1,"cwd":"/","reason":"complete"}`},
		{protocol.HookTypeAgentStop, `{"sessionId":"x","timestamp":1,"cwd":"/","stopReason":"end_turn"}`},
		{protocol.HookType("somethingNew"), `{}`},
	} {
		if out := invokeHook(t, conn, s, tc.typ, tc.input); out != nil {
			t.Errorf("%s: output %s, want none", tc.typ, out)
		}
	}

	mu.Lock()
	if prompt.Prompt != "hello" || prompt.SessionID != s.ID() || prompt.WorkingDirectory != "/work" || !prompt.Time.Equal(time.UnixMilli(1795400418299)) {
		t.Errorf("userPromptSubmitted input %+v", prompt)
	}
	if pre.ToolName != "bash" || !jsonEqual(t, pre.ToolArgs, `{"command":"rm -rf /"}`) || pre.AgentID != "sub-1" {
		t.Errorf("preToolUse input %+v", pre)
	}
	if failure.Error != "model unavailable" || failure.ErrorContext != "model_call" || !failure.Recoverable {
		t.Errorf("errorOccurred input %+v", failure)
	}
	mu.Unlock() // the next turn runs the prompt hook, which takes mu
	// The session is unharmed by its failing hooks; the simulator runs the
	// prompt hook on this send as the CLI does, so the model gets the
	// rewritten prompt.
	if got, err := s.Ask(ctx, "still here?"); err != nil || got != "echo: rewritten: still here?" {
		t.Fatalf("%q, %v", got, err)
	}
}

// Only a Hooks with a hook set turns hooks on at creation.
func TestHooksTurnOnWithAHook(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	for _, tc := range []struct {
		hooks *Hooks
		on    bool
	}{
		{nil, false},
		{&Hooks{}, false},
		{&Hooks{OnPostToolUseFailure: func(context.Context, PostToolUseFailureInput) (*PostToolUseFailureOutput, error) { return nil, nil }}, true},
	} {
		_, on := createParams(t, c, SessionConfig{Model: "m", Hooks: tc.hooks})["hooks"]
		if on != tc.on {
			t.Errorf("hooks sent = %v for %+v, want %v", on, tc.hooks, tc.on)
		}
	}
}
