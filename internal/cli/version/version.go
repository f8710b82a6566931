// Package version is quorum version: quorum's version and VCS revision,
// and the Copilot CLI it would run. Its command is built once per run and
// used by one goroutine.
package version

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/spf13/cobra"
)

// versionResult is the result of `quorum version -o json`.
type versionResult struct {
	Version string `json:"version"`
	// Revision, RevisionTime and Modified are the VCS state the binary was
	// built from; empty when it was built without it (-buildvcs=false, or
	// outside a repository).
	Revision     string `json:"revision"`
	RevisionTime string `json:"revisionTime,omitempty"`
	Modified     bool   `json:"modified"`
	Go           string `json:"go"`
	Platform     string `json:"platform"`
	// CLI is the Copilot CLI that quorum would run.
	CLI cliInfo `json:"cli"`
}

type cliInfo struct {
	// Path is the binary, From where its name came from, Version what it
	// says of itself; Error why one of them is unknown.
	Path    string `json:"path"`
	From    string `json:"from"`
	Version string `json:"version"`
	Error   string `json:"error,omitempty"`
}

// VersionOptions are what quorum version runs with: its invocation (the
// settings, --cli-path among them, and the output format) and the version
// the root was built as.
type VersionOptions struct {
	*cmdutil.Invocation
	// Version is quorum's version, as the root reports it (--version).
	Version string
}

// NewCmdVersion is quorum version; runF, when not nil, runs in place of
// the command's own code with the options parsed (a test's).
func NewCmdVersion(f *cmdutil.Factory, version string, runF func(*VersionOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "version",
		Short: "Print quorum's version and the Copilot CLI it would use",
		Long: `Print quorum's version and VCS revision, and which Copilot CLI quorum would
run (--cli-path, $COPILOT_CLI_PATH, the config file, or copilot on PATH) and
what version it says it is. With -o json:
  {"command": "version", "status", "result": {"version", "revision",
   "revisionTime", "modified", "go", "platform", "cli": {"path", "from",
   "version", "error"}}}`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Output()
		b.CLIPath()
	}, Result: versionResult{}}, func(inv *cmdutil.Invocation) error {
		opts := &VersionOptions{Invocation: inv, Version: version}
		if runF != nil {
			return runF(opts)
		}
		return versionRun(opts)
	})
}

func versionRun(inv *VersionOptions) error {
	res := versionResult{Version: inv.Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				res.Revision = s.Value
			case "vcs.time":
				res.RevisionTime = s.Value
			case "vcs.modified":
				res.Modified = s.Value == "true"
			}
		}
	}
	res.CLI = cliInfoOf(inv.Invocation)
	if inv.Settings.Output == "json" {
		if err := inv.WriteJSON(res, cmdutil.StatusOK, ""); err != nil {
			return err
		}
	} else {
		w := inv.Out
		rev := "unknown revision (built without VCS information)"
		if res.Revision != "" {
			rev = "revision " + res.Revision
			if res.RevisionTime != "" {
				rev += " of " + res.RevisionTime
			}
			if res.Modified {
				rev += ", with local changes"
			}
		}
		fmt.Fprintf(w, "quorum %s, %s\n", res.Version, rev)
		fmt.Fprintf(w, "built with %s for %s\n", res.Go, res.Platform)
		switch {
		case res.CLI.Path == "":
			fmt.Fprintf(w, "Copilot CLI: none found (%s)\n", res.CLI.Error)
		case res.CLI.Error != "":
			fmt.Fprintf(w, "Copilot CLI: %s (%s), version unknown: %s\n", res.CLI.Path, res.CLI.From, res.CLI.Error)
		default:
			fmt.Fprintf(w, "Copilot CLI: %s (%s), version %s\n", res.CLI.Path, res.CLI.From, res.CLI.Version)
		}
	}
	return inv.WarnFileProblem()
}

// cliInfo finds the CLI the way connect does, and asks it its version.
func cliInfoOf(inv *cmdutil.Invocation) cliInfo {
	var info cliInfo
	info.From = "copilot on PATH"
	if inv.Settings.CLIPath != "" {
		o := inv.Loaded.Origin("cli-path")
		info.From = string(o.Source) + " " + o.Detail
	}
	path, err := connect.FindCLI(inv)
	if err != nil {
		info.Error = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(err.Error(), connect.SimHint)), "\n")
		if inv.Settings.CLIPath != "" {
			info.Path = inv.Settings.CLIPath
		}
		return info
	}
	info.Path = path
	// The CLI answers --version without starting its server; a CLI that
	// hangs must not hang version.
	ctx, cancel := context.WithTimeout(inv.Cmd.Context(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		info.Error = "running " + path + " --version: " + err.Error()
		return info
	}
	// Only the first line: the CLI adds advice about updating.
	line, _, _ := strings.Cut(string(out), "\n")
	line = strings.TrimSuffix(strings.TrimSpace(sanitize.Line(line)), ".")
	info.Version = strings.TrimPrefix(line, "GitHub Copilot CLI ")
	return info
}
