package debate

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
	"github.com/quorum-go/quorum/quorum"
)

func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out
}

// The command's flags reach its options; nothing connects when a run
// function stands in.
func TestNewCmdDebateParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *DebateOptions
	cmd := NewCmdDebate(f, func(o *DebateOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--rounds", "3", "--moderator", "judge", "--phase-timeout", "90s", "-o", "markdown", "the claim"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the run function was not called")
	}
	s := got.Settings
	if s.Rounds != 3 || s.Moderator != "judge" || s.PhaseTimeout.String() != "1m30s" || s.Output != "markdown" || strings.Join(got.Args, "|") != "the claim" {
		t.Errorf("settings %+v, options %+v, args %q", s, *got.Opts, got.Args)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out)
	}
}

// Run with an observer, on the simulator: the observer sees the run's
// events and the JSON envelope says it went well.
func TestRunOnTheSimulator(t *testing.T) {
	f, out := factory(t)
	var events atomic.Int64
	cmd := NewCmdDebate(f, func(o *DebateOptions) error {
		return Run(o, func(quorum.Progress) { events.Add(1) })
	})
	cmdutiltest.RunJSON(t, cmd, out, "debate", "--sim", "-q", "-o", "json", "We should rewrite it in Rust")
	if events.Load() == 0 {
		t.Error("the observer saw no event")
	}
}
