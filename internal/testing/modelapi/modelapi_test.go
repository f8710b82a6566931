package modelapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
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
