package copilot

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// A Prompt becomes session.send's params, field for field, and its
// attachments take the shapes the CLI reads.
func TestPromptParams(t *testing.T) {
	p := Prompt{
		Text:           "look",
		DisplayText:    "look (shown)",
		Mode:           protocol.SendModeImmediate,
		RequestHeaders: map[string]string{"X-Trace": "1"},
		AgentMode:      protocol.SendAgentMode("plan"),
		Attachments: []protocol.Attachment{
			FileAttachment("/src/main.go"),
			DirectoryAttachment("/src"),
			SelectionAttachment("/src/main.go", "func main() {}"),
			BlobAttachment([]byte("png!"), "image/png", "dot.png"),
		},
	}
	raw, err := json.Marshal(p.params())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sessionId":"","prompt":"look","displayPrompt":"look (shown)","mode":"immediate","agentMode":"plan",
		"requestHeaders":{"X-Trace":"1"},"attachments":[
		{"type":"file","path":"/src/main.go","displayName":"main.go"},
		{"type":"directory","path":"/src","displayName":"src"},
		{"type":"selection","filePath":"/src/main.go","text":"func main() {}","displayName":"main.go"},
		{"type":"blob","data":"cG5nIQ==","mimeType":"image/png","displayName":"dot.png"}]}`
	if !jsonEqual(t, raw, want) {
		t.Fatalf("params = %s\nwant %s", raw, want)
	}
}

var invalidPrompts = []struct {
	name  string
	p     Prompt
	field string
}{
	{"attachment without type", Prompt{Text: "x", Attachments: []protocol.Attachment{{Path: "/a"}}}, "Attachments[0] has no Type"},
	{"file without path", Prompt{Text: "x", Attachments: []protocol.Attachment{FileAttachment("/a"), {Type: "file"}}}, "Attachments[1] (file) has no Path"},
	{"directory without path", Prompt{Text: "x", Attachments: []protocol.Attachment{{Type: "directory"}}}, "Attachments[0] (directory)"},
	{"selection without file", Prompt{Text: "x", Attachments: []protocol.Attachment{{Type: "selection", Text: "t"}}}, "FilePath"},
	{"blob without MIME type", Prompt{Text: "x", Attachments: []protocol.Attachment{{Type: "blob", Data: "AA=="}}}, "MimeType"},
	{"unknown mode", Prompt{Text: "x", Mode: "later"}, "Mode"},
	{"output format while steering", Prompt{Text: "x", Mode: protocol.SendModeImmediate, ResponseFormat: &protocol.ResponseFormat{Type: "json_schema"}}, "ResponseFormat"},
}

// A Prompt the CLI would refuse is refused before anything is sent.
func TestInvalidPromptIsNotSent(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	for _, tc := range invalidPrompts {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.p.Validate(); !errors.Is(err, ErrInvalidPrompt) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("Validate() = %v, want ErrInvalidPrompt naming %s", err, tc.field)
			}
			if _, err := s.StreamPrompt(ctx, tc.p, TurnHandlers{}); !errors.Is(err, ErrInvalidPrompt) {
				t.Errorf("StreamPrompt = %v", err)
			}
			if _, err := s.SendPrompt(ctx, tc.p); !errors.Is(err, ErrInvalidPrompt) {
				t.Errorf("SendPrompt = %v", err)
			}
		})
	}
	if n := srv.Calls(protocol.MethodSessionSend); n != 0 {
		t.Errorf("%d session.send calls for refused prompts", n)
	}
	// The session still works.
	if r, err := s.StreamPrompt(ctx, Prompt{Text: "fine", Attachments: []protocol.Attachment{FileAttachment("/a.txt")}}, TurnHandlers{}); err != nil || r.Text != "echo: fine" {
		t.Fatalf("%q, %v", r.Text, err)
	}
}

// StreamPrompt reads its turn as Stream does; SendPrompt starts one that
// OnEvent sees.
func TestStreamPromptAndSendPrompt(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	events := make(eventLog, 256)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", OnEvent: events.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	var deltas strings.Builder
	r, err := s.StreamPrompt(ctx, Prompt{Text: "with a file", Attachments: []protocol.Attachment{FileAttachment("/etc/hostname")}},
		TurnHandlers{OnDelta: func(d string) { deltas.WriteString(d) }})
	if err != nil || r.Text != "echo: with a file" || deltas.String() != r.Text || r.MessageID == "" {
		t.Fatalf("%+v (deltas %q), %v", r, deltas.String(), err)
	}
	events.await(t, protocol.EventSessionIdle)
	id, err := s.SendPrompt(ctx, Prompt{Text: "in the background", RequestHeaders: map[string]string{"X-A": "b"}})
	if err != nil || id == "" {
		t.Fatalf("SendPrompt = %q, %v", id, err)
	}
	for {
		ev := events.await(t, protocol.EventAssistantMessage)
		var d protocol.AssistantMessageData
		if ev.UnmarshalData(&d) == nil && d.Content == "echo: in the background" {
			break
		}
	}
}
