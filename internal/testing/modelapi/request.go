package modelapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
)

// Request is one chat completion request as the CLI sent it, parsed.
type Request struct {
	// Model is the "model" field: the model the session asked for.
	Model string
	// Messages is the whole conversation, system prompt first.
	Messages []Message
	// Tools is what the model was offered (none when the session was
	// created with availableTools:[] and no client tools).
	Tools []Tool
	// Stream is the "stream" flag: true for streaming sessions.
	Stream bool
	// Conversation is the X-Client-Session-Id header, which the CLI sets to
	// the session id; empty when absent (a non-CLI client).
	Conversation string
	// UserText is the content of the last user message with the CLI's
	// "<current_datetime>…</current_datetime>\n\n" prefix removed.
	UserText string
	// HasToolResults reports that the last message has role "tool": this
	// request carries results of tool calls the model made.
	HasToolResults bool
	// Header is a copy of the HTTP request headers.
	Header http.Header
}

// ToolResults returns the trailing run of role "tool" messages.
func (r Request) ToolResults() []Message {
	i := len(r.Messages)
	for i > 0 && r.Messages[i-1].Role == "tool" {
		i--
	}
	return r.Messages[i:]
}

// Message is one chat message. Content is flattened to text: the API allows
// either a string or an array of parts, and only the text parts matter here.
type Message struct {
	Role       string
	Content    string
	Name       string
	ToolCallID string
	ToolCalls  []Call
}

// Tool is one function tool offered to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments, as sent.
	Parameters json.RawMessage
}

// Wire shapes of the OpenAI chat completions API, only the fields we read.
type wireRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []wireMessage `json:"messages"`
	Tools    []wireTool    `json:"tools"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
}

type wireToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// datetimePrefix is what the CLI puts in front of every user prompt.
var datetimePrefix = regexp.MustCompile(`^<current_datetime>[^<]*</current_datetime>\n\n`)

func parseRequest(body []byte, h http.Header) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("decode chat request: %w", err)
	}
	if w.Model == "" {
		return Request{}, fmt.Errorf("chat request has no model")
	}
	req := Request{
		Model:        w.Model,
		Stream:       w.Stream,
		Conversation: h.Get("X-Client-Session-Id"),
		Header:       h.Clone(),
	}
	for i, wm := range w.Messages {
		text, err := contentText(wm.Content)
		if err != nil {
			return Request{}, fmt.Errorf("message %d: %w", i, err)
		}
		m := Message{Role: wm.Role, Content: text, Name: wm.Name, ToolCallID: wm.ToolCallID}
		for _, tc := range wm.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, m)
		if m.Role == "user" {
			req.UserText = datetimePrefix.ReplaceAllString(m.Content, "")
		}
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
		req.HasToolResults = true
	}
	for _, wt := range w.Tools {
		req.Tools = append(req.Tools, Tool{Name: wt.Function.Name, Description: wt.Function.Description, Parameters: wt.Function.Parameters})
	}
	return req, nil
}

// contentText flattens a message content: a string, null, or an array of
// parts of which the "text" ones are concatenated.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}
