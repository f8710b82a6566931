package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// The system prompt's modes, as session.create takes them: nothing for the
// CLI's prompt as it is, append by default.
func TestSystemMessageModes(t *testing.T) {
	for _, tc := range []struct {
		cfg  SessionConfig
		want string
	}{
		{SessionConfig{}, ``},
		{SessionConfig{SystemMode: SystemAppend}, ``},
		{SessionConfig{SystemMessage: "Be brief."}, `{"mode":"append","content":"Be brief."}`},
		{SessionConfig{SystemMessage: "You are a parser.", SystemMode: SystemReplace}, `{"mode":"replace","content":"You are a parser."}`},
		{SessionConfig{SystemMode: SystemCustomize, SystemSections: map[string]SectionOverride{SectionSafety: {Action: SectionPreserve}, SectionIdentity: {Action: SectionRemove}}},
			`{"mode":"customize","content":"","sections":{"safety":{"action":"preserve"},"identity":{"action":"remove"}}}`},
	} {
		m := tc.cfg.systemMessage()
		if tc.want == "" {
			if m != nil {
				t.Errorf("%+v: systemMessage %+v, want none", tc.cfg, m)
			}
			continue
		}
		raw, _ := json.Marshal(m)
		if !jsonEqual(t, raw, tc.want) {
			t.Errorf("%+v: systemMessage %s, want %s", tc.cfg, raw, tc.want)
		}
	}
}

// A section's Transform answers systemMessage.transform for its section;
// the other sections, and one whose Transform fails, come back as they
// were.
func TestSectionTransformAnswersSystemMessageTransform(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", SystemMode: SystemCustomize, SystemSections: map[string]SectionOverride{
		SectionTone: {Transform: func(_ context.Context, id, content string) (string, error) {
			return strings.ToUpper(content) + " (" + id + ")", nil
		}},
		SectionSafety: {Transform: func(context.Context, string, string) (string, error) { return "", errors.New("no") }},
		SectionGuidelines: {Transform: func(context.Context, string, string) (string, error) {
			panic("transform panics")
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	a := onlyConn(t, srv).CallSession(ctx, s.ID(), protocol.MethodSystemMessageTransform, map[string]any{"sections": map[string]any{
		"tone":       map[string]string{"content": "be terse"},
		"safety":     map[string]string{"content": "be safe"},
		"guidelines": map[string]string{"content": "be good"},
		"preamble":   map[string]string{"content": "you are copilot"},
	}})
	if a.Err != nil || a.Error != nil {
		t.Fatalf("%v %+v", a.Err, a.Error)
	}
	want := `{"sections":{"tone":{"content":"BE TERSE (tone)"},"safety":{"content":"be safe"},"guidelines":{"content":"be good"},"preamble":{"content":"you are copilot"}}}`
	if !jsonEqual(t, a.Result, want) {
		t.Fatalf("answer %s, want %s", a.Result, want)
	}
}
