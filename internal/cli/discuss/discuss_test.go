package discuss

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
func TestNewCmdDiscussParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *DiscussOptions
	cmd := NewCmdDiscuss(f, func(o *DiscussOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--sim", "-q", "-m", "a,b", "--moderator", "c", "--no-review", "--reviewers", "1", "--show", "synthesis", "the topic"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the run function was not called")
	}
	s := got.Settings
	if strings.Join(s.Models, ",") != "a,b" || s.Moderator != "c" || s.Review || s.Reviewers != 1 || strings.Join(got.Opts.Show, ",") != "synthesis" || !got.Opts.Sim || !got.Opts.Quiet || strings.Join(got.Args, "|") != "the topic" {
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
	cmd := NewCmdDiscuss(f, func(o *DiscussOptions) error {
		return Run(o, func(quorum.Progress) { events.Add(1) })
	})
	cmdutiltest.RunJSON(t, cmd, out, "discuss", "--sim", "-q", "-o", "json", "Should we adopt Go?")
	if events.Load() == 0 {
		t.Error("the observer saw no event")
	}
}
