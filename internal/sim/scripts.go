package sim

// The scripts' building blocks: ready-made responses (Text, JSON, Fail,
// Hang, RateLimited) and scripts (Always, Echo, Sequence, AskUser, UseTool,
// Rules), and Paced for demos.

import (
	"encoding/json"
	"strings"
	"time"
)

// RateLimitMessage is session.error's message after a rate limit, as CLI
// 1.0.102 words it.
const RateLimitMessage = "You've hit your rate limit. Please wait for your limit to reset in under a minute or switch to auto model to continue. Learn More (https://docs.github.com/copilot/concepts/rate-limits)."

// RateLimited is a response that fails as CLI 1.0.102 fails when the model API
// answers 429 (once its retries are spent): a rate_limit session.error
// that offers the switch to the auto model (Failure.AutoModeSwitch), with
// retryAfterSeconds when it is positive.
func RateLimited(retryAfterSeconds int) Response {
	return Response{Failure: &Failure{
		Type:              "rate_limit",
		Message:           RateLimitMessage,
		ErrorCode:         "rate_limited",
		StatusCode:        429,
		AutoModeSwitch:    true,
		RetryAfterSeconds: retryAfterSeconds,
	}}
}

// Text is a response of plain text.
func Text(s string) Response { return Response{Text: s} }

// JSON is a response whose text is v marshalled to JSON (a verdict, a vote). A
// value that cannot be marshalled becomes a Failure.
func JSON(v any) Response {
	b, err := json.Marshal(v)
	if err != nil {
		return Fail("query", "sim: cannot marshal JSON reply: "+err.Error())
	}
	return Response{Text: string(b)}
}

// Fail is a response that fails the turn with session.error.
func Fail(errorType, message string) Response {
	return Response{Failure: &Failure{Type: errorType, Message: message}}
}

// Hang is a response that never ends on its own.
func Hang() Response { return Response{Hang: true} }

// Always answers every call with r.
func Always(r Response) func(Turn) Response {
	return func(Turn) Response { return r }
}

// Echo answers "echo: <prompt>".
func Echo(t Turn) Response { return Text("echo: " + t.Prompt) }

// Sequence answers turn n with replies[n-1]; turns past the end get the last
// one. Calls within a turn (after tool results) get the same reply, so keep
// tool calls out of it or use UseTool.
func Sequence(replies ...Response) func(Turn) Response {
	return func(t Turn) Response {
		if len(replies) == 0 {
			return Response{}
		}
		i := min(max(t.Number-1, 0), len(replies)-1)
		return replies[i]
	}
}

// AskUser puts q to the user on a turn's first model call, and hands every
// later call (which carries the answer: Turn.UserAnswer) to then.
func AskUser(q UserQuestion, then func(Turn) Response) func(Turn) Response {
	return func(t Turn) Response {
		if t.Call == 0 {
			q := q // each reply its own copy: a script may change it
			return Response{AskUser: &q}
		}
		return then(t)
	}
}

// UseTool asks for one call of tool name with args on a turn's first model
// call, and hands every later call (which carries the result) to then.
func UseTool(name string, args any, then func(Turn) Response) func(Turn) Response {
	return func(t Turn) Response {
		if t.Call == 0 {
			return Response{ToolCalls: []ToolCall{Call(name, args)}}
		}
		return then(t)
	}
}

// Rule answers the calls it matches.
type Rule struct {
	// Name labels the rule in diagnostics.
	Name    string
	Match   func(Turn) bool
	Respond func(Turn) Response
}

// Rules tries rules in order and answers with the first that matches, or
// with fallback. A nil fallback answers with an empty text.
func Rules(fallback func(Turn) Response, rules ...Rule) func(Turn) Response {
	return func(t Turn) Response {
		for _, r := range rules {
			if r.Match != nil && r.Respond != nil && r.Match(t) {
				return r.Respond(t)
			}
		}
		if fallback == nil {
			return Response{}
		}
		return fallback(t)
	}
}

// PromptContains matches prompts containing s.
func PromptContains(s string) func(Turn) bool {
	return func(t Turn) bool { return strings.Contains(t.Prompt, s) }
}

// SystemContains matches sessions whose system message contains s.
func SystemContains(s string) func(Turn) bool {
	return func(t Turn) bool { return strings.Contains(t.SystemMessage, s) }
}

// Paced returns copies of models whose replies, where they set no delays of
// their own, stream with the given first-token and per-chunk delays: for
// demos that should look like a live model.
func Paced(models []Model, firstToken, perChunk time.Duration) []Model {
	out := make([]Model, len(models))
	for i, m := range models {
		respond := m.Respond
		m.Respond = func(t Turn) Response {
			r := respond(t)
			if r.FirstTokenDelay == 0 && r.ChunkDelay == 0 {
				r.FirstTokenDelay, r.ChunkDelay = firstToken, perChunk
			}
			return r
		}
		out[i] = m
	}
	return out
}
