package agent

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
	"github.com/quorum-go/quorum/quorum"
)

func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out
}

// The command's flags reach its options: who plans and executes, the
// rounds and limits, consent, approval, URLs, the worktree root; nothing
// plans when a run function stands in.
func TestNewCmdAgentParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *AgentOptions
	cmd := NewCmdAgent(f, func(o *AgentOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--solo", "gpt-5", "--executor", "claude", "--max-revisions", "0", "--fix-rounds", "2", "--max-tool-calls", "9",
		"-y", "--approve", "never", "--allow-url", "--worktree-root", "/tmp/wt", "--fail-on", "blocking",
		"--no-sandbox", "--allow-net", "--allow-host", "a.example", "--allow-host", "b.example", "--mask-env", "MY_TOKEN", "the task"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the run function was not called")
	}
	o := got.Flags
	if o.Solo != "gpt-5" || o.Executor != "claude" || o.MaxRevisions != 0 || o.FixRounds != 2 || o.MaxToolCalls != 9 || !o.Yes ||
		o.Approve != "never" || !o.AllowURL || o.WorktreeRoot != "/tmp/wt" || got.Settings.FailOn != "blocking" || strings.Join(got.Args, "|") != "the task" {
		t.Errorf("options %+v, fail-on %q, args %q", o, got.Settings.FailOn, got.Args)
	}
	want := quorum.SandboxPolicy{Unconfined: true, AllowNetwork: true, AllowedHosts: []string{"a.example", "b.example"}, MaskEnv: []string{"MY_TOKEN"}}
	if p := o.Sandbox.Policy(); !reflect.DeepEqual(p, want) {
		t.Errorf("sandbox policy %+v, want %+v", p, want)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out)
	}
	// The defaults are quorum's.
	got = nil
	cmd = NewCmdAgent(f, func(o *AgentOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"t"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := got.Flags; o.MaxRevisions != quorum.DefaultMaxRevisions || o.FixRounds != quorum.DefaultFixRounds || o.MaxToolCalls != quorum.DefaultMaxToolCalls || o.Yes ||
		!reflect.DeepEqual(o.Sandbox.Policy(), quorum.SandboxPolicy{}) {
		t.Errorf("defaults %+v", o)
	}
}

// --approve takes ask, quorum, auto or never; ask needs a terminal.
func TestShellMode(t *testing.T) {
	for _, c := range []struct {
		approve     string
		interactive bool
		ok          bool
	}{
		{"", true, true}, {"", false, true}, {"quorum", false, true}, {"auto", false, true}, {"never", false, true},
		{"ask", true, true}, {"ask", false, false}, {"sometimes", true, false},
	} {
		if _, err := ShellMode(c.approve, c.interactive); (err == nil) != c.ok {
			t.Errorf("ShellMode(%q, %v) = %v", c.approve, c.interactive, err)
		}
	}
}
