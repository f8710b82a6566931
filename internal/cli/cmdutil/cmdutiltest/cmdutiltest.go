// Package cmdutiltest builds the factory a command package's tests run a
// command from: no input, output captured, an empty environment, a config
// folder of the test's own and the simulator's quorum models.
package cmdutiltest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/spf13/cobra"
)

// Streams are what a test's factory captured, and where its config lives.
type Streams struct {
	Out, ErrOut *bytes.Buffer
	ConfigDir   string
}

// Factory returns a factory for a command under test; env, if not nil,
// is its whole environment.
func Factory(t testing.TB, env map[string]string) (*cmdutil.Factory, *Streams) {
	t.Helper()
	s := &Streams{Out: new(bytes.Buffer), ErrOut: new(bytes.Buffer), ConfigDir: t.TempDir()}
	return &cmdutil.Factory{In: strings.NewReader(""), Out: s.Out, ErrOut: s.ErrOut,
		Getenv:    func(k string) string { return env[k] },
		ConfigDir: func() (string, error) { return s.ConfigDir, nil },
		SimModels: func() []sim.Model { return simquorum.Models() }}, s
}

// RunJSON runs cmd with args, which ask for its result as JSON, and fails
// the test unless it ran, printed the envelope for command and said the
// run went well.
func RunJSON(t testing.TB, cmd *cobra.Command, out *bytes.Buffer, command string, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var env struct{ Command, Status string }
	if err := json.Unmarshal(out.Bytes(), &env); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	if env.Command != command || env.Status != cmdutil.StatusOK {
		t.Errorf("command %q, status %q; want %q, %q", env.Command, env.Status, command, cmdutil.StatusOK)
	}
}
