package configcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
)

// factory is a Factory with its own streams, no environment and a
// config directory of the test's.
func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer, string) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out, s.ConfigDir
}

// Each subcommand reaches the run function with its action, its
// arguments and its flags parsed; nothing is written.
func TestNewCmdConfigParsesEachSubcommand(t *testing.T) {
	for _, c := range []struct {
		args   []string
		action string
		rest   []string
		output string
	}{
		{[]string{"-o", "json"}, "list", nil, "json"},
		{[]string{"get", "timeout", "--json", "value"}, "get", []string{"timeout"}, "json"},
		{[]string{"set", "concurrency", "--", "-5"}, "set", []string{"concurrency", "-5"}, "text"},
		{[]string{"unset", "moderator"}, "unset", []string{"moderator"}, "text"},
	} {
		f, out, dir := factory(t)
		var got *ConfigOptions
		cmd := NewCmdConfig(f, func(o *ConfigOptions) error { got = o; return nil })
		cmd.SetArgs(c.args)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		switch {
		case got == nil:
			t.Errorf("%q: the run function was not called", c.args)
		case got.Action != c.action || strings.Join(got.Args, " ") != strings.Join(c.rest, " ") || got.Settings.Output != c.output:
			t.Errorf("%q: action %q, args %q, output %q", c.args, got.Action, got.Args, got.Settings.Output)
		case out.Len() != 0:
			t.Errorf("%q: printed %q", c.args, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "quorum", "config.json")); err == nil {
			t.Errorf("%q: a config file was written", c.args)
		}
	}
}

// config set writes the file that config get then reads.
func TestConfigSetThenGet(t *testing.T) {
	f, out, dir := factory(t)
	for _, args := range [][]string{{"set", "timeout", "7m"}, {"get", "timeout"}} {
		cmd := NewCmdConfig(f, nil)
		cmd.SetArgs(args)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "quorum", "config.json")); err != nil {
		t.Errorf("no config file: %v", err)
	}
	if !strings.HasSuffix(out.String(), "7m0s\n") && !strings.HasSuffix(out.String(), "7m\n") {
		t.Errorf("config get printed %q", out)
	}
}
