package models

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

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
	a, _ := json.Marshal(modelsResult{Models: []modelInfo{{}}})
	b, _ := json.Marshal(mcpserver.ModelsResult{Models: []mcpserver.ModelInfo{{}}})
	if string(a) != string(b) {
		t.Errorf("-o json: %s\nMCP:      %s", a, b)
	}
}
