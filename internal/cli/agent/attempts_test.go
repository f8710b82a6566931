package agent

import (
	"context"
	"slices"
	"testing"
)

// --attempts, --executors and --keep reach the options; the defaults are
// one attempt, every worktree kept.
func TestNewCmdAgentParsesAttemptFlags(t *testing.T) {
	f, _ := factory(t)
	var got *AgentOptions
	cmd := NewCmdAgent(f, func(o *AgentOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--attempts", "3", "--executors", "a,b,c", "--keep", "winner", "t"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := got.Flags; o.Attempts != 3 || !slices.Equal(o.Executors, []string{"a", "b", "c"}) || o.Keep != KeepWinner {
		t.Errorf("options %+v", o)
	}
	cmd = NewCmdAgent(f, func(o *AgentOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"t"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := got.Flags; o.Attempts != 1 || o.Executors != nil || o.Keep != KeepAll {
		t.Errorf("defaults %+v", o)
	}
}
