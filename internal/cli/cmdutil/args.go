package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The checks of a command's arguments, which say what was wrong in
// usage errors.

// UnknownCommand is the usage error for a command that does not exist,
// with the commands it could have meant.
func UnknownCommand(parent *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, parent.CommandPath())
	if parent.SuggestionsMinimumDistance <= 0 {
		parent.SuggestionsMinimumDistance = 2 // cobra's own default, which it sets only on its own path
	}
	if s := parent.SuggestionsFor(name); len(s) > 0 && parent.Name() != "completion" {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	} else {
		var names []string
		for _, c := range parent.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		msg += " (commands: " + strings.Join(names, ", ") + ")"
	}
	return &UsageError{Msg: msg, Cmd: parent.CommandPath()}
}

// NoArgs is the Args of a command that takes none and may have
// subcommands: an argument is an unknown subcommand or a stray word.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		return UnknownCommand(cmd, args[0])
	}
	return Usagef("%s takes no arguments, got %q", cmd.CommandPath(), strings.Join(args, " "))
}

// ExactArgs is the Args of a command that takes n arguments, named
// names in messages.
func ExactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == len(names) {
			return nil
		}
		what := strings.Join(names, " and ")
		if len(args) < len(names) {
			return Usagef("%s needs %s", cmd.CommandPath(), what)
		}
		return Usagef("%s takes %s, got %d arguments (%s); quote an argument that has spaces", cmd.CommandPath(), what, len(args), QuoteAll(args))
	}
}

// QuoteAll quotes args for a message, each cut to 40 characters.
func QuoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:37] + "..."
		}
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}
