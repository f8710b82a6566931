// Package configcmd is quorum config and its subcommands get, set and
// unset: the effective settings and where each came from, and the config
// file's writes. Its commands are built once per run and used by one
// goroutine.
package configcmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/spf13/cobra"
)

// configResult is the result of `quorum config -o json`.
type configResult struct {
	// File is the config file consulted; FileError why it could not be
	// used, if so.
	File      string          `json:"file"`
	FileError string          `json:"fileError,omitempty"`
	Settings  []config.Origin `json:"settings"`
}

// configGetResult is the result of `quorum config get KEY -o json`.
type configGetResult struct {
	config.Origin
}

// ConfigOptions are what quorum config and its subcommands run with: the
// invocation (the settings as loaded, the output format, the arguments:
// a setting's name and value) and which of them runs.
type ConfigOptions struct {
	*cmdutil.Invocation
	// Action is the command: "list" (quorum config), "get", "set" or
	// "unset".
	Action string
}

// NewCmdConfig is quorum config with get, set and unset; runF, when not
// nil, runs in place of the commands' own code with the options parsed
// (a test's).
func NewCmdConfig(f *cmdutil.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	run := func(action string, own func(*cmdutil.Invocation) error) func(*cmdutil.Invocation) error {
		return func(inv *cmdutil.Invocation) error {
			if runF != nil {
				return runF(&ConfigOptions{Invocation: inv, Action: action})
			}
			return own(inv)
		}
	}
	keys := make([]string, len(config.Keys))
	for i, k := range config.Keys {
		keys[i] = fmt.Sprintf("  %-14s %s (%s)", k.Name, k.Help, k.Env)
	}
	cmd := cmdutil.NewCommand(f, &cobra.Command{
		Use:   "config",
		Short: "Show, get and set settings, and where each comes from",
		Long: `Show the effective settings and where each value came from. Flags beat
environment variables, which beat the config file, which beats the built-in
defaults. The file is quorum/config.json in your user config directory
(--config or $QUORUM_CONFIG name another); 'quorum config set' writes it.

Settings:
` + strings.Join(keys, "\n") + `

A wrong value in the config file or the environment is reported with the
file, line, column and setting, every one at once, and stops the commands
that use that setting (exit status 1); the others warn and go on. A file
that is not JSON stops every command that runs models. config and version
still work, and config set can repair a setting the file gives a wrong
value. config set refuses what a run would refuse.`,
		Example: `  $ quorum config
  $ quorum config set models gpt-5,claude-sonnet-4.5,gemini-2.5-pro
  $ quorum config get timeout
  $ quorum config unset moderator`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{Flags: cmdutil.FlagBuilder.Output, Result: configResult{}}, run("list", runConfigList))
	get := cmdutil.NewCommand(f, &cobra.Command{
		Use:   "get <setting>",
		Short: "Print one setting's effective value",
		Long: `Print one setting's effective value; with -o json, where it came from too:
  {"command": "config get", "status", "result": {"key", "value", "source", "detail"}}`,
		Args:              cmdutil.ExactArgs("a setting's name"),
		ValidArgsFunction: completeSettings,
	}, cmdutil.Spec{Flags: cmdutil.FlagBuilder.Output, Result: configGetResult{}}, run("get", runConfigGet))
	set := cmdutil.NewCommand(f, &cobra.Command{
		Use:               "set <setting> <value>",
		Short:             "Write a setting into the config file",
		Long:              "Write a setting into the config file, creating it if needed and keeping the others.\nThe value is checked first.",
		Args:              cmdutil.ExactArgs("a setting's name", "its value"),
		ValidArgsFunction: completeSettings,
	}, cmdutil.Spec{}, run("set", runConfigSet))
	unset := cmdutil.NewCommand(f, &cobra.Command{
		Use:               "unset <setting>",
		Short:             "Remove a setting from the config file",
		Args:              cmdutil.ExactArgs("a setting's name"),
		ValidArgsFunction: completeSettings,
	}, cmdutil.Spec{}, run("unset", runConfigUnset))
	cmd.AddCommand(get, set, unset)
	return cmd
}

// completeSettings completes a setting's name, and for set its values
// when they are a fixed list.
func completeSettings(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		var out []string
		for _, k := range config.Keys {
			out = append(out, k.Name+"\t"+k.Help)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	case 1:
		if k, ok := config.Lookup(args[0]); ok && cmd.Name() == "set" {
			return k.Values(), cobra.ShellCompDirectiveNoFileComp
		}
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func runConfigList(inv *cmdutil.Invocation) error {
	l := inv.Loaded
	res := configResult{File: l.File, Settings: l.Origins}
	if l.FileErr != nil {
		res.FileError = l.FileErr.Error()
	}
	if inv.Settings.Output == "json" {
		if err := inv.WriteJSON(res, cmdutil.StatusOK, ""); err != nil {
			return err
		}
		return inv.WarnFileProblem()
	}
	w := inv.Out
	file := l.File
	if file == "" {
		file = "none (no user config directory)"
	}
	fmt.Fprintf(w, "config file: %s", file)
	switch {
	case l.FileUnusable:
		fmt.Fprint(w, " (not used: it is broken, see below)")
	case l.FileErr != nil:
		fmt.Fprint(w, " (its wrong values are not used, see below)")
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, o := range l.Origins {
		from := string(o.Source)
		if o.Detail != "" {
			from += " " + o.Detail
		}
		v := o.Value
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", o.Key, sanitize.Line(v), from)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return inv.WarnFileProblem()
}

func runConfigGet(inv *cmdutil.Invocation) error {
	if _, ok := config.Lookup(inv.Args[0]); !ok {
		return unknownSetting(inv.Args[0])
	}
	o := inv.Loaded.Origin(inv.Args[0])
	if inv.Settings.Output == "json" {
		if err := inv.WriteJSON(configGetResult{o}, cmdutil.StatusOK, ""); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(inv.Out, sanitize.Line(o.Value))
	}
	return inv.WarnFileProblem()
}

func runConfigSet(inv *cmdutil.Invocation) error {
	key, value := inv.Args[0], inv.Args[1]
	k, ok := config.Lookup(key)
	if !ok {
		return unknownSetting(key)
	}
	if value == "" {
		return cmdutil.Usagef("no value for %s; to go back to the default, use quorum config unset %s", key, key)
	}
	if err := k.Check(value); err != nil {
		return cmdutil.Usagef("%s=%q: %v", key, value, err)
	}
	if err := config.Set(inv.Loaded.File, key, value); err != nil {
		return err
	}
	noteOverride(inv, key)
	return nil
}

func runConfigUnset(inv *cmdutil.Invocation) error {
	if _, ok := config.Lookup(inv.Args[0]); !ok {
		return unknownSetting(inv.Args[0])
	}
	if err := config.Unset(inv.Loaded.File, inv.Args[0]); err != nil {
		return err
	}
	noteOverride(inv, inv.Args[0])
	return nil
}

// noteOverride warns when the environment will hide what was just
// written to the file.
func noteOverride(inv *cmdutil.Invocation, key string) {
	if o := inv.Loaded.Origin(key); o.Source == config.SourceEnv {
		fmt.Fprintf(inv.ErrOut, "quorum: note: $%s is set, and beats the config file\n", o.Detail)
	}
}

func unknownSetting(name string) error {
	msg := fmt.Sprintf("unknown setting %q (settings: %s)", name, strings.Join(config.Names(), ", "))
	if best := config.Closest(name); best != "" {
		msg = fmt.Sprintf("unknown setting %q; did you mean %s?", name, best)
	}
	return &cmdutil.UsageError{Msg: msg}
}
