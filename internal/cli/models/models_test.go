package models

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
	"github.com/quorum-go/quorum/internal/mcpserver"
	"github.com/quorum-go/quorum/internal/simquorum"
)

func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out
}

// The command's flags reach its options: --sim, --timeout and the output
// format; nothing connects when a run function stands in.
func TestNewCmdModelsParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *ModelsOptions
	cmd := NewCmdModels(f, func(o *ModelsOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--sim", "--timeout", "42s", "-o", "markdown", "--transport", "tcp"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	switch {
	case got == nil:
		t.Fatal("the run function was not called")
	case !got.Opts.Sim || got.Settings.Timeout.String() != "42s" || got.Settings.Output != "markdown" || got.Settings.Transport != "tcp":
		t.Errorf("sim %v, timeout %v, output %q, transport %q", got.Opts.Sim, got.Settings.Timeout, got.Settings.Output, got.Settings.Transport)
	case out.Len() != 0:
		t.Errorf("printed %q", out)
	}
}

// With --sim, the models are the simulator's, in the JSON envelope.
func TestModelsListsTheSimulatorsModels(t *testing.T) {
	f, out := factory(t)
	cmd := NewCmdModels(f, nil)
	cmd.SetArgs([]string{"--sim", "--json", "models"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var r modelsResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(r.Models) != len(simquorum.Models()) {
		t.Errorf("%d models, want %d: %s", len(r.Models), len(simquorum.Models()), out)
	}
}

// The JSON shape of models is this package's and mcpserver's both: the
// same fields, so that -o json and the MCP result never drift.
func TestResultShapeIsMCPs(t *testing.T) {
	x := 0.25
	q := &copilot.Quota{Entitlement: 300, Used: 42, Remaining: 258, OverageAllowed: true, Overage: 1, ResetDate: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		a modelsResult
		b mcpserver.ModelsResult
	}{
		{modelsResult{Models: []modelInfo{{}}}, mcpserver.ModelsResult{Models: []mcpserver.ModelInfo{{}}}},
		{modelsResult{Models: []modelInfo{{ID: "m", Name: "M", Multiplier: &x}}, Allowance: q},
			mcpserver.ModelsResult{Models: []mcpserver.ModelInfo{{ID: "m", Name: "M", Multiplier: &x}}, Allowance: q}},
	} {
		a, _ := json.Marshal(tc.a)
		b, _ := json.Marshal(tc.b)
		if string(a) != string(b) {
			t.Errorf("-o json: %s\nMCP:      %s", a, b)
		}
	}
}

// run runs quorum models with args on the simulator and returns what it
// printed.
func run(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	f, s := cmdutiltest.Factory(t, nil)
	cmd := NewCmdModels(f, nil)
	cmd.SetArgs(append([]string{"--sim"}, args...))
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.Out.String(), s.ErrOut.String()
}

// firstOfNextMonth is the day the simulator's default allowance resets.
func firstOfNextMonth() string {
	y, m, _ := time.Now().UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// With --sim the multipliers are the simulator's, and the allowance its
// account's (300 a month, none used), in every format: a line under the
// table, an "allowance" object in the JSON.
func TestModelsShowTheSimulatorsMultipliersAndAllowance(t *testing.T) {
	line := "Premium requests this month: 0 of 300 used, 300 left, resets " + firstOfNextMonth()

	out, errOut := run(t)
	for _, want := range []string{"PREMIUM REQUESTS PER REQUEST\n", "sim-alpha      Simulated sim-alpha      1\n",
		"sim-gamma      Simulated sim-gamma      0.25\n", "\n\n" + line + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}

	out, _ = run(t, "-o", "markdown")
	if !strings.Contains(out, "| sim-gamma | Simulated sim-gamma | 0.25 |\n| sim-moderator | Simulated sim-moderator | 1 |\n\n"+line+".\n") {
		t.Errorf("markdown:\n%s", out)
	}

	out, _ = run(t, "--json", "models,allowance")
	var r modelsResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := map[string]float64{}
	for _, m := range r.Models {
		if m.Multiplier != nil {
			got[m.ID] = *m.Multiplier
		}
	}
	if want := map[string]float64{"sim-alpha": 1, "sim-beta": 1, "sim-gamma": 0.25, "sim-moderator": 1}; !maps.Equal(got, want) {
		t.Errorf("multipliers %v, want %v", got, want)
	}
	if a := r.Allowance; a == nil || a.Entitlement != 300 || a.Used != 0 || a.Remaining != 300 || a.Unlimited || a.ResetDate.Format(time.DateOnly) != firstOfNextMonth() {
		t.Errorf("allowance %+v in %s", a, out)
	}
}
