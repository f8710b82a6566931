// Package cmdutiltest builds the factory a command package's tests run a
// command from: no input, output captured, an empty environment, a config
// folder of the test's own and the simulator's quorum models.
package cmdutiltest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
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
