package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

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
			if tc.name == "id and assigned id" {
				return // ResumeSession sets the id itself
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
