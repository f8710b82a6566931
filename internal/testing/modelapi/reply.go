package modelapi

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// A Responder decides the model's answer to one chat request. It is called on
// the request's own goroutine, possibly concurrently with other requests, so
// a Responder that keeps state must guard it.
type Responder func(Request) Reply

// Reply describes one model answer. The zero Reply is an empty assistant
// message. Build one with [Text], [ToolCall], [ToolCalls], [Error] or [Stall]
// and adjust it with the With* methods; fields are exported so a test can
// also write a literal.
type Reply struct {
	// Text is the assistant content. With tool calls it is streamed before
	// them, as models do when they explain what they are about to call.
	Text string
	// Chunks is how many streamed pieces Text is split into (by runes, as
	// evenly as possible). Zero or one sends it in one piece; more than the
	// number of runes sends one rune per piece. Ignored for non-streaming
	// requests.
	Chunks int
	// ChunkDelay is the pause before each streamed piece after the first.
	ChunkDelay time.Duration
	// StartDelay is the pause before the status line is written, which is
	// what a slow model looks like to the caller (no headers, no bytes).
	StartDelay time.Duration
	// Calls are tool calls the model makes. The CLI runs them and then sends
	// a second request whose last message has role "tool".
	Calls []Call
	// Status, when not zero and not 200, answers with that HTTP status and
	// Body instead of a completion.
	Status int
	// Body is the error response body; when empty an OpenAI-style JSON error
	// naming the status is sent.
	Body string
	// Header holds extra response headers, such as Retry-After on a 429.
	Header http.Header
	// Stall, after the text pieces (if any) have been sent, holds the
	// response open until the request's context ends or the server closes.
	// It never sends finish_reason, [DONE] or usage: a model that hangs.
	Stall bool
	// Usage overrides the token counts the server would otherwise estimate.
	Usage *Usage
}

// Call is one tool call in a [Reply].
type Call struct {
	// ID is the tool call id; empty means "call_N" with N its 1-based index.
	ID string
	// Name is the tool's name as offered in the request.
	Name string
	// Arguments is the JSON text of the arguments object.
	Arguments string
}

// Usage is the OpenAI usage object.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Text is a plain assistant answer.
func Text(s string) Reply { return Reply{Text: s} }

// ToolCall is an answer that calls one tool with the given JSON arguments.
func ToolCall(name, argsJSON string) Reply {
	return Reply{Calls: []Call{{Name: name, Arguments: argsJSON}}}
}

// ToolCalls is an answer that calls several tools at once.
func ToolCalls(calls ...Call) Reply { return Reply{Calls: calls} }

// Error is an HTTP error answer: status with body (an OpenAI-style JSON error
// when body is empty).
func Error(status int, body string) Reply { return Reply{Status: status, Body: body} }

// Stall is a response that starts (status line and headers for a streaming
// request) and then never finishes until the request is cancelled.
func Stall() Reply { return Reply{Stall: true} }

// WithChunks returns r with its text split into n streamed pieces.
func (r Reply) WithChunks(n int) Reply { r.Chunks = n; return r }

// WithChunkDelay returns r with a pause before each streamed piece but the first.
func (r Reply) WithChunkDelay(d time.Duration) Reply { r.ChunkDelay = d; return r }

// WithStartDelay returns r delayed by d before anything is written.
func (r Reply) WithStartDelay(d time.Duration) Reply { r.StartDelay = d; return r }

// WithHeader returns r that also sends the response header key: value.
func (r Reply) WithHeader(key, value string) Reply {
	r.Header = r.Header.Clone()
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	r.Header.Add(key, value)
	return r
}

// WithStall returns r that stalls after sending its text pieces.
func (r Reply) WithStall() Reply { r.Stall = true; return r }

// WithUsage returns r reporting the given token counts.
func (r Reply) WithUsage(prompt, completion int) Reply {
	r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return r
}

// Fixed answers every request with the same reply.
func Fixed(r Reply) Responder { return func(Request) Reply { return r } }

// Echo answers with the user's text (its <current_datetime> prefix removed).
// After tool calls it answers with the tool results instead, joined by
// newlines, so a test can see that the result it returned reached the model.
func Echo(req Request) Reply {
	if req.HasToolResults {
		res := req.ToolResults()
		parts := make([]string, len(res))
		for i, m := range res {
			parts[i] = m.Content
		}
		return Text(strings.Join(parts, "\n"))
	}
	return Text(req.UserText)
}

// Sequence answers the n-th request of each conversation with replies[n]
// and repeats the last reply once they run out. Conversations are told apart
// by [Request.Conversation], so several sessions sharing one model each see
// the whole script. It is typically used for a tool call followed by text:
//
//	modelapi.Sequence(modelapi.ToolCall("lookup", `{"q":"x"}`), modelapi.Text("done"))
func Sequence(replies ...Reply) Responder {
	if len(replies) == 0 {
		panic("modelapi: Sequence needs at least one reply")
	}
	var mu sync.Mutex
	seen := make(map[string]int)
	return func(req Request) Reply {
		mu.Lock()
		n := seen[req.Conversation]
		seen[req.Conversation] = n + 1
		mu.Unlock()
		return replies[min(n, len(replies)-1)]
	}
}

// ToolThenText calls one tool on a fresh user prompt and answers with the
// text reply once the tool results come back. Unlike [Sequence] it keeps no
// state: it decides from the shape of the request alone.
func ToolThenText(name, argsJSON string, after Responder) Responder {
	return func(req Request) Reply {
		if req.HasToolResults {
			return after(req)
		}
		return ToolCall(name, argsJSON)
	}
}

// splitRunes splits s into n pieces of nearly equal rune counts (the first
// pieces take the remainder). n is clamped to [1, runes]; the empty string is
// one empty piece.
func splitRunes(s string, n int) []string {
	rs := []rune(s)
	if n > len(rs) {
		n = len(rs)
	}
	if n <= 1 {
		return []string{s}
	}
	out := make([]string, 0, n)
	size, extra := len(rs)/n, len(rs)%n
	for i, start := 0, 0; i < n; i++ {
		end := start + size
		if i < extra {
			end++
		}
		out = append(out, string(rs[start:end]))
		start = end
	}
	return out
}
