package clitest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// TestSmoke runs the real CLI offline: handshake, model list, a session with
// a client-chosen id, and one streamed turn whose text comes from the local
// model API. It fails (never skips) when the CLI is not installed.
func TestSmoke(t *testing.T) {
	sb := NewSandbox(t)
	const answer = "The quick brown fox jumps over the lazy dog."
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		testModel: modelapi.Fixed(modelapi.Text(answer).WithChunks(5)),
		"gpt-5":   modelapi.Echo,
	}})
	c := startCLI(t, sb, api)

	var conn struct {
		OK              bool   `json:"ok"`
		ProtocolVersion int    `json:"protocolVersion"`
		Version         string `json:"version"`
	}
	c.mustCall(t, "connect", nil, &conn)
	if !conn.OK || conn.ProtocolVersion != 3 || conn.Version != Version {
		t.Fatalf("connect = %+v, want ok, protocol 3, version %s", conn, Version)
	}

	var models struct {
		Models []struct {
			ID string `json:"id"`
		} `json:"models"`
	}
	c.mustCall(t, "models.list", nil, &models)
	var ids []string
	for _, m := range models.Models {
		ids = append(ids, m.ID)
	}
	for _, want := range []string{testModel, "gpt-5"} {
		if !slices.Contains(ids, want) {
			t.Errorf("models.list = %v, missing the model API's %q", ids, want)
		}
	}

	sid := uuid.NewString()
	if got := c.createSession(t, sid, nil); got != sid {
		t.Fatalf("session id %q, want %q", got, sid)
	}

	mark := c.notes.len()
	var sent struct {
		MessageID string `json:"messageId"`
	}
	c.mustCall(t, "session.send", map[string]any{"sessionId": sid, "prompt": "Say the pangram."}, &sent)
	if sent.MessageID == "" {
		t.Error("session.send returned no messageId")
	}
	idle, _ := c.notes.waitFrom(t, mark, "session.idle", isEvent(sid, "session.idle"))
	turn := c.notes.since(mark)[:idle-mark+1]

	text, deltas := joinDeltas(turn, sid)
	if text != answer || deltas != 5 {
		t.Errorf("deltas = %d joined %q, want the model API's 5 chunks of %q", deltas, text, answer)
	}
	types := eventTypes(turn, sid)
	for _, typ := range []string{"user.message", "assistant.message", "assistant.usage"} {
		if indexOf(types, typ) < 0 {
			t.Errorf("turn lacks %s: %v", typ, types)
		}
	}
	if types[len(types)-1] != "session.idle" || indexOf(types, "session.error") >= 0 {
		t.Errorf("turn events %v: want it to end with session.idle and no error", types)
	}
	for _, n := range turn {
		if n.Type == "assistant.message" {
			var m struct {
				Content string `json:"content"`
			}
			_ = json.Unmarshal(n.Data, &m)
			if m.Content != answer {
				t.Errorf("assistant.message content %q, want %q", m.Content, answer)
			}
		}
	}

	// Closing stdin is how a client ends the CLI: it exits by itself, cleanly.
	if err := c.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
		if c.waitErr != nil {
			t.Errorf("CLI exit after stdin closed: %v, want status 0; stderr:\n%s", c.waitErr, c.stderr)
		}
	case <-time.After(hangGuard):
		t.Fatal("CLI still running after its stdin closed")
	}

	// Everything the CLI asked for went to the model API directly: nothing
	// needed the proxy safety net (which would show CONNECT host:port).
	for _, call := range api.Calls() {
		if strings.HasPrefix(call, "CONNECT ") || strings.Contains(call, "://") {
			t.Errorf("the CLI tried to reach outside: %s", call)
		}
	}

	reqs := api.Requests()
	if len(reqs) != 1 {
		t.Fatalf("model API got %d chat requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != testModel || !r.Stream || r.UserText != "Say the pangram." || r.Conversation != sid || len(r.Tools) != 0 {
		t.Errorf("chat request: model %q stream %v text %q conversation %q tools %d; want %s, streaming, the prompt, the session id, no tools (availableTools:[])",
			r.Model, r.Stream, r.UserText, r.Conversation, len(r.Tools), testModel)
	}
}
