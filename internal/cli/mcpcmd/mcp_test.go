package mcpcmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

func factory(t *testing.T) *cmdutil.Factory {
	dir := t.TempDir()
	return &cmdutil.Factory{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{},
		Getenv:    func(string) string { return "" },
		ConfigDir: func() (string, error) { return dir, nil }}
}

// The command's flags reach its options: where it serves, the tools'
// default models and concurrency, --sim; no server starts when a run
// function stands in.
func TestNewCmdMCPParsesItsFlags(t *testing.T) {
	var got *MCPOptions
	cmd := NewCmdMCP(factory(t), "v2", func(o *MCPOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--sim", "--http", "127.0.0.1:0", "--allow-remote", "-m", "a,b", "-j", "3"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	switch {
	case got == nil:
		t.Fatal("the run function was not called")
	case got.HTTPAddr != "127.0.0.1:0" || !got.AllowRemote || !got.Opts.Sim || got.Version != "v2":
		t.Errorf("http %q, allow-remote %v, sim %v, version %q", got.HTTPAddr, got.AllowRemote, got.Opts.Sim, got.Version)
	case strings.Join(got.Settings.Models, ",") != "a,b" || got.Settings.Concurrency != 3:
		t.Errorf("models %q, concurrency %d", got.Settings.Models, got.Settings.Concurrency)
	}
}

// An --http address other machines could reach is a usage error without
// --allow-remote, told before anything listens.
func TestMCPRefusesARemoteAddress(t *testing.T) {
	cmd := NewCmdMCP(factory(t), "v2", nil)
	cmd.SetArgs([]string{"--sim", "--http", "0.0.0.0:0"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	if ue := (*cmdutil.UsageError)(nil); !errors.As(err, &ue) {
		t.Errorf("err %v, want a usage error", err)
	}
}
