package sim

import (
	"encoding/json"
	"path"
	"time"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Hooks. In a session created (or resumed) with hooks:true, CLI 1.0.102 asks
// its client at fixed points of a turn with a hooks.invoke request
// {sessionId, hookType, input}, waits for the answer {output?} and goes on
// as the output says; an error answer, or none, is "no output". Each
// invocation is framed by hook.start and hook.end events. The simulator
// runs the hooks the real CLI was seen to run, with the inputs it sends:
//
//   - sessionStart {source: "new" (or "resume" after session.resume),
//     initialPrompt} at the session's first send; its output is not used.
//   - userPromptSubmitted {prompt} before user.message: modifiedPrompt is
//     what the model gets (user.message keeps the typed prompt as content
//     and carries the rewritten one as transformedContent); decision
//     "block" ends the turn with session.warning {warningType:
//     "policy_blocked", message: reason}, assistant.idle and session.idle,
//     and no user.message.
//   - userPromptTransformed {prompt, transformedPrompt}; its output is not
//     used.
//   - preToolUse {toolName, toolArgs} after tool.execution_start:
//     permissionDecision "deny" fails the tool ("Denied by preToolUse hook:
//     <reason>") without running it, "allow" runs it without asking
//     permission, "ask" asks permission (kind "hook") even for a tool that
//     skips it; modifiedArgs are the arguments the tool runs with.
//   - postToolUse {toolName, toolArgs, toolResult} after a tool succeeded:
//     modifiedResult is the result the model gets.
//   - postToolUseFailure {toolName, toolArgs, error} after a tool failed
//     (not after a refused permission); its output is not used.
//   - agentStop {stopReason: "end_turn", stop_hook_active: false,
//     transcriptPath} before the turn's assistant.idle; its output is not
//     used (a "block" does not keep the simulated agent working).
//
// Every input also carries sessionId, timestamp (Unix milliseconds) and cwd
// (the session's working directory, or "/" when it named none).

// The permission decisions of a preToolUse output.
const (
	hookAllow = "allow"
	hookDeny  = "deny"
	hookAsk   = "ask"
)

// noHookReason is what the CLI says when a hook gives no reason.
const noHookReason = "No reason provided"

// hookBase is what every hook's input carries.
type hookBase struct {
	Cwd       string `json:"cwd"`
	SessionID string `json:"sessionId"`
	Timestamp int64  `json:"timestamp"`
}

func (s *session) hookBase() hookBase {
	cwd := s.cwd
	if cwd == "" {
		cwd = "/"
	}
	return hookBase{Cwd: cwd, SessionID: s.id, Timestamp: time.Now().UnixMilli()}
}

// runHook invokes hook typ with input: hook.start (whose input is shown, or
// input when shown is nil), the hooks.invoke request, hook.end (with the
// output as show makes it, or the output itself when show is nil). It
// returns the client's output, nil when there is none or the client
// answered with an error; a non-nil error means the turn was stopped.
func (s *session) runHook(t *turn, typ protocol.HookType, input, shown any, show func(json.RawMessage) json.RawMessage) (json.RawMessage, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	if shown == nil {
		shown = json.RawMessage(in)
	}
	shownIn, err := json.Marshal(shown)
	if err != nil {
		return nil, err
	}
	invocation := uuid.NewString()
	if err := s.emit(t, protocol.EventHookStart, protocol.HookStartData{HookInvocationID: invocation, HookType: string(typ), Input: shownIn}); err != nil {
		return nil, err
	}
	a := s.conn.call(t.ctx, protocol.MethodHooksInvoke, protocol.HookInvokeRequest{SessionID: s.id, HookType: typ, Input: in})
	if a.Err != nil {
		return nil, errStopped
	}
	var out json.RawMessage
	if a.Error == nil {
		var r protocol.HookInvokeResponse
		if json.Unmarshal(a.Result, &r) == nil && len(r.Output) > 0 && string(r.Output) != "null" {
			out = r.Output
		}
	}
	end := protocol.HookEndData{HookInvocationID: invocation, HookType: string(typ), Success: true, Output: out}
	if show != nil {
		end.Output = show(out)
	}
	return out, s.emit(t, protocol.EventHookEnd, end)
}

// promptHooks runs the hooks of a send: sessionStart at the session's first,
// then userPromptSubmitted and userPromptTransformed. It returns the prompt
// the model gets, or blocked when a hook refused it (the turn has then
// ended); a non-nil error means the turn was stopped.
func (s *session) promptHooks(t *turn) (prompt string, blocked bool, err error) {
	s.mu.Lock()
	first := !s.hooksStarted
	s.hooksStarted = true
	source := "new"
	if s.resumed {
		source = "resume"
	}
	s.mu.Unlock()
	if first {
		in := struct {
			hookBase
			Source        string `json:"source"`
			InitialPrompt string `json:"initialPrompt,omitempty"`
		}{s.hookBase(), source, t.prompt}
		if _, err := s.runHook(t, protocol.HookTypeSessionStart, in, nil, nil); err != nil {
			return "", false, err
		}
	}

	prompt = t.prompt
	raw, err := s.runHook(t, protocol.HookTypeUserPromptSubmitted, struct {
		hookBase
		Prompt string `json:"prompt"`
	}{s.hookBase(), prompt}, nil, nil)
	if err != nil {
		return "", false, err
	}
	var out struct {
		ModifiedPrompt string `json:"modifiedPrompt"`
		Decision       string `json:"decision"`
		Reason         string `json:"reason"`
	}
	json.Unmarshal(raw, &out) // an output that does not decode is none
	if out.Decision == "block" {
		reason := out.Reason
		if reason == "" {
			reason = noHookReason
		}
		// The schema leaves session.warning's ephemerality open; the CLI
		// sends this one ephemeral.
		warning := protocol.WarningData{WarningType: "policy_blocked", Message: reason, OriginatingMessageID: t.messageID}
		if s.act(t, func() { s.emitEventLocked("", protocol.EventSessionWarning, warning, true) }) != nil ||
			s.emit(t, protocol.EventAssistantIdle, protocol.AssistantIdleData{}) != nil {
			return "", true, nil
		}
		s.finish(t, nil)
		return "", true, nil
	}
	if out.ModifiedPrompt != "" {
		prompt = out.ModifiedPrompt
	}
	_, err = s.runHook(t, protocol.HookTypeUserPromptTransformed, struct {
		hookBase
		Prompt            string `json:"prompt"`
		TransformedPrompt string `json:"transformedPrompt"`
	}{s.hookBase(), prompt, prompt}, nil, nil)
	return prompt, false, err
}

// preToolUseOutput is the part of a preToolUse output the simulator acts on.
type preToolUseOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	ModifiedArgs             json.RawMessage `json:"modifiedArgs"`
}

// preToolUseHook runs preToolUse for one tool call.
func (s *session) preToolUseHook(t *turn, req protocol.AssistantMessageToolRequest) (preToolUseOutput, error) {
	base := s.hookBase()
	in := struct {
		hookBase
		ToolName string          `json:"toolName"`
		ToolArgs json.RawMessage `json:"toolArgs,omitempty"`
	}{base, req.Name, req.Arguments}
	// hook.start shows the calls the hook runs for, as the real CLI does.
	type call struct {
		Args json.RawMessage `json:"args,omitempty"`
		ID   string          `json:"id"`
		Name string          `json:"name"`
	}
	shown := struct {
		Cwd       string `json:"cwd"`
		SessionID string `json:"sessionId"`
		ToolCalls []call `json:"toolCalls"`
	}{base.Cwd, base.SessionID, []call{{req.Arguments, req.ToolCallID, req.Name}}}
	var out preToolUseOutput
	_, err := s.runHook(t, protocol.HookTypePreToolUse, in, shown, func(raw json.RawMessage) json.RawMessage {
		json.Unmarshal(raw, &out) // an output that does not decode is none
		if out.PermissionDecision != hookDeny {
			return nil
		}
		reason := out.PermissionDecisionReason
		if reason == "" {
			reason = noHookReason
		}
		denied, _ := json.Marshal(map[string]string{req.ToolCallID: "Denied by preToolUse hook: " + reason})
		return denied
	})
	return out, err
}

// postToolUseHook runs postToolUse after a tool that succeeded, which may
// change its result, or postToolUseFailure after one that failed.
func (s *session) postToolUseHook(t *turn, res *ToolCallResult) error {
	base := s.hookBase()
	if !res.OK() {
		_, err := s.runHook(t, protocol.HookTypePostToolUseFailure, struct {
			hookBase
			ToolName string          `json:"toolName"`
			ToolArgs json.RawMessage `json:"toolArgs,omitempty"`
			Error    string          `json:"error"`
		}{base, res.Name, res.Arguments, res.Error}, nil, nil)
		return err
	}
	result := protocol.ExternalToolTextResultForLLM{TextResultForLLM: res.Text, ResultType: res.ResultType}
	var modified json.RawMessage
	_, err := s.runHook(t, protocol.HookTypePostToolUse, struct {
		hookBase
		ToolName   string                                `json:"toolName"`
		ToolArgs   json.RawMessage                       `json:"toolArgs,omitempty"`
		ToolResult protocol.ExternalToolTextResultForLLM `json:"toolResult"`
	}{base, res.Name, res.Arguments, result}, nil, func(raw json.RawMessage) json.RawMessage {
		var out struct {
			ModifiedResult json.RawMessage `json:"modifiedResult"`
		}
		json.Unmarshal(raw, &out) // an output that does not decode is none
		if len(out.ModifiedResult) == 0 || string(out.ModifiedResult) == "null" {
			return nil
		}
		modified = out.ModifiedResult
		return json.RawMessage(`{"modifiedResult":true}`)
	})
	if err != nil || modified == nil {
		return err
	}
	text, resultType, errText := parseToolResult(modified)
	res.Text, res.ResultType, res.Error = text, resultType, errText
	if errText != "" {
		res.ResultType = "failure"
	}
	return nil
}

// agentStopHook runs agentStop at the end of a turn.
func (s *session) agentStopHook(t *turn) error {
	_, err := s.runHook(t, protocol.HookTypeAgentStop, struct {
		hookBase
		StopReason     string `json:"stopReason"`
		StopHookActive bool   `json:"stop_hook_active"`
		TranscriptPath string `json:"transcriptPath"`
	}{s.hookBase(), "end_turn", false, path.Join(s.workspace, "events.jsonl")}, nil, nil)
	return err
}
