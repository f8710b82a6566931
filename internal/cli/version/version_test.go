package version

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
)

// factory is a Factory with its own streams, no environment and a
// config directory of the test's.
func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out, s.ErrOut
}

// The command's flags reach its options: the output format, --json's
// fields and --cli-path as a setting, with the version the root gave.
func TestNewCmdVersionParsesItsFlags(t *testing.T) {
	f, out, _ := factory(t)
	var got *VersionOptions
	cmd := NewCmdVersion(f, "v1.2.3", func(o *VersionOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--json", "version,cli", "--cli-path", "/opt/copilot"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	switch {
	case got == nil:
		t.Fatal("the run function was not called")
	case got.Version != "v1.2.3":
		t.Errorf("Version = %q", got.Version)
	case got.Settings.Output != "json" || strings.Join(got.Opts.JSON, ",") != "version,cli":
		t.Errorf("output %q, --json %q", got.Settings.Output, got.Opts.JSON)
	case got.Settings.CLIPath != "/opt/copilot":
		t.Errorf("cli-path %q", got.Settings.CLIPath)
	case out.Len() != 0:
		t.Errorf("the run function stood in for the command, yet it printed %q", out)
	}
}

// A field --json does not know is a usage error before the run function
// is called.
func TestNewCmdVersionRefusesAnUnknownField(t *testing.T) {
	f, _, _ := factory(t)
	called := false
	cmd := NewCmdVersion(f, "v1", func(*VersionOptions) error { called = true; return nil })
	cmd.SetArgs([]string{"--json", "nope"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	var ue *cmdutil.UsageError
	if called || !errors.As(err, &ue) || !strings.Contains(err.Error(), `--json: version has no field "nope"`) {
		t.Errorf("called %v, err %v", called, err)
	}
}

// Run for real, version names the version it was given and, for a CLI
// that is not there, says why it has no version.
func TestVersionReportsAMissingCLI(t *testing.T) {
	f, out, _ := factory(t)
	missing := filepath.Join(t.TempDir(), "copilot")
	cmd := NewCmdVersion(f, "v9.9.9", nil)
	cmd.SetArgs([]string{"-o", "json", "--cli-path", missing})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var env struct {
		Command string
		Status  string
		Result  versionResult
	}
	if err := json.Unmarshal(out.Bytes(), &env); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r := env.Result
	if env.Command != "version" || env.Status != cmdutil.StatusOK || r.Version != "v9.9.9" || r.CLI.Path != missing || r.CLI.Error == "" || r.CLI.Version != "" {
		t.Errorf("envelope %+v", env)
	}
}
