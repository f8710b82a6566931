package cli

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/spf13/cobra"
)

// Version is set at link time (-ldflags "-X .../internal/cli.Version=v1.2.3");
// otherwise the module version from the build info is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

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

func (e *env) versionCmd() *cobra.Command {
	return cmdutil.NewCommand(e.Factory, &cobra.Command{
		Use:   "version",
		Short: "Print quorum's version and the Copilot CLI it would use",
		Long: `Print quorum's version and VCS revision, and which Copilot CLI quorum would
run (--cli-path, $COPILOT_CLI_PATH, the config file, or copilot on PATH) and
what version it says it is. With -o json:
  {"command": "version", "status", "result": {"version", "revision",
   "revisionTime", "modified", "go", "platform", "cli": {"path", "from",
   "version", "error"}}}`,
		Args: noArgs,
	}, cmdutil.Spec{Output: true, CLIPath: true, Result: versionResult{}}, runVersion)
}

func runVersion(inv *cmdutil.Invocation) error {
	res := versionResult{Version: version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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
	res.CLI = cliInfoOf(inv)
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
	return warnFileProblem(inv)
}

// cliInfo finds the CLI the way connect does, and asks it its version.
func cliInfoOf(inv *cmdutil.Invocation) cliInfo {
	var info cliInfo
	info.From = "copilot on PATH"
	if inv.Settings.CLIPath != "" {
		o := inv.Loaded.Origin("cli-path")
		info.From = string(o.Source) + " " + o.Detail
	}
	path, err := findCLI(inv)
	if err != nil {
		info.Error = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(err.Error(), simHint)), "\n")
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
