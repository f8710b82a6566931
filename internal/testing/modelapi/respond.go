package modelapi

// How a chat request is answered on the wire: streamed as server-sent
// events or as one chat.completion body, with usage, and the JSON shapes of
// both.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// stream writes the reply as server-sent events: the text pieces, then the
// tool calls, then a final chunk with finish_reason and usage, then [DONE].
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, req Request, reply Reply, id string, usage *Usage) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	created := time.Now().Unix()
	send := func(c chunk) bool {
		c.ID, c.Object, c.Created, c.Model = id, "chat.completion.chunk", created, req.Model
		b, err := json.Marshal(c)
		if err != nil {
			panic(err) // only our own types: cannot fail
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}

	// An empty answer still needs one content chunk to be a message; a bare
	// stall or a pure tool call needs none.
	var pieces []string
	if reply.Text != "" || (len(reply.Calls) == 0 && !reply.Stall) {
		pieces = splitRunes(reply.Text, reply.Chunks)
	}
	for i, p := range pieces {
		if i > 0 && !s.sleep(ctx, reply.ChunkDelay) {
			return
		}
		if !send(chunk{Choices: []chunkChoice{{Delta: delta{Role: "assistant", Content: &p}}}}) {
			return
		}
	}
	if reply.Stall {
		s.waitEnd(ctx)
		return
	}

	finish := "stop"
	if len(reply.Calls) > 0 {
		finish = "tool_calls"
		// The tool calls, whole, in the chunk that also ends the choice:
		// the shape shared/PROTOCOL.md records the CLI accepting.
		calls := wireCalls(reply.Calls, true)
		if !send(chunk{Choices: []chunkChoice{{Delta: delta{Role: "assistant", ToolCalls: calls}, FinishReason: &finish}}, Usage: usage, CopilotUsage: s.copilotUsage()}) {
			return
		}
	} else {
		// Usage rides on the finishing chunk; the CLI asks for it with
		// stream_options.include_usage and reports it as assistant.usage.
		if !send(chunk{Choices: []chunkChoice{{Delta: delta{}, FinishReason: &finish}}, Usage: usage, CopilotUsage: s.copilotUsage()}) {
			return
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// sleep waits d, or less when the request or the server ends first; it
// reports whether the full time passed.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		abort()
		return false
	}
}

// waitEnd blocks until the request is cancelled (the client gave up or
// disconnected) or the server closes.
func (s *Server) waitEnd(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
		abort()
	}
}

// abort ends the handler without completing the response, so a client whose
// stream is cut by Close sees a broken connection rather than a clean end of
// a chunked body (which would read as a model that just stopped talking).
func abort() { panic(http.ErrAbortHandler) }

// Wire shapes of the responses.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
	// CopilotUsage rides on the finishing chunk with Usage.
	CopilotUsage *copilotUsage `json:"copilot_usage,omitempty"`
}

// copilotUsage is what a token-billed account's response says it cost, in
// nano AI credits (10⁹ to the credit): the CLI 1.0.102 adds it up
// against a session's sessionLimits.maxAiCredits.
type copilotUsage struct {
	TotalNanoAIU float64 `json:"total_nano_aiu"`
	TokenDetails []any   `json:"token_details"`
}

// copilotUsage is the response's copilot_usage: Config.AICreditsPerRequest,
// or nil when it is not set.
func (s *Server) copilotUsage() *copilotUsage {
	if s.aiCredits <= 0 {
		return nil
	}
	return &copilotUsage{TotalNanoAIU: s.aiCredits * 1e9, TokenDetails: []any{}}
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role      string         `json:"role,omitempty"`
	Content   *string        `json:"content,omitempty"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type completionBody struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   *Usage             `json:"usage"`
	// CopilotUsage is as on a chunk.
	CopilotUsage *copilotUsage `json:"copilot_usage,omitempty"`
}

type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
}

type completionMessage struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

func completion(model, id string, reply Reply, usage *Usage, billed *copilotUsage) completionBody {
	msg := completionMessage{Role: "assistant"}
	finish := "stop"
	if len(reply.Calls) > 0 {
		finish = "tool_calls"
		msg.ToolCalls = wireCalls(reply.Calls, false)
	}
	// OpenAI sends content null, not "", on a pure tool-call answer.
	if reply.Text != "" || len(reply.Calls) == 0 {
		text := reply.Text
		msg.Content = &text
	}
	return completionBody{
		ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: model,
		Choices: []completionChoice{{Message: msg, FinishReason: finish}},
		Usage:   usage, CopilotUsage: billed,
	}
}

// wireCalls converts calls to the API shape; streamed tool calls carry an
// index, whole-message ones do not.
func wireCalls(calls []Call, indexed bool) []wireToolCall {
	out := make([]wireToolCall, len(calls))
	for i, c := range calls {
		tc := wireToolCall{ID: c.ID, Type: "function"}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d", i+1)
		}
		if indexed {
			tc.Index = &i
		}
		tc.Function.Name = c.Name
		tc.Function.Arguments = c.Arguments
		if tc.Function.Arguments == "" {
			tc.Function.Arguments = "{}"
		}
		out[i] = tc
	}
	return out
}

// estimateUsage counts about four characters per token, which is what
// tokenizers average on English; tests only need stable, non-zero numbers.
func estimateUsage(req Request, reply Reply) *Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	out := len(reply.Text)
	for _, c := range reply.Calls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := &Usage{PromptTokens: max(1, (in+3)/4), CompletionTokens: max(1, (out+3)/4)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own types: cannot fail
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError sends an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"message": msg, "type": code, "code": code}})
}

func contentTypeOf(body string) string {
	if json.Valid([]byte(body)) {
		return "application/json"
	}
	return "text/plain; charset=utf-8"
}
