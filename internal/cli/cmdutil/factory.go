// Package cmdutil is what quorum's commands share, as cli/cli's cmdutil
// is: the Factory each command is built from, and the errors and exit
// codes every command ends with. A Factory is filled once, before the
// command tree is built, and only read after: commands may share it
// across goroutines without locking.
package cmdutil

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/quorum-go/quorum/internal/sim"
)

// Factory is everything a command takes from its surroundings: streams,
// environment, config location, working directory and the simulator's
// models. The root fills every field for the process, and a test fills
// the same fields with its own; none is there for tests only. A test that
// checks a command's options passes the command its own run function
// instead, as cli/cli's do.
type Factory struct {
	In          io.Reader
	Out, ErrOut io.Writer
	Getenv      func(string) string
	// ConfigDir is the user config directory, where the config file is
	// unless --config or $QUORUM_CONFIG say otherwise.
	ConfigDir func() (string, error)
	// Dir is where review runs git ("": the process's working directory).
	Dir string
	// CommandLine is the command line being run, for the messages that need
	// more of it than where cobra stopped (a mistyped command before a
	// flag).
	CommandLine []string
	// Version is quorum's version, as --version prints it and SARIF
	// files and MCP clients are told.
	Version string
	// SimModels are the models --sim serves; the root gives simquorum's,
	// paced for the demo.
	SimModels func() []sim.Model
}

// StateDir is quorum's state directory, where conversations and the
// agent's worktrees are kept: $XDG_STATE_HOME/quorum, or
// ~/.local/state/quorum.
func (f *Factory) StateDir() (string, error) {
	if d := f.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "quorum"), nil
	}
	home := f.Getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("no state directory to keep conversations and worktrees in: set XDG_STATE_HOME or HOME")
	}
	return filepath.Join(home, ".local", "state", "quorum"), nil
}
