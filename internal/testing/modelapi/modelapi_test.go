package modelapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds every wait in these tests. It is far above anything the
// tests need on a loaded machine; it only turns a hang into a failure.
const hangGuard = 30 * time.Second

func startServer(t *testing.T, models map[string]Responder) (*Server, *http.Client) {
	t.Helper()
	s, err := Start(Config{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, &http.Client{Transport: tr, Timeout: hangGuard}
}

// chatBody builds a chat request the way the CLI does: system prompt, user
// prompt with the datetime prefix, optional extra messages.
func chatBody(model string, stream bool, prompt string, extra ...map[string]any) map[string]any {
	msgs := []map[string]any{
		{"role": "system", "content": "You are a test."},
		{"role": "user", "content": "<current_datetime>2026-01-02T03:04:05.000+00:00</current_datetime>\n\n" + prompt},
	}
	msgs = append(msgs, extra...)
	return map[string]any{"model": model, "stream": stream, "messages": msgs}
}

func post(ctx context.Context, t *testing.T, c *http.Client, url string, body any, hdr ...string) (*http.Response, error) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return c.Do(req)
}

func mustPost(t *testing.T, c *http.Client, url string, body any, hdr ...string) *http.Response {
	t.Helper()
	resp, err := post(context.Background(), t, c, url, body, hdr...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE returns the raw JSON of every data event before [DONE], and
// whether [DONE] was seen.
func readSSE(t *testing.T, r io.Reader) (events []string, done bool) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected SSE line %q", line)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		if done {
			t.Fatalf("data after [DONE]: %s", data)
		}
		events = append(events, data)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	return events, done
}

type testChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string          `json:"role"`
			Content   *string         `json:"content"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage"`
}

func decodeChunks(t *testing.T, events []string) []testChunk {
	t.Helper()
	out := make([]testChunk, len(events))
	for i, e := range events {
		if err := json.Unmarshal([]byte(e), &out[i]); err != nil {
			t.Fatalf("chunk %d %s: %v", i, e, err)
		}
	}
	return out
}

func getJSON(t *testing.T, c *http.Client, url string, v any) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %v in %s", url, err, b)
		}
	}
	return resp.StatusCode
}

func TestEndpoints(t *testing.T) {
	s, c := startServer(t, map[string]Responder{"zeta": Echo, "alpha": Echo})
	s.SetModel("beta", Echo)
	s.SetModel("alpha", Fixed(Text("replaced"))) // replacing keeps its place

	var models struct {
		Data []struct {
			ID           string `json:"id"`
			Name         string `json:"name"`
			Capabilities struct {
				Supports map[string]bool `json:"supports"`
				Limits   struct {
					MaxContextWindowTokens int `json:"max_context_window_tokens"`
				} `json:"limits"`
			} `json:"capabilities"`
		} `json:"data"`
	}
	if code := getJSON(t, c, s.URL()+"/models", &models); code != http.StatusOK {
		t.Fatalf("GET /models: %d", code)
	}
	var ids []string
	for _, m := range models.Data {
		ids = append(ids, m.ID)
		if m.Name != m.ID || !m.Capabilities.Supports["vision"] || m.Capabilities.Limits.MaxContextWindowTokens != 128000 {
			t.Errorf("model entry %+v lacks the fields the CLI needs", m)
		}
	}
	if want := []string{"alpha", "zeta", "beta"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("model ids = %v, want %v", ids, want)
	}

	var user struct {
		Login     string            `json:"login"`
		Plan      string            `json:"copilot_plan"`
		Endpoints map[string]string `json:"endpoints"`
	}
	if code := getJSON(t, c, s.URL()+"/copilot_internal/user", &user); code != http.StatusOK {
		t.Fatalf("GET user: %d", code)
	}
	if user.Endpoints["api"] != s.URL() || user.Endpoints["telemetry"] != s.URL()+"/telemetry" || user.Plan == "" || user.Login == "" {
		t.Errorf("user = %+v, want endpoints at %s", user, s.URL())
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q is not on loopback", s.URL())
	}

	for _, p := range []string{"/copilot_internal/team_customizations", "/mcp/readonly", "/nope"} {
		if code := getJSON(t, c, s.URL()+p, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
	resp, err := c.Post(s.URL()+"/mcp/readonly", "application/json", strings.NewReader(`{"jsonrpc":"2.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp/readonly = %d, want 404", resp.StatusCode)
	}
	resp, err = c.Post(s.URL()+"/telemetry/telemetry", "application/x-json-stream", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("POST telemetry = %d, want 204", resp.StatusCode)
	}

	calls := s.Calls()
	if len(calls) != 7 || calls[0] != "GET /models" || calls[5] != "POST /mcp/readonly" {
		t.Errorf("Calls() = %q", calls)
	}
}

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

func TestRequestParsingAndToolRoundTrip(t *testing.T) {
	s, c := startServer(t, map[string]Responder{"m": ToolThenText("lookup", `{"q":"x"}`, Echo)})
	first := chatBody("m", true, "find x")
	first["tools"] = []map[string]any{{"type": "function", "function": map[string]any{
		"name": "lookup", "description": "Looks things up", "parameters": map[string]any{"type": "object"}}}}
	resp := mustPost(t, c, s.URL(), first, "X-Client-Session-Id", "sess-1")
	events, _ := readSSE(t, resp.Body)
	if chunks := decodeChunks(t, events); len(chunks) != 1 || chunks[0].Choices[0].Delta.ToolCalls == nil {
		t.Fatalf("first answer should be the tool call: %q", events)
	}

	// The CLI's follow-up: the assistant's call, then its result, with the
	// content as an array of parts this time.
	second := chatBody("m", true, "find x",
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{
			{"id": "call_1", "type": "function", "function": map[string]any{"name": "lookup", "arguments": `{"q":"x"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": []map[string]any{
			{"type": "text", "text": "x is "}, {"type": "image_url"}, {"type": "text", "text": "42"}}},
	)
	resp = mustPost(t, c, s.URL(), second, "X-Client-Session-Id", "sess-1")
	events, _ = readSSE(t, resp.Body)
	chunks := decodeChunks(t, events)
	if len(chunks) != 2 || chunks[0].Choices[0].Delta.Content == nil || *chunks[0].Choices[0].Delta.Content != "x is 42" {
		t.Fatalf("Echo after the tool should answer with its result: %q", events)
	}

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	r0, r1 := reqs[0], reqs[1]
	if r0.Model != "m" || !r0.Stream || r0.Conversation != "sess-1" || r0.UserText != "find x" || r0.HasToolResults {
		t.Errorf("first request = model %q stream %v conv %q text %q tool results %v", r0.Model, r0.Stream, r0.Conversation, r0.UserText, r0.HasToolResults)
	}
	if len(r0.Tools) != 1 || r0.Tools[0].Name != "lookup" || r0.Tools[0].Description != "Looks things up" || string(r0.Tools[0].Parameters) != `{"type":"object"}` {
		t.Errorf("tools = %+v", r0.Tools)
	}
	if r0.Header.Get("X-Client-Session-Id") != "sess-1" {
		t.Errorf("headers not recorded: %v", r0.Header)
	}
	if !r1.HasToolResults || r1.UserText != "find x" || len(r1.Tools) != 0 {
		t.Errorf("second request: tool results %v text %q tools %d", r1.HasToolResults, r1.UserText, len(r1.Tools))
	}
	if len(r1.Messages) != 4 {
		t.Fatalf("second request has %d messages, want 4", len(r1.Messages))
	}
	a, tool := r1.Messages[2], r1.Messages[3]
	if a.Role != "assistant" || a.Content != "" || !reflect.DeepEqual(a.ToolCalls, []Call{{ID: "call_1", Name: "lookup", Arguments: `{"q":"x"}`}}) {
		t.Errorf("assistant message = %+v", a)
	}
	if tool.Role != "tool" || tool.ToolCallID != "call_1" || tool.Content != "x is 42" {
		t.Errorf("tool message = %+v", tool)
	}
	if res := r1.ToolResults(); len(res) != 1 || res[0].ToolCallID != "call_1" {
		t.Errorf("ToolResults() = %+v", res)
	}
	if !strings.HasPrefix(r1.Messages[1].Content, "<current_datetime>") {
		t.Errorf("Messages must keep the raw content; got %q", r1.Messages[1].Content)
	}

	// Requests returns a copy: changing it does not change the record.
	reqs[0].Model = "changed"
	if s.Requests()[0].Model != "m" {
		t.Error("Requests() shares its slice with the server")
	}
}

func TestConversationsAndSequence(t *testing.T) {
	s, c := startServer(t, map[string]Responder{"m": Sequence(Text("one"), Text("two"))})
	s.SetConversation("special", Fixed(Text("special")))
	say := func(conv string) string {
		resp := mustPost(t, c, s.URL(), chatBody("m", false, "x"), "X-Client-Session-Id", conv)
		var b struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&b); err != nil || len(b.Choices) != 1 {
			t.Fatalf("decode: %v %+v", err, b)
		}
		return b.Choices[0].Message.Content
	}
	got := []string{say("a"), say("b"), say("a"), say("a"), say("special"), say("b")}
	if want := []string{"one", "one", "two", "two", "special", "two"}; !reflect.DeepEqual(got, want) {
		t.Errorf("answers = %q, want %q", got, want)
	}
	s.SetConversation("special", nil)
	if got := say("special"); got != "one" {
		t.Errorf("after removing the override: %q, want the model's script", got)
	}
}

func TestErrors(t *testing.T) {
	s, c := startServer(t, map[string]Responder{
		"boom":  Fixed(Error(http.StatusInternalServerError, `{"error":{"message":"kaput"}}`)),
		"limit": Fixed(Error(http.StatusTooManyRequests, "").WithHeader("Retry-After", "7")),
		"text":  Fixed(Error(http.StatusBadGateway, "bad gateway")),
	})
	for _, tc := range []struct {
		model, body string
		status      int
		ctype, want string
	}{
		{"boom", "", 500, "application/json", `{"error":{"message":"kaput"}}`},
		{"limit", "", 429, "application/json", `"code":"modelapi_error"`},
		{"text", "", 502, "text/plain; charset=utf-8", "bad gateway"},
		{"unknown", "", 404, "application/json", `"code":"model_not_found"`},
	} {
		for _, stream := range []bool{true, false} {
			resp := mustPost(t, c, s.URL(), chatBody(tc.model, stream, "x"))
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.ctype || !strings.Contains(string(b), tc.want) {
				t.Errorf("%s stream=%v: %d %q %s", tc.model, stream, resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			if ra := resp.Header.Get("Retry-After"); (tc.model == "limit") != (ra == "7") {
				t.Errorf("%s: Retry-After %q; only the 429 reply sets it", tc.model, ra)
			}
		}
	}

	resp, err := c.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed body: %d, want 400", resp.StatusCode)
	}
	if n := len(s.Requests()); n != 8 {
		t.Errorf("recorded %d requests, want the 8 well-formed ones (failures included)", n)
	}
}

// waitIdle waits until no chat handler is running.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for s.Active() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a chat handler is still running: cancellation was not honoured")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStallHonoursCancel(t *testing.T) {
	s, c := startServer(t, map[string]Responder{
		"bare":    Fixed(Stall()),
		"partial": Fixed(Text("thinking").WithStall()),
	})
	for _, tc := range []struct {
		model  string
		stream bool
		first  string // the only chunk expected before the stall
	}{
		{"bare", true, ""},
		{"partial", true, "thinking"},
		{"bare", false, ""},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan string, 1)
		errc := make(chan error, 1)
		go func() {
			resp, err := post(ctx, t, c, s.URL(), chatBody(tc.model, tc.stream, "x"))
			if err != nil {
				errc <- err
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			if tc.first != "" {
				line, err := br.ReadString('\n')
				if err != nil {
					errc <- err
					return
				}
				got <- line
			} else {
				got <- "headers"
			}
			_, err = io.ReadAll(br)
			errc <- err
		}()

		if tc.stream {
			// A streaming stall sends its status and headers (and any text)
			// before it stalls.
			select {
			case line := <-got:
				if tc.first != "" && !strings.Contains(line, `"content":"thinking"`) {
					t.Errorf("%s: first line %q", tc.model, line)
				}
			case err := <-errc:
				t.Fatalf("%s: %v before the stall", tc.model, err)
			case <-time.After(hangGuard):
				t.Fatalf("%s: no headers from a streaming stall", tc.model)
			}
		}
		// Wait until the handler is running, then check nothing more comes.
		deadline := time.Now().Add(hangGuard)
		for s.Active() != 1 {
			if time.Now().After(deadline) {
				t.Fatal("the stalled request never reached the handler")
			}
			time.Sleep(time.Millisecond)
		}
		select {
		case err := <-errc:
			t.Fatalf("%s stream=%v: ended before cancel: %v", tc.model, tc.stream, err)
		case <-got:
			t.Fatalf("%s: a non-streaming stall sent headers", tc.model)
		default:
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s stream=%v: client error %v, want context.Canceled", tc.model, tc.stream, err)
			}
		case <-time.After(hangGuard):
			t.Fatal("client still blocked after cancel")
		}
		waitIdle(t, s)
	}
}

func TestDelaysHonourCancel(t *testing.T) {
	// An hour-long delay can only end through cancellation, so these show
	// where the delay sits without timing anything.
	s, c := startServer(t, map[string]Responder{
		"slowstart": Fixed(Text("late").WithStartDelay(time.Hour)),
		"slowchunk": Fixed(Text("ab").WithChunks(2).WithChunkDelay(time.Hour)),
		"quick":     Fixed(Text("ok").WithChunks(2).WithChunkDelay(time.Millisecond).WithStartDelay(time.Millisecond)),
	})

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		resp, err := post(ctx, t, c, s.URL(), chatBody("slowstart", true, "x"))
		if err == nil {
			resp.Body.Close()
			err = errors.New("got a response during the start delay")
		}
		errc <- err
	}()
	// A request that fails at once (a dial error) must fail the test, not
	// leave it waiting for a request the server never sees.
	for s.Active() != 1 {
		select {
		case err := <-errc:
			t.Fatalf("the request ended before the server took it: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("slow start: %v, want no headers until cancelled", err)
	}
	waitIdle(t, s)

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	resp, err := post(ctx, t, c, s.URL(), chatBody("slowchunk", true, "x"))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, `"content":"a"`) {
		t.Fatalf("first chunk %q %v: it must come without waiting for the chunk delay", line, err)
	}
	cancel()
	if _, err := io.ReadAll(br); !errors.Is(err, context.Canceled) {
		t.Errorf("second chunk should be held by the delay until cancel, got %v", err)
	}
	resp.Body.Close()
	waitIdle(t, s)

	resp = mustPost(t, c, s.URL(), chatBody("quick", true, "x"))
	if events, done := readSSE(t, resp.Body); !done || len(events) != 3 {
		t.Errorf("short delays: %q done=%v", events, done)
	}
}

func TestCloseEndsStalls(t *testing.T) {
	s, err := Start(Config{Models: map[string]Responder{"m": Fixed(Stall())}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: hangGuard}
	resp := mustPost(t, c, s.URL(), chatBody("m", true, "x"))
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Close hangs on a stalled response")
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("a stalled stream cut by Close read as a clean end")
	}
	if s.Active() != 0 {
		t.Error("handler still running after Close returned")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSplitRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want []string
	}{
		{"", 3, []string{""}},
		{"abc", 0, []string{"abc"}},
		{"abc", 1, []string{"abc"}},
		{"abc", 5, []string{"a", "b", "c"}},
		{"abcdefg", 3, []string{"abc", "de", "fg"}},
		{"héllo", 2, []string{"hél", "lo"}},
	} {
		if got := splitRunes(tc.s, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitRunes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestEchoAndSequenceEdges(t *testing.T) {
	r := Echo(Request{UserText: "hi"})
	if r.Text != "hi" || len(r.Calls) != 0 {
		t.Errorf("Echo = %+v", r)
	}
	r = Echo(Request{HasToolResults: true, Messages: []Message{
		{Role: "user", Content: "q"}, {Role: "tool", Content: "r1"}, {Role: "tool", Content: "r2"}}})
	if r.Text != "r1\nr2" {
		t.Errorf("Echo after tools = %q", r.Text)
	}
	defer func() {
		if recover() == nil {
			t.Error("Sequence() with no replies should panic")
		}
	}()
	Sequence()
}

func TestProxiedRequestsAreRecordedWithTheirTarget(t *testing.T) {
	s, _ := startServer(t, nil)
	proxy, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	// A client whose proxy is the server, as the CLI's is: nothing leaves
	// the machine, and the server notes where the request was headed.
	tr := &http.Transport{Proxy: http.ProxyURL(proxy)}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: hangGuard}
	if resp, err := c.Get("https://api.example.invalid/user"); err == nil {
		resp.Body.Close()
		t.Error("a CONNECT through the model API succeeded; it must be refused")
	}
	resp, err := c.Get("http://plain.example.invalid/x?y=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("proxied GET = %d, want 404", resp.StatusCode)
	}
	want := []string{"CONNECT api.example.invalid:443", "GET http://plain.example.invalid/x?y=1"}
	if got := s.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("Calls() = %q, want %q", got, want)
	}
}

func TestWithHeaderCopies(t *testing.T) {
	a := Text("x").WithHeader("Retry-After", "1")
	b := a.WithHeader("X-Extra", "2")
	if a.Header.Get("X-Extra") != "" || b.Header.Get("Retry-After") != "1" || b.Header.Get("X-Extra") != "2" {
		t.Errorf("WithHeader shares headers between replies: a=%v b=%v", a.Header, b.Header)
	}
}
