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

// HistoryOptions are what quorum history runs with: its invocation.
type HistoryOptions struct {
	*cmdutil.Invocation
}

// NewCmdHistory is quorum history; runF, when not nil, runs in place of
// the command's own code with the options parsed (a test's).
func NewCmdHistory(f *cmdutil.Factory, runF func(*HistoryOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "history",
		Short: "List the saved conversations of quorum chat",
		Long: `List the conversations quorum chat saved (under $XDG_STATE_HOME/quorum/chats),
the latest first: id, last change, rounds, models and the first question.
quorum show ID prints one; quorum chat --resume ID continues it.`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{}, func(inv *cmdutil.Invocation) error {
		opts := &HistoryOptions{Invocation: inv}
		if runF != nil {
			return runF(opts)
		}
		return historyRun(opts)
	})
}

func historyRun(opts *HistoryOptions) error {
	inv := opts.Invocation
	{
		state, err := inv.StateDir()
		if err != nil {
			return err
		}
		list, bad, err := quorum.ListChats(filepath.Join(state, "chats"))
		if err != nil {
			return err
		}
		for _, sc := range list {
			fmt.Fprintln(inv.Out, chat.HistoryLine(sc))
		}
		for _, err := range bad {
			fmt.Fprintln(inv.ErrOut, "quorum: "+sanitize.Line(err.Error()))
		}
		if len(list) == 0 && len(bad) == 0 {
			fmt.Fprintln(inv.ErrOut, "quorum: no saved conversations yet; quorum chat starts one")
		}
		return nil
	}
}

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
report: rendered Markdown on a terminal, plain text otherwise, Markdown with
-o markdown. quorum history lists the ids.`,
		Args: cmdutil.ExactArgs("a conversation id (quorum history lists them)"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeChats(f)(cmd, args, toComplete)
		},
	}, cmdutil.Spec{}, func(inv *cmdutil.Invocation) error {
		opts := &ShowOptions{Invocation: inv}
		if runF != nil {
			return runF(opts)
		}
		return showRun(opts)
	})
}

func showRun(opts *ShowOptions) error {
	inv := opts.Invocation
	{
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
		return printSaved(inv, sc)
	}
}

// completeChats completes the ids of the saved conversations, latest
// first, each described by its first question.
func completeChats(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return chatIDs(f, toComplete)
	}
}

func chatIDs(f *cmdutil.Factory, toComplete string) ([]string, cobra.ShellCompDirective) {
	state, err := f.StateDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	list, _, _ := quorum.ListChats(filepath.Join(state, "chats"))
	var out []string
	for _, sc := range list {
		if !strings.HasPrefix(sc.ID, toComplete) {
			continue
		}
		desc := ""
		if len(sc.Rounds) > 0 {
			desc = "\t" + sanitize.Line(sc.Rounds[0].Prompt)
		}
		out = append(out, sc.ID+desc)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// printSaved prints a saved conversation: rendered on a terminal, plain
// text otherwise.
func printSaved(inv *cmdutil.Invocation, sc *quorum.SavedChat) error {
	var md strings.Builder
	fmt.Fprintf(&md, "# Conversation %s\n\n%s · %s\n\n", sc.ID, sc.CreatedAt.Local().Format("2006-01-02 15:04"), sanitize.Line(strings.Join(sc.Models, ", ")))
	var text strings.Builder
	fmt.Fprintf(&text, "Conversation %s, %s, with %s\n\n", sc.ID, sc.CreatedAt.Local().Format("2006-01-02 15:04"), sanitize.Line(strings.Join(sc.Models, ", ")))
	for i := range sc.Rounds {
		r := &sc.Rounds[i]
		sim := strings.Contains(r.Conclusion, "[simulated") || inv.Simulated()
		md.WriteString(chat.RoundMarkdown(r, sim) + "\n")
		text.WriteString(chat.RoundText(r, sim) + "\n")
	}
	if tty, width := inv.StdoutTerminal(); tty {
		out, err := report.Terminal(md.String(), width, !inv.Settings.NoColor)
		if err == nil {
			_, err = io.WriteString(inv.Out, out)
			return err
		}
	}
	_, err := io.WriteString(inv.Out, text.String())
	return err
}
