package plan

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
func TestNewCmdPlanParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *PlanOptions
	cmd := NewCmdPlan(f, func(o *PlanOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-m", "a,b,c", "-j", "2", "--transcript", "t.jsonl", "--context", "notes.md", "the task"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the run function was not called")
	}
	s := got.Settings
	if strings.Join(s.Models, ",") != "a,b,c" || s.Concurrency != 2 || got.Opts.Transcript != "t.jsonl" || strings.Join(got.Opts.Context, ",") != "notes.md" || strings.Join(got.Args, "|") != "the task" {
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
	cmd := NewCmdPlan(f, func(o *PlanOptions) error {
		return Run(o, func(quorum.Progress) { events.Add(1) })
	})
	cmdutiltest.RunJSON(t, cmd, out, "plan", "--sim", "-q", "-o", "json", "Migrate our CI")
	if events.Load() == 0 {
		t.Error("the observer saw no event")
	}
}
