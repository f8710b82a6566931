package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// help writes cmd's help in the GitHub CLI's layout: what it does, usage,
// examples, then the flags in sections (participants, run, output, the
// Copilot CLI, configuration). `quorum help discuss` and `quorum discuss
// --help` print the same.
func (e *env) help(cmd *cobra.Command, w io.Writer) {
	long := cmd.Long
	if long == "" {
		long = cmd.Short
	}
	fmt.Fprintln(w, strings.TrimSpace(long))
	section := func(title, body string) {
		if body = strings.TrimRight(body, "\n "); body != "" {
			fmt.Fprintf(w, "\n%s\n%s\n", title, body)
		}
	}
	usage := "  " + cmd.UseLine()
	if cmd.HasAvailableSubCommands() && cmd.Runnable() && cmd.HasParent() {
		usage += "\n  " + cmd.CommandPath() + " <command>"
	}
	section("USAGE", usage)
	if cmd.HasAvailableSubCommands() {
		var b strings.Builder
		width := 0
		for _, c := range cmd.Commands() {
			width = max(width, len(c.Name()))
		}
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() || c.Name() == "help" {
				fmt.Fprintf(&b, "  %-*s %s\n", width+1, c.Name()+":", c.Short)
			}
		}
		section("COMMANDS", b.String())
	}
	// Flags of cobra's own commands (completion's --no-descriptions) have
	// no group: they are listed as FLAGS.
	for _, g := range append([]string{""}, cmdutil.FlagGroups...) {
		fs := pflag.NewFlagSet(g, pflag.ContinueOnError)
		fs.SortFlags = false
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if cmdutil.First(f.Annotations[cmdutil.AnnGroup]) == g && f.Name != "help" {
				fs.AddFlag(f)
			}
		})
		section(strings.TrimSpace(g+" FLAGS"), fs.FlagUsagesWrapped(100))
	}
	section("EXAMPLES", cmd.Example)
	if cmd.HasParent() {
		section("MORE", "  -h, --help   this help\n  Settings and where each comes from: quorum config --help")
	} else {
		section("MORE", rootMore)
	}
}

const rootMore = `  Add --sim to run on the simulated Copilot server built into quorum: no
  Copilot CLI or login needed, and every output is marked as simulated.
  To use it for every run, quorum config set sim true (or QUORUM_SIM=1);
  models configured for the CLI are then set aside, with a note.

  Settings: flags beat environment variables (QUORUM_*), which beat the
  config file (quorum/config.json in your user config directory), which
  beats the built-in defaults; 'quorum config' shows the effective values.

  Exit codes: 0 success, 1 failure, 2 usage error, 3 degraded result (some
  models dropped out; the result is still printed), 130 interrupted
  (Ctrl-C), 143 terminated (SIGTERM). quorum review also exits 1 when a
  finding reaches --fail-on.

  Use 'quorum <command> --help' for more about a command.`

// helpCmd is `quorum help [command]`: the command's help on stdout, and a
// usage error for a command that does not exist (cobra's own says so and
// exits 0).
func (e *env) helpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, c := range cmd.Root().Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name()+"\t"+c.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := cmd.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 || len(args) > 0 && target == cmd.Root() {
				return cmdutil.UnknownCommand(cmd.Root(), strings.Join(args, " "))
			}
			e.help(target, e.Out)
			return nil
		},
	}
}

// flagError turns pflag's complaints into usage errors that say what to
// do: the flag it could have meant, the command that has it, the fields
// --json takes.
func (e *env) flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if !cmd.HasParent() {
		// cobra found no command, so it read the flags as the root's: the
		// command is what is wrong ("quorum discus --sim t").
		if w := firstWord(e.CommandLine); w != "" {
			return cmdutil.UnknownCommand(cmd, w)
		}
		if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
			msg += "; for the version, quorum --version or quorum version (in the commands, -v is --verbose)"
		}
	}
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := suggestFlag(cmd, name); s != "" {
			msg += "; did you mean --" + s + "?"
		} else if others := commandsWithFlag(cmd.Root(), name); len(others) > 0 {
			verb := "does"
			if len(others) > 1 {
				verb = "do"
			}
			msg = fmt.Sprintf("%s does not take --%s (%s %s)", cmd.CommandPath(), name, strings.Join(others, " and "), verb)
		}
	}
	if strings.HasPrefix(msg, "flag needs an argument: --json") {
		if fields := cmdutil.JSONFieldsOf(cmd); len(fields) > 0 {
			msg = "--json needs the fields to print, comma-separated; " + cmd.CommandPath() + " has: " + strings.Join(fields, ", ")
		}
	}
	return &cmdutil.UsageError{Msg: msg, Cmd: cmd.CommandPath()}
}

// firstWord is the first argument that is not a flag; the value of a
// flag given as the next argument cannot be told from a word here, but
// the root takes no flags with values.
func firstWord(args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// suggestFlag is the flag of cmd closest to name (a typo: at most two
// edits away, or a third of its length), or "".
func suggestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", max(2, len(name)/3)+1
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if d := config.Distance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// commandsWithFlag names the commands that take --name.
func commandsWithFlag(root *cobra.Command, name string) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup(name) != nil && c.IsAvailableCommand() {
			out = append(out, c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	slices.Sort(out)
	return out
}
