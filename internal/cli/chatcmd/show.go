package chatcmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/chat"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// This file is `quorum show`: a saved conversation, round by round, for
// people (rendered on a terminal, plain text or Markdown) or programs
// (JSON), every round of a simulated one marked as simulated.

// ShowOptions are what quorum show runs with: its invocation, whose one
// argument is the conversation's id.
type ShowOptions struct {
	*cmdutil.Invocation
}

// NewCmdShow is quorum show; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's).
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "show <id>",
		Short: "Print a conversation quorum chat saved",
		Long: `Print a conversation quorum chat saved, round by round, each with its
report: rendered Markdown on a terminal, plain text otherwise (wrapped at
$COLUMNS, or 80), Markdown with -o markdown, and with -o json the saved
conversation itself (its "simulated" says whether its answers came from
the simulator). quorum history lists the ids.`,
		Example: `  $ quorum show 20261125-093001-1a2b3c
  $ quorum show 20261125-093001-1a2b3c --jq '.result.rounds[].conclusion'`,
		Args: cmdutil.ExactArgs("a conversation id (quorum history lists them)"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeChats(f)(cmd, args, toComplete)
		},
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) { b.Output() }, Result: quorum.SavedChat{}}, func(inv *cmdutil.Invocation) error {
		opts := &ShowOptions{Invocation: inv}
		if runF != nil {
			return runF(opts)
		}
		return showRun(opts)
	})
}

func showRun(opts *ShowOptions) error {
	inv := opts.Invocation
	state, err := inv.StateDir()
	if err != nil {
		return err
	}
	sc, err := quorum.LoadChat(filepath.Join(state, "chats"), inv.Args[0])
	if errors.Is(err, quorum.ErrInvalidConfig) {
		return cmdutil.Usagef("%s", strings.TrimPrefix(err.Error(), "quorum: "))
	}
	if err != nil {
		return err
	}
	// What is shown came from the simulator: the JSON envelope says so,
	// as it does for a --sim run.
	sc.Simulated = simulatedChat(sc)
	inv.Opts.Sim = sc.Simulated
	if inv.JSONOutput() {
		return inv.WriteJSON(sc, cmdutil.StatusOK, "")
	}
	return printSaved(inv, sc)
}

// printSaved prints a saved conversation: rendered on a terminal, plain
// text otherwise, Markdown with -o markdown.
func printSaved(inv *cmdutil.Invocation, sc *quorum.SavedChat) error {
	sim := sc.Simulated
	with := sanitize.Line(strings.Join(summarise(sc).Models, ", "))
	if sim {
		with += " (simulated)"
	}
	when := sc.CreatedAt.Local().Format("2006-01-02 15:04")
	if inv.Settings.Output == "markdown" || inv.Settings.Output == "text" && isTerminal(inv) {
		var md strings.Builder
		fmt.Fprintf(&md, "# Conversation %s\n\n%s · %s\n\n", sc.ID, when, with)
		for i := range sc.Rounds {
			md.WriteString(chat.RoundMarkdown(&sc.Rounds[i], sim) + "\n")
		}
		if inv.Settings.Output == "markdown" {
			_, err := io.WriteString(inv.Out, md.String())
			return err
		}
		_, width := inv.StdoutTerminal()
		if out, err := report.Terminal(md.String(), width, !inv.Settings.NoColor); err == nil {
			_, err = io.WriteString(inv.Out, out)
			return err
		}
	}
	width := inv.TextWidth()
	var text strings.Builder
	fmt.Fprintf(&text, "Conversation %s, %s, with %s\n\n", sc.ID, when, with)
	for i := range sc.Rounds {
		text.WriteString(savedRoundText(&sc.Rounds[i], sim, width) + "\n")
	}
	_, err := io.WriteString(inv.Out, text.String())
	return err
}

func isTerminal(inv *cmdutil.Invocation) bool {
	tty, _ := inv.StdoutTerminal()
	return tty
}

// savedRoundText is a saved round as plain text wrapped at width: what
// was asked, then its report, or an ask's reply, marked simulated when it
// is, and incomplete when the round was interrupted or failed.
func savedRoundText(r *quorum.ChatRound, simulated bool, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d · %s: %s\n\n", r.N, r.Kind, sanitize.Line(r.Prompt))
	o := report.Options{Simulated: simulated, Width: width}
	if r.Status == quorum.RoundInterrupted || r.Status == quorum.RoundFailed {
		o.Incomplete = r.Status
		if r.Error != "" {
			o.Incomplete += ": " + r.Error
		}
	}
	if rep := report.Round(r); rep != nil {
		report.Text(&b, rep, o)
		return b.String()
	}
	// An ask round (or one that could not start) has no report: the
	// model's reply, if any.
	if r.Ask != nil {
		report.Reply(&b, r.Ask.Model, r.Ask.Text, o)
	} else if o.Incomplete != "" {
		fmt.Fprintln(&b, sanitize.Line(o.Incomplete))
	}
	return b.String()
}
