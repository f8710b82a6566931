package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/agent"
	"github.com/quorum-go/quorum/internal/cli/chat"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/cli/review"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// This file is `quorum chat`, `quorum history` and `quorum show`: the
// conversation (quorum.Chat) behind a terminal UI (package chat), and the
// conversations it saved.

func (e *env) chatCmd() *cobra.Command {
	var resume, approve string
	var plain bool
	c := cmdutil.NewCommand(e.Factory, &cobra.Command{
		Use:   "chat",
		Short: "Talk with the quorum: rounds of follow-ups in a terminal UI",
		Long: `Talk with the quorum in a terminal UI: type a question for a discussion
round (every model answers, they review each other, the moderator
synthesises); a follow-up goes to the same sessions, so each model keeps
its own context, and its prompt carries what the last round concluded.
/plan, /debate, /review [range] and /ask [model] run the other strategies
as rounds; /agent TASK plans the task with the models, shows you the plan
to approve, edit or reject, and carries it out in a git worktree of a new
branch as quorum agent does (shell commands go by --approve: you are
asked, by default); /models, /new, /save [file], /history, /help and
/quit manage the conversation.
While a round runs, one pane per model streams its text; Esc or Ctrl-C
cancels the round (what came in is kept, marked interrupted).

Every conversation is saved as it goes (JSON lines, mode 0600) under
$XDG_STATE_HOME/quorum/chats; quorum history lists them, quorum show ID
prints one, and --resume ID continues one: in the same CLI sessions when
the CLI still has them, else in new ones told the saved rounds.

With --plain, TERM=dumb, or when stdin or stdout is not a terminal, it
runs line by line instead (each line a question or a command; a line
ending in \ goes on on the next), for screen readers, logs and pipes.
It exits 0 when you leave (Ctrl-C or Ctrl-D at an empty prompt, /quit,
or the end of input), its sessions deleted and the CLI stopped.`,
		Example: `  $ quorum chat --sim
  $ quorum chat -m gpt-5,claude-sonnet-4.5 --moderator gemini-2.5-pro
  $ quorum chat --resume 20261125-093001-1a2b3c
  $ printf 'Tabs or spaces?\n/ask sim-beta why?\n' | quorum chat --sim --plain`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{Quorum: true, Moderated: true, PeerReview: true, Connects: true, Progress: true, Timeout: true},
		func(inv *cmdutil.Invocation) error { return runChat(inv, resume, approve, plain) })
	c.Flags().StringVar(&resume, "resume", "", "continue the saved conversation `ID` (quorum history lists them)")
	cmdutil.Group(c.Flags().Lookup("resume"), cmdutil.GroupInput)
	_ = c.RegisterFlagCompletionFunc("resume", e.completeChats)
	c.Flags().StringVar(&approve, "approve", "", "how /agent's shell commands are decided: `mode` ask (you: the default), quorum (the other models vote), auto (all, in the worktree) or never")
	cmdutil.Group(c.Flags().Lookup("approve"), cmdutil.GroupRun)
	c.Flags().BoolVar(&plain, "plain", false, "line by line instead of full screen (also with TERM=dumb, or off a terminal)")
	cmdutil.Group(c.Flags().Lookup("plain"), cmdutil.GroupOutput)
	return c
}

func runChat(inv *cmdutil.Invocation, resume, approve string, plain bool) error {
	ctx := inv.Cmd.Context()
	state, err := inv.StateDir()
	if err != nil {
		return err
	}
	// A person is at the chat, on its screen or its input lines: ask is
	// always possible.
	shell, err := agent.ShellMode(approve, true)
	if err != nil {
		return err
	}
	dir := filepath.Join(state, "chats")
	if resume != "" {
		if _, err := quorum.LoadChat(dir, resume); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	c, closeClient, err := connect.Connect(ctx, inv)
	if err != nil {
		return err
	}
	defer closeClient()
	offered, err := connect.OfferedModels(ctx, inv, c)
	if err != nil {
		return err
	}
	models, moderator, err := connect.ResolveQuorum(ctx, inv, c)
	if err != nil {
		return err
	}
	feed := chat.NewFeed()
	defer feed.Stop()
	cfg := quorum.ChatConfig{Dir: dir, Config: quorum.Config{
		Models:             models,
		Moderator:          moderator,
		NoReview:           !inv.Settings.Review,
		AnswersPerReviewer: inv.Settings.Reviewers,
		Rounds:             inv.Settings.Rounds,
		PhaseTimeout:       inv.Settings.PhaseTimeout,
		Timeout:            inv.Settings.Timeout,
		MaxConcurrency:     inv.Settings.Concurrency,
		Progress:           feed.Progress,
	}}
	b := quorum.Copilot(c)
	var ch *quorum.Chat
	if resume != "" {
		rcfg := cfg
		if !inv.FlagGiven("model") {
			rcfg.Models, rcfg.Moderator = nil, "" // the saved conversation's
		}
		ch, err = quorum.ResumeChat(ctx, b, rcfg, resume)
	} else {
		ch, err = quorum.NewChat(b, cfg)
	}
	if err != nil {
		if errors.Is(err, quorum.ErrInvalidConfig) {
			return cmdutil.Usagef("%s", strings.TrimPrefix(err.Error(), "quorum: "))
		}
		return err
	}
	hist, herr := chat.LoadHistory(filepath.Join(state, "input-history.jsonl"))
	if herr != nil {
		fmt.Fprintln(inv.ErrOut, "quorum: "+sanitize.Line(herr.Error()))
	}
	editor := firstSet(inv.Getenv("VISUAL"), inv.Getenv("EDITOR"))
	o := chat.Options{
		Chat: ch, Feed: feed, Offered: offered, History: hist, ChatDir: dir,
		Simulated: inv.Simulated(), Colour: !inv.Settings.NoColor, Editor: editor,
		NewChat: func(models []string, moderator string) (*quorum.Chat, error) {
			n := cfg
			n.Models, n.Moderator = models, moderator
			return quorum.NewChat(b, n)
		},
		Agent: func(ctx context.Context, task string) (quorum.AgentConfig, error) {
			cfg, _, err := agent.Config(ctx, inv, task, shell, "")
			return cfg, err
		},
		Change: func(ctx context.Context, rng string) (quorum.Change, string, error) {
			base, head, _ := strings.Cut(rng, "..")
			if base == "" {
				base = "HEAD~1"
			}
			diff, source, err := review.GitDiff(inv, base, head)
			if err != nil {
				return quorum.Change{}, "", err
			}
			if strings.TrimSpace(diff) == "" {
				return quorum.Change{}, "", fmt.Errorf("%s is empty: nothing to review", source)
			}
			return quorum.Change{Diff: diff}, source, nil
		},
	}
	if shell == quorum.ShellAuto {
		// Said on the chat's own screen: stderr is hidden behind it.
		o.Notice = "--approve auto: every shell command /agent's executor asks for in its worktree will run without asking."
	}
	var runErr error
	if plain || !chatOnTerminal(inv) {
		ch, runErr = chat.RunPlain(ctx, o, inv.In, inv.Out)
	} else {
		ch, runErr = chat.Run(ctx, o, inv.In, inv.Out)
	}
	// The sessions end with the conversation; the file stays, to resume.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), quorum.DefaultCloseTimeout)
	defer cancel()
	if err := ch.Close(cctx); err != nil && runErr == nil {
		fmt.Fprintln(inv.ErrOut, "quorum: closing the sessions: "+sanitize.Line(err.Error()))
	}
	if !inv.Opts.Quiet {
		fmt.Fprintf(inv.ErrOut, "quorum: conversation %s saved; continue it with quorum chat --resume %s\n", ch.ID(), ch.ID())
	}
	if runErr == nil && ctx.Err() != nil {
		return cmdutil.InterruptedBy(ctx)
	}
	return runErr
}

// chatOnTerminal says whether the full-screen UI fits: stdin and stdout
// are a terminal that is not dumb.
func chatOnTerminal(inv *cmdutil.Invocation) bool {
	tty, _ := iostreams.TerminalWidth(inv.Out)
	return tty && iostreams.IsTerminal(inv.In) && inv.Getenv("TERM") != "dumb"
}

func firstSet(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (e *env) historyCmd() *cobra.Command {
	return cmdutil.NewCommand(e.Factory, &cobra.Command{
		Use:   "history",
		Short: "List the saved conversations of quorum chat",
		Long: `List the conversations quorum chat saved (under $XDG_STATE_HOME/quorum/chats),
the latest first: id, last change, rounds, models and the first question.
quorum show ID prints one; quorum chat --resume ID continues it.`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{}, func(inv *cmdutil.Invocation) error {
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
	})
}

func (e *env) showCmd() *cobra.Command {
	return cmdutil.NewCommand(e.Factory, &cobra.Command{
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
			return e.completeChats(cmd, args, toComplete)
		},
	}, cmdutil.Spec{}, func(inv *cmdutil.Invocation) error {
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
	})
}

// completeChats completes the ids of the saved conversations, latest
// first, each described by its first question.
func (e *env) completeChats(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	state, err := e.StateDir()
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
