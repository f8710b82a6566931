package modelapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

func TestStreamedTextInChunks(t *testing.T) {
	s, c := startServer(t, map[string]Responder{"m": Fixed(Text("Hello, wörld!").WithChunks(3))})
	resp := mustPost(t, c, s.URL(), chatBody("m", true, "hi"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, done := readSSE(t, resp.Body)
	if !done {
		t.Fatal("stream did not end with [DONE]")
	}
	chunks := decodeChunks(t, events)
	if len(chunks) != 4 {
		t.Fatalf("got %d chunks, want 3 text + 1 finishing: %q", len(chunks), events)
	}
	var text []string
	for i, ch := range chunks {
		if ch.Object != "chat.completion.chunk" || ch.Model != "m" || ch.ID != chunks[0].ID || ch.ID == "" {
			t.Errorf("chunk %d header: %+v", i, ch)
		}
		if len(ch.Choices) != 1 || ch.Choices[0].Index != 0 {
			t.Fatalf("chunk %d choices: %s", i, events[i])
		}
		if i < 3 {
			if ch.Choices[0].Delta.Content == nil || ch.Choices[0].Delta.Role != "assistant" || ch.Choices[0].FinishReason != nil {
				t.Errorf("text chunk %d: %s", i, events[i])
				continue
			}
			text = append(text, *ch.Choices[0].Delta.Content)
		}
	}
	// 13 runes in 3 pieces: 5+4+4, split on runes so "ö" stays whole.
	if want := []string{"Hello", ", wö", "rld!"}; !reflect.DeepEqual(text, want) {
		t.Errorf("pieces = %q, want %q", text, want)
	}
	last := chunks[3]
	if fr := last.Choices[0].FinishReason; fr == nil || *fr != "stop" {
		t.Errorf("last chunk finish_reason: %s", events[3])
	}
	u := last.Usage
	if u == nil || u.PromptTokens <= 0 || u.CompletionTokens != 4 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v, want completion 4 (14 bytes / 4, rounded up) and a consistent total", u)
	}
}

func TestStreamedToolCallShape(t *testing.T) {
	s, c := startServer(t, map[string]Responder{"m": Fixed(ToolCall("lookup", `{"q":"x"}`))})
	resp := mustPost(t, c, s.URL(), chatBody("m", true, "find x"))
	events, done := readSSE(t, resp.Body)
	if !done || len(events) != 1 {
		t.Fatalf("want one chunk then [DONE], got %q done=%v", events, done)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(events[0]), &got); err != nil {
		t.Fatal(err)
	}
	// id and created vary; everything else must be exactly the shape that
	// shared/PROTOCOL.md records the CLI accepting.
	if id, _ := got["id"].(string); id == "" {
		t.Errorf("chunk has no id: %s", events[0])
	}
	if _, ok := got["created"].(float64); !ok {
		t.Errorf("chunk has no created: %s", events[0])
	}
	delete(got, "id")
	delete(got, "created")
	delete(got, "usage")
	var want map[string]any
	if err := json.Unmarshal([]byte(`{
		"object":"chat.completion.chunk","model":"m",
		"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[
			{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}}]},
			"finish_reason":"tool_calls"}]}`), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tool call chunk\n got %v\nwant %v", got, want)
	}
}

func TestStreamedTextThenSeveralToolCalls(t *testing.T) {
	r := ToolCalls(Call{ID: "a", Name: "one"}, Call{Name: "two", Arguments: `{"n":2}`})
	r.Text = "Let me check."
	s, c := startServer(t, map[string]Responder{"m": Fixed(r)})
	resp := mustPost(t, c, s.URL(), chatBody("m", true, "go"))
	events, _ := readSSE(t, resp.Body)
	chunks := decodeChunks(t, events)
	if len(chunks) != 2 || chunks[0].Choices[0].Delta.Content == nil || *chunks[0].Choices[0].Delta.Content != "Let me check." {
		t.Fatalf("want the text chunk then the tool calls chunk, got %q", events)
	}
	var calls []struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(chunks[1].Choices[0].Delta.ToolCalls, &calls); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Index != 0 || calls[0].ID != "a" || calls[0].Function.Arguments != "{}" ||
		calls[1].Index != 1 || calls[1].ID != "call_2" || calls[1].Function.Name != "two" || calls[1].Function.Arguments != `{"n":2}` {
		t.Errorf("tool calls = %+v", calls)
	}
}

func TestNonStreaming(t *testing.T) {
	s, c := startServer(t, map[string]Responder{
		"text": Fixed(Text("plain answer").WithChunks(5).WithUsage(7, 3)),
		"tool": Fixed(ToolCall("lookup", `{"q":1}`)),
	})
	type body struct {
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role      string          `json:"role"`
				Content   *string         `json:"content"`
				ToolCalls json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage Usage `json:"usage"`
	}
	decode := func(model string) body {
		resp := mustPost(t, c, s.URL(), chatBody(model, false, "q"))
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json" {
			t.Fatalf("%s: status %d, content type %q", model, resp.StatusCode, ct)
		}
		var b body
		if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}

	b := decode("text")
	if b.Object != "chat.completion" || b.Model != "text" || len(b.Choices) != 1 {
		t.Fatalf("body %+v", b)
	}
	m := b.Choices[0].Message
	if m.Role != "assistant" || m.Content == nil || *m.Content != "plain answer" || b.Choices[0].FinishReason != "stop" {
		t.Errorf("text choice %+v", b.Choices[0])
	}
	if b.Usage != (Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}) {
		t.Errorf("usage = %+v, want the scripted 7+3", b.Usage)
	}

	b = decode("tool")
	m = b.Choices[0].Message
	if m.Content != nil || b.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("tool choice: content %v, finish %q", m.Content, b.Choices[0].FinishReason)
	}
	var calls []map[string]any
	if err := json.Unmarshal(m.ToolCalls, &calls); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"id": "call_1", "type": "function", "function": map[string]any{"name": "lookup", "arguments": `{"q":1}`}}}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("tool_calls = %v, want %v (no index outside a stream)", calls, want)
	}
}
