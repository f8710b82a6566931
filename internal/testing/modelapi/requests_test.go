package modelapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

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
