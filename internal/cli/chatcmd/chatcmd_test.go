package chatcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
)

func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, map[string]string{"XDG_STATE_HOME": t.TempDir()})
	return f, s.Out, s.ErrOut
}

// chat's flags reach its options; nothing connects or draws when a run
// function stands in.
func TestNewCmdChatParsesItsFlags(t *testing.T) {
	f, out, _ := factory(t)
	var got *ChatOptions
	cmd := NewCmdChat(f, func(o *ChatOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--sim", "--resume", "20261125-093001-1a2b3c", "--approve", "never", "--plain", "-m", "a,b", "--no-review"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	switch {
	case got == nil:
		t.Fatal("the run function was not called")
	case got.Resume != "20261125-093001-1a2b3c" || got.Approve != "never" || !got.Plain || !got.Opts.Sim:
		t.Errorf("resume %q, approve %q, plain %v, sim %v", got.Resume, got.Approve, got.Plain, got.Opts.Sim)
	case strings.Join(got.Settings.Models, ",") != "a,b" || got.Settings.Review:
		t.Errorf("models %q, review %v", got.Settings.Models, got.Settings.Review)
	case out.Len() != 0:
		t.Errorf("printed %q", out)
	}
}

// history and show reach their run functions with their arguments.
func TestNewCmdHistoryAndShowParse(t *testing.T) {
	f, _, _ := factory(t)
	called := false
	h := NewCmdHistory(f, func(*HistoryOptions) error { called = true; return nil })
	h.SetArgs(nil)
	if err := h.ExecuteContext(context.Background()); err != nil || !called {
		t.Fatalf("history: called %v, %v", called, err)
	}
	var id string
	s := NewCmdShow(f, func(o *ShowOptions) error { id = o.Args[0]; return nil })
	s.SetArgs([]string{"20261125-093001-1a2b3c"})
	if err := s.ExecuteContext(context.Background()); err != nil || id != "20261125-093001-1a2b3c" {
		t.Errorf("show: id %q, %v", id, err)
	}
}

// With nothing saved, history says so on stderr and show refuses an id
// it does not know.
func TestHistoryAndShowWithNothingSaved(t *testing.T) {
	f, out, errb := factory(t)
	h := NewCmdHistory(f, nil)
	h.SetArgs(nil)
	if err := h.ExecuteContext(context.Background()); err != nil || out.Len() != 0 || !strings.Contains(errb.String(), "no saved conversations yet") {
		t.Errorf("history: %v, stdout %q, stderr %q", err, out, errb)
	}
	s := NewCmdShow(f, nil)
	s.SetArgs([]string{"20261125-093001-1a2b3c"})
	s.SilenceErrors, s.SilenceUsage = true, true
	if err := s.ExecuteContext(context.Background()); err == nil {
		t.Error("show of an unknown id succeeded")
	}
}
