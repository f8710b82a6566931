package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Hooks are Go functions the CLI calls at points of a session's life: before
// and after each tool call, when a prompt is submitted (to rewrite or block
// it), when the session starts and ends, on errors and when the agent
// stops. Each may be nil. Setting any of them tells the CLI at creation
// that the client runs hooks (session.create's hooks), and the CLI then
// asks the client (hooks.invoke) at each such point, waiting for the
// answer: a hook runs on the goroutine that reads the session and must
// return promptly.
//
// A hook that returns a nil output, or an error (which is logged), leaves
// the CLI to go on as it would without the hook.
type Hooks struct {
	// OnPreToolUse runs before a tool runs: it may allow, deny or ask for
	// permission, and change the tool's arguments.
	OnPreToolUse func(context.Context, PreToolUseInput) (*PreToolUseOutput, error)
	// OnPostToolUse runs after a tool succeeded: it may change the result
	// the model sees.
	OnPostToolUse func(context.Context, PostToolUseInput) (*PostToolUseOutput, error)
	// OnPostToolUseFailure runs after a tool failed.
	OnPostToolUseFailure func(context.Context, PostToolUseFailureInput) (*PostToolUseFailureOutput, error)
	// OnUserPromptSubmitted runs when a prompt is sent, before the model
	// sees it: it may rewrite the prompt, add context, or block it.
	OnUserPromptSubmitted func(context.Context, UserPromptSubmittedInput) (*UserPromptSubmittedOutput, error)
	// OnSessionStart runs when the session's first prompt starts it (CLI
	// 1.0.102 runs it then, not at creation), and when it is resumed.
	OnSessionStart func(context.Context, SessionStartInput) (*SessionStartOutput, error)
	// OnSessionEnd runs when the session ends.
	OnSessionEnd func(context.Context, SessionEndInput) (*SessionEndOutput, error)
	// OnErrorOccurred runs when the agent meets an error.
	OnErrorOccurred func(context.Context, ErrorOccurredInput) (*ErrorOccurredOutput, error)
	// OnAgentStop runs when the main agent finishes a turn: it may keep it
	// working.
	OnAgentStop func(context.Context, AgentStopInput) (*AgentStopOutput, error)
}

// HookContext is what the input of every hook carries.
type HookContext struct {
	SessionID string `json:"sessionId"`
	// Time is when the CLI ran the hook (on the wire, Unix milliseconds).
	Time             time.Time `json:"-"`
	WorkingDirectory string    `json:"cwd"`
	// AgentID names the sub-agent the hook runs for; empty for the main
	// agent.
	AgentID string `json:"agentId,omitempty"`
}

func (h *HookContext) hookContext() *HookContext { return h }

// Permission decisions of a PreToolUseOutput.
const (
	HookAllow = "allow"
	HookDeny  = "deny"
	HookAsk   = "ask"
)

// HookBlock, as the Decision of an output, blocks a prompt
// (UserPromptSubmittedOutput) or keeps the agent working (AgentStopOutput).
const HookBlock = "block"

// PreToolUseInput is the input of Hooks.OnPreToolUse.
type PreToolUseInput struct {
	HookContext
	ToolName string          `json:"toolName"`
	ToolArgs json.RawMessage `json:"toolArgs,omitempty"`
}

// PreToolUseOutput is the output of Hooks.OnPreToolUse.
type PreToolUseOutput struct {
	// PermissionDecision is HookAllow, HookDeny or HookAsk (the session's
	// permission policy decides); empty decides nothing.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// ModifiedArgs, when set, are the arguments the tool runs with.
	ModifiedArgs      json.RawMessage `json:"modifiedArgs,omitempty"`
	AdditionalContext string          `json:"additionalContext,omitempty"`
	SuppressOutput    bool            `json:"suppressOutput,omitempty"`
}

// PostToolUseInput is the input of Hooks.OnPostToolUse.
type PostToolUseInput struct {
	HookContext
	ToolName string          `json:"toolName"`
	ToolArgs json.RawMessage `json:"toolArgs,omitempty"`
	// ToolResult is the tool's result object
	// ({"textResultForLlm","resultType",…}).
	ToolResult json.RawMessage `json:"toolResult,omitempty"`
}

// PostToolUseOutput is the output of Hooks.OnPostToolUse.
type PostToolUseOutput struct {
	// ModifiedResult, when set, is the result the model sees, in the shape
	// of PostToolUseInput.ToolResult.
	ModifiedResult    json.RawMessage `json:"modifiedResult,omitempty"`
	AdditionalContext string          `json:"additionalContext,omitempty"`
	SuppressOutput    bool            `json:"suppressOutput,omitempty"`
}

// PostToolUseFailureInput is the input of Hooks.OnPostToolUseFailure.
type PostToolUseFailureInput struct {
	HookContext
	ToolName string          `json:"toolName"`
	ToolArgs json.RawMessage `json:"toolArgs,omitempty"`
	// Error is the failure's message.
	Error string `json:"error"`
}

// PostToolUseFailureOutput is the output of Hooks.OnPostToolUseFailure.
type PostToolUseFailureOutput struct {
	// AdditionalContext is given to the model beside the failed result.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// UserPromptSubmittedInput is the input of Hooks.OnUserPromptSubmitted.
type UserPromptSubmittedInput struct {
	HookContext
	Prompt string `json:"prompt"`
}

// UserPromptSubmittedOutput is the output of Hooks.OnUserPromptSubmitted.
type UserPromptSubmittedOutput struct {
	// ModifiedPrompt, when set, is the prompt the model gets instead.
	ModifiedPrompt    string `json:"modifiedPrompt,omitempty"`
	AdditionalContext string `json:"additionalContext,omitempty"`
	SuppressOutput    bool   `json:"suppressOutput,omitempty"`
	// Decision HookBlock refuses the prompt: no model call, no message
	// recorded; the session warns (session.warning) with Reason.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// SessionStartInput is the input of Hooks.OnSessionStart.
type SessionStartInput struct {
	HookContext
	// Source is "new", "resume" or "startup".
	Source        string `json:"source"`
	InitialPrompt string `json:"initialPrompt,omitempty"`
}

// SessionStartOutput is the output of Hooks.OnSessionStart.
type SessionStartOutput struct {
	AdditionalContext string         `json:"additionalContext,omitempty"`
	ModifiedConfig    map[string]any `json:"modifiedConfig,omitempty"`
}

// SessionEndInput is the input of Hooks.OnSessionEnd.
type SessionEndInput struct {
	HookContext
	// Reason is "complete", "error", "abort", "timeout" or "user_exit".
	Reason       string `json:"reason"`
	FinalMessage string `json:"finalMessage,omitempty"`
	// Error is the error's message, when one ended the session.
	Error string `json:"error,omitempty"`
}

// SessionEndOutput is the output of Hooks.OnSessionEnd.
type SessionEndOutput struct {
	SuppressOutput bool     `json:"suppressOutput,omitempty"`
	CleanupActions []string `json:"cleanupActions,omitempty"`
	SessionSummary string   `json:"sessionSummary,omitempty"`
}

// ErrorOccurredInput is the input of Hooks.OnErrorOccurred.
type ErrorOccurredInput struct {
	HookContext
	Error string `json:"error"`
	// ErrorContext is "model_call", "tool_execution", "system" or
	// "user_input".
	ErrorContext string `json:"errorContext"`
	Recoverable  bool   `json:"recoverable"`
}

// ErrorOccurredOutput is the output of Hooks.OnErrorOccurred.
type ErrorOccurredOutput struct {
	SuppressOutput bool `json:"suppressOutput,omitempty"`
	// ErrorHandling is "retry", "skip" or "abort".
	ErrorHandling    string `json:"errorHandling,omitempty"`
	RetryCount       int    `json:"retryCount,omitempty"`
	UserNotification string `json:"userNotification,omitempty"`
}

// AgentStopInput is the input of Hooks.OnAgentStop.
type AgentStopInput struct {
	HookContext
	StopReason     string `json:"stopReason,omitempty"`
	TranscriptPath string `json:"transcriptPath,omitempty"`
	// StopHookActive is true when this stop follows a HookBlock of an
	// earlier one: a hook that blocks again may keep the agent going
	// without end (the CLI caps the run).
	StopHookActive bool `json:"stop_hook_active,omitempty"`
}

// AgentStopOutput is the output of Hooks.OnAgentStop.
type AgentStopOutput struct {
	// Decision HookBlock keeps the agent working: Reason is given to it as
	// the next user message.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// set reports whether a hook is set.
func (h *Hooks) set() bool {
	return h != nil && (h.OnPreToolUse != nil || h.OnPostToolUse != nil || h.OnPostToolUseFailure != nil ||
		h.OnUserPromptSubmitted != nil || h.OnSessionStart != nil || h.OnSessionEnd != nil ||
		h.OnErrorOccurred != nil || h.OnAgentStop != nil)
}

// invoker answers hooks.invoke with h's hooks, for the session s. A hook
// type without a hook (the CLI asks for every type once hooks are on),
// or a hook that fails, gets no output.
func (h *Hooks) invoker(s *Session) func(context.Context, *protocol.HookInvokeRequest) (*protocol.HookInvokeResponse, error) {
	return func(ctx context.Context, p *protocol.HookInvokeRequest) (*protocol.HookInvokeResponse, error) {
		out, err := h.run(ctx, p.HookType, p.Input)
		if err != nil {
			s.log.Warn().Err(err).Str("hook", string(p.HookType)).Msg("a hook failed; the CLI goes on without its output")
			return &protocol.HookInvokeResponse{}, nil
		}
		return &protocol.HookInvokeResponse{Output: out}, nil
	}
}

// run runs the hook for typ with the raw input; nil output for none.
func (h *Hooks) run(ctx context.Context, typ protocol.HookType, in json.RawMessage) (json.RawMessage, error) {
	switch typ {
	case protocol.HookTypePreToolUse:
		return runHook(ctx, in, h.OnPreToolUse)
	case protocol.HookTypePostToolUse:
		return runHook(ctx, in, h.OnPostToolUse)
	case protocol.HookTypePostToolUseFailure:
		return runHook(ctx, in, h.OnPostToolUseFailure)
	case protocol.HookTypeUserPromptSubmitted:
		return runHook(ctx, in, h.OnUserPromptSubmitted)
	case protocol.HookTypeSessionStart:
		return runHook(ctx, in, h.OnSessionStart)
	case protocol.HookTypeSessionEnd:
		return runHook(ctx, errorAsText(in), h.OnSessionEnd)
	case protocol.HookTypeErrorOccurred:
		return runHook(ctx, errorAsText(in), h.OnErrorOccurred)
	case protocol.HookTypeAgentStop:
		return runHook(ctx, in, h.OnAgentStop)
	}
	return nil, nil
}

// runHook decodes in, calls fn and encodes its output; nil when fn is nil
// or gives none. A panic in fn is its error.
func runHook[I any, PI interface {
	*I
	hookContext() *HookContext
}, O any](ctx context.Context, in json.RawMessage, fn func(context.Context, I) (*O, error)) (out json.RawMessage, err error) {
	if fn == nil {
		return nil, nil
	}
	var input I
	if err := json.Unmarshal(in, &input); err != nil {
		return nil, fmt.Errorf("decoding the hook's input: %w", err)
	}
	var stamp struct {
		Timestamp int64 `json:"timestamp"`
	}
	if json.Unmarshal(in, &stamp) == nil && stamp.Timestamp != 0 {
		PI(&input).hookContext().Time = time.UnixMilli(stamp.Timestamp)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("the hook panicked: %v", p)
		}
	}()
	o, err := fn(ctx, input)
	if err != nil || o == nil {
		return nil, err
	}
	return json.Marshal(o)
}

// errorAsText turns an input's "error" object ({"message",…}), as the CLI
// sends it to the session-end and error hooks, into its message, so that
// the inputs' Error is a plain string.
func errorAsText(in json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(in, &fields) != nil {
		return in
	}
	var e struct {
		Message string `json:"message"`
	}
	raw, ok := fields["error"]
	if !ok || len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
		return in
	}
	fields["error"], _ = json.Marshal(e.Message)
	out, err := json.Marshal(fields)
	if err != nil {
		return in
	}
	return out
}
