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

func noop(context.Context, ToolCall) (string, error) { return "", nil }

// invalidSessionConfigs are SessionConfigs that Validate refuses, each with
// the field its error must name.
var invalidSessionConfigs = []struct {
	name  string
	cfg   SessionConfig
	field string
}{
	{"no model", SessionConfig{}, "Model"},
	{"id and assigned id", SessionConfig{Model: "m", ID: "x", AssignedID: true}, "AssignedID"},
	{"undefined profile", SessionConfig{Model: "m", Profile: "p"}, `Profile "p"`},
	{"tool without name", SessionConfig{Model: "m", Tools: []Tool{{Handler: noop}}}, "Tools[0] has no Name"},
	{"tool without handler", SessionConfig{Model: "m", Tools: []Tool{{Name: "a"}}}, "Handler"},
	{"tool parameters not JSON", SessionConfig{Model: "m", Tools: []Tool{{Name: "a", Handler: noop, Parameters: json.RawMessage(`{"type":`)}}}, "Parameters"},
	{"two tools of one name", SessionConfig{Model: "m", Tools: []Tool{{Name: "a", Handler: noop}, {Name: "a", Handler: noop}}}, "Tools[1]"},
	{"negative tool-call limit", SessionConfig{Model: "m", MaxToolCalls: -1}, "MaxToolCalls"},
	{"negative output limit", SessionConfig{Model: "m", MaxToolOutputBytes: -1}, "MaxToolOutputBytes"},
	{"stage without wrap", SessionConfig{Model: "m", Stages: []ToolStage{{Name: "s"}}}, "Stages[0]"},
	{"extra param without a name", SessionConfig{Model: "m", ExtraParams: map[string]any{"": 1}}, "ExtraParams has an empty name"},
	{"extra param a field sends", SessionConfig{Model: "m", ExtraParams: map[string]any{"enableCitations": true, "model": "other"}}, `ExtraParams["model"]`},
	{"extra param that does not marshal", SessionConfig{Model: "m", ExtraParams: map[string]any{"x": func() {}}}, `ExtraParams["x"]`},
}

func TestSessionConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range invalidSessionConfigs {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if !errors.Is(err, ErrInvalidSessionConfig) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("Validate() = %v, want ErrInvalidSessionConfig naming %s", err, tc.field)
			}
		})
	}
}

func TestSessionConfigValidateTakesWhatWorks(t *testing.T) {
	for _, cfg := range []SessionConfig{
		{Model: "m"},
		{Model: "m", AssignedID: true},
		{Model: "m", Tools: []Tool{{Name: "a", Handler: noop, Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "b", Handler: noop}},
			Profile: "p", Profiles: map[string][]string{"p": {"b"}}, Stages: []ToolStage{LimitToolCalls(1)}},
		{Model: "m", ExtraParams: map[string]any{"enableCitations": true, "sessionLimits": map[string]int{"maxTurns": 3}}},
	} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", cfg, err)
		}
	}
}

func TestNewAndResumeSessionRefuseInvalidConfig(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	for _, tc := range invalidSessionConfigs {
		t.Run(tc.name, func(t *testing.T) {
			if s, err := c.NewSession(ctx, tc.cfg); !errors.Is(err, ErrInvalidSessionConfig) || s != nil {
				t.Errorf("NewSession = %v, %v; want ErrInvalidSessionConfig", s, err)
			}
			switch tc.name {
			case "id and assigned id":
				return // ResumeSession sets the id itself
			case "no model":
				return // a resumed session keeps its model (TestRealCLIResumeOpenSession)
			}
			if s, err := c.ResumeSession(ctx, "x", tc.cfg); !errors.Is(err, ErrInvalidSessionConfig) || s != nil {
				t.Errorf("ResumeSession = %v, %v; want ErrInvalidSessionConfig", s, err)
			}
		})
	}
	if n := c.Router().Stats().Sessions; n != 0 {
		t.Errorf("%d routes left after refused configurations", n)
	}
}

// ExtraParams reach session.create and session.resume beside the params
// the fields send, as encoding/json marshals them.
func TestExtraParamsReachTheWire(t *testing.T) {
	c, _, w := recordedClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	cfg := SessionConfig{Model: "m", ExtraParams: map[string]any{
		"enableCitations": true,
		"sessionLimits":   map[string]int{"maxTurns": 3},
	}}
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "hello"); err != nil { // a session is kept once it has a message
		t.Fatal(err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResumeSession(ctx, s.ID(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{protocol.MethodSessionCreate, protocol.MethodSessionResume} {
		sent := w.params(t, method)
		if len(sent) != 1 {
			t.Fatalf("%s sent %d times", method, len(sent))
		}
		var got struct {
			Model           string
			EnableCitations bool
			SessionLimits   struct{ MaxTurns int }
		}
		if err := json.Unmarshal(sent[0], &got); err != nil || got.Model != "m" || !got.EnableCitations || got.SessionLimits.MaxTurns != 3 {
			t.Errorf("%s params %s: %+v, %v", method, sent[0], got, err)
		}
	}
}
