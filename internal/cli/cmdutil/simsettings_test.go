package cmdutil

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/spf13/cobra"
)

// simCommand is a command that connects and names models, as discuss
// does, run with the config file body (when not empty), the environment
// env and args; it returns the invocation it ran with and its stderr.
func simCommand(t *testing.T, body string, env map[string]string, args ...string) (*Invocation, string) {
	t.Helper()
	dir := t.TempDir()
	if body != "" {
		os.MkdirAll(filepath.Join(dir, "quorum"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "quorum", "config.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &stderr,
		Getenv:    func(k string) string { return env[k] },
		ConfigDir: func() (string, error) { return dir, nil },
		SimModels: func() []sim.Model { return []sim.Model{{ID: "sim-alpha"}, {ID: "sim-beta"}, {ID: "sim-moderator"}} }}
	var got *Invocation
	c := NewCommand(f, &cobra.Command{Use: "discuss"}, Spec{Flags: func(b FlagBuilder) {
		b.Models()
		b.Moderator("the moderator")
		b.Connects()
	}}, func(inv *Invocation) error { got = inv; return nil })
	c.SetArgs(args)
	if err := c.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got, stderr.String()
}

// Models configured for the Copilot CLI (quorum config set models
// gpt-5,…) do not stop a simulated run: they are set aside, said so on
// stderr with where they were set, and the simulator's own take part.
// Models named on the command line stay (the run then says they are
// unknown), and so do configured models the simulator offers.
func TestSimSetsAsideConfiguredModels(t *testing.T) {
	const real = `{"models": "gpt-5,claude-sonnet-4.5", "moderator": "gpt-5"}`
	inv, stderr := simCommand(t, real, nil, "--sim")
	if !inv.Opts.Sim || inv.Settings.Models != nil || inv.Settings.Moderator != "" {
		t.Errorf("--sim with real models configured: sim %v, models %q, moderator %q; want the simulator's (none configured)", inv.Opts.Sim, inv.Settings.Models, inv.Settings.Moderator)
	}
	for _, want := range []string{
		"quorum: note: setting aside the models in the config file " + inv.Loaded.File + " (gpt-5, claude-sonnet-4.5) for this simulated run: the simulator does not offer them, so its own models take part instead\n",
		"quorum: note: setting aside the moderator in the config file " + inv.Loaded.File + " (gpt-5) for this simulated run: the simulator does not offer it, so its own moderator takes part instead\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	inv, stderr = simCommand(t, "", map[string]string{"QUORUM_MODELS": "sim-alpha,gpt-5"}, "--sim")
	if inv.Settings.Models != nil || !strings.Contains(stderr, "setting aside the models in $QUORUM_MODELS (sim-alpha, gpt-5) for this simulated run: the simulator does not offer gpt-5,") {
		t.Errorf("models from the environment: %q, stderr %q", inv.Settings.Models, stderr)
	}

	inv, stderr = simCommand(t, real, nil, "--sim", "-m", "gpt-5,sim-alpha", "--moderator", "gpt-5")
	if !slices.Equal(inv.Settings.Models, []string{"gpt-5", "sim-alpha"}) || inv.Settings.Moderator != "gpt-5" || stderr != "" {
		t.Errorf("models named on the command line: %q, moderator %q, stderr %q; want them kept, nothing said", inv.Settings.Models, inv.Settings.Moderator, stderr)
	}

	inv, stderr = simCommand(t, `{"models": "sim-alpha,sim-beta"}`, nil, "--sim")
	if !slices.Equal(inv.Settings.Models, []string{"sim-alpha", "sim-beta"}) || stderr != "" {
		t.Errorf("the simulator's own models configured: %q, stderr %q; want them kept", inv.Settings.Models, stderr)
	}

	inv, stderr = simCommand(t, real, nil)
	if inv.Opts.Sim || len(inv.Settings.Models) != 2 || stderr != "" {
		t.Errorf("without --sim: sim %v, models %q, stderr %q; want the configured models, untouched", inv.Opts.Sim, inv.Settings.Models, stderr)
	}
}

// The simulator can be chosen for every run, by those who try quorum
// first: quorum config set sim true, or QUORUM_SIM=1; --sim=false leaves
// it for one run.
func TestSimSetting(t *testing.T) {
	for _, c := range []struct {
		name, body string
		env        map[string]string
		args       []string
		want       bool
	}{
		{"nothing", "", nil, nil, false},
		{"--sim", "", nil, []string{"--sim"}, true},
		{"config file", `{"sim": true}`, nil, nil, true},
		{"QUORUM_SIM=1", "", map[string]string{"QUORUM_SIM": "1"}, nil, true},
		{"QUORUM_SIM=0 over the file", `{"sim": true}`, map[string]string{"QUORUM_SIM": "0"}, nil, false},
		{"--sim=false over the file", `{"sim": true}`, nil, []string{"--sim=false"}, false},
	} {
		inv, _ := simCommand(t, c.body, c.env, c.args...)
		if inv.Opts.Sim != c.want || inv.Simulated() != c.want {
			t.Errorf("%s: simulated %v, want %v", c.name, inv.Opts.Sim, c.want)
		}
	}
}

// Fields picked with --json from a simulated result come with simulated,
// so that the simulator's answers never pass for real ones; a real
// result's fields come alone, as asked.
func TestPickedFieldsKeepTheSimulatedMark(t *testing.T) {
	for _, sim := range []bool{true, false} {
		f, out := testFactory(t)
		c := NewCommand(f, &cobra.Command{Use: "x"}, Spec{Flags: func(b FlagBuilder) { b.Output(); b.Sim() }, Result: shape{}},
			func(inv *Invocation) error { return inv.WriteJSON(shape{Answer: "42"}, StatusOK, "") })
		args := []string{"--json", "answer"}
		if sim {
			args = append(args, "--sim")
		}
		c.SetArgs(args)
		if err := c.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"answer\": \"42\"\n}\n"
		if sim {
			want = "{\n  \"answer\": \"42\",\n  \"simulated\": true\n}\n"
		}
		if out.String() != want {
			t.Errorf("sim %v: %s, want %s", sim, out, want)
		}
	}
}
