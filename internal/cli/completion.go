package cli

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/quorum"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// setupCompletion gives every flag whose values are known its completion:
// model ids from the CLI (or with --sim from the simulator), formats,
// transports, report sections, JSON fields. Cobra writes the scripts for
// bash, zsh, fish and PowerShell (quorum completion SHELL); they call
// `quorum __complete …`, which ends here.
func (e *env) setupCompletion(root *cobra.Command) {
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Short = "Print a shell completion script (bash, zsh, fish, powershell)"
		// Cobra's completion command prints its help and exits 0 for a
		// shell it does not know; that is a usage error.
		c.Args = cmdutil.NoArgs
		c.RunE = func(cmd *cobra.Command, _ []string) error {
			e.help(cmd, e.ErrOut)
			return cmdutil.Usagef("name a shell: bash, zsh, fish or powershell")
		}
	}
	if bash, _, err := root.Find([]string{"completion", "bash"}); err == nil && bash.Name() == "bash" {
		bash.Long = strings.Replace(bash.Long, "This script depends on the 'bash-completion' package.\nIf it is not installed already, you can install it via your OS's package manager.",
			"The script works with or without the bash-completion package.", 1)
		bash.RunE = func(cmd *cobra.Command, _ []string) error {
			noDesc, _ := cmd.Flags().GetBool("no-descriptions")
			if _, err := io.WriteString(cmd.OutOrStdout(), bashPrelude); err != nil {
				return err
			}
			return cmd.Root().GenBashCompletionV2(cmd.OutOrStdout(), !noDesc)
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			var fn cobra.CompletionFunc
			switch f.Name {
			case "model", "moderator", "solo", "executor":
				fn = e.completeModels
			case "approve":
				fn = fixed(string(quorum.ShellAsk), string(quorum.ShellQuorum), string(quorum.ShellAuto), string(quorum.ShellNever))
			case "worktree-root":
				fn = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return nil, cobra.ShellCompDirectiveFilterDirs
				}
			case "output", "transport", "fail-on":
				k, _ := config.Lookup(f.Name)
				fn = fixed(k.Values()...)
			case "base", "head", "jq", "template", "pr":
				fn = cobra.NoFileCompletions
			case "show":
				fn = fixed(cmdutil.SectionsOf(c)...)
			case "json":
				fn = fixed(cmdutil.JSONFieldsOf(c)...)
			}
			if fn != nil {
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// bashPrelude goes before cobra's bash script, which needs one function
// of the bash-completion package: without the package (minimal systems,
// containers) it stands in for that function, reading the words from the
// command line as typed, so that "--output=json" stays one word as the
// script expects; with the package, it does nothing.
const bashPrelude = `# quorum: a stand-in for bash-completion's _get_comp_words_by_ref, used
# only when the bash-completion package is not loaded.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    local line=${COMP_LINE:0:COMP_POINT}
    read -ra words <<< "$line"
    [[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]] && words+=("")
    cword=$(( ${#words[@]} - 1 ))
    cur=${words[cword]}
    prev=${words[cword-1]}
}
fi
`

// fixed completes a comma-separated list from values.
func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return commaList(values, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// commaList completes the last item of a comma-separated list: every
// value not listed yet, after what was typed up to the last comma.
func commaList(values []string, toComplete string) []string {
	done, prefix := []string(nil), ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix = toComplete[:i+1]
		done = strings.Split(toComplete[:i], ",")
	}
	var out []string
	for _, v := range values {
		id, _, _ := strings.Cut(v, "\t")
		skip := false
		for _, d := range done {
			skip = skip || d == id
		}
		if !skip {
			out = append(out, prefix+v)
		}
	}
	return out
}

// completeModels completes model ids: those the CLI offers, or with --sim
// the simulator's. It reads the settings like the command would (so
// --cli-path and the config file count), and gives up quietly after a
// few seconds: a shell waiting on a slow CLI is worse than no completion.
func (e *env) completeModels(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	path, _ := cmd.Flags().GetString("config")
	loaded, _ := config.Load(config.Layers{Path: path, Getenv: e.Getenv, ConfigDir: e.ConfigDir, Flags: cmdutil.FlagValues(cmd.Flags())})
	inv := &cmdutil.Invocation{Factory: e.Factory, Cmd: cmd, Opts: &cmdutil.Options{Sim: loaded.Settings.Sim}, Settings: loaded.Settings, Loaded: loaded, Log: zerolog.Nop()}
	ctx, cancel := context.WithTimeout(cmd.Context(), 15*time.Second)
	defer cancel()
	c, closeClient, err := connect.Connect(ctx, inv)
	if err != nil {
		cobra.CompDebugln("quorum: completing models: "+err.Error(), true)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer closeClient()
	ms, err := connect.ListModels(ctx, inv, c)
	if err != nil {
		cobra.CompDebugln("quorum: completing models: "+err.Error(), true)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	values := make([]string, len(ms))
	for i, m := range ms {
		values[i] = m.ID
		if m.Name != "" && m.Name != m.ID {
			values[i] += "\t" + m.Name
		}
	}
	directive := cobra.ShellCompDirectiveNoFileComp
	if cmd.Flags().Lookup("model").Value.Type() == "stringSlice" {
		directive |= cobra.ShellCompDirectiveNoSpace // more may follow after a comma
		return commaList(values, toComplete), directive
	}
	return values, directive
}
