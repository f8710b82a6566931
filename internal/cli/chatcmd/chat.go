// Package chatcmd is quorum chat, and quorum history and quorum show, which
// list and print what it saved: the commands around the chat's terminal UI
// (package chat), wired to the settings, the connection and the state
// directory. Its commands are built once per run and used by one
// goroutine; the UI runs on its own, as package chat says.
package chatcmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/agent"
	"github.com/quorum-go/quorum/internal/cli/chat"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/cli/review"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// This file is `quorum chat`, `quorum history` and `quorum show`: the
// conversation (quorum.Chat) behind a terminal UI (package chat), and the
// conversations it saved.

// ChatOptions are what quorum chat runs with: its invocation (the
// participants, the connection) and its own flags.
type ChatOptions struct {
	*cmdutil.Invocation
	// Resume is the saved conversation to continue (--resume); Approve
	// how /agent's shell commands are decided; Plain asks for line by
	// line instead of the full screen; Sandbox confines /agent's executor.
	Resume, Approve string
	Plain           bool
	Sandbox         agent.SandboxFlags
}

// NewCmdChat is quorum chat; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's).
func NewCmdChat(f *cmdutil.Factory, runF func(*ChatOptions) error) *cobra.Command {
	opts := &ChatOptions{}
	c := cmdutil.NewCommand(f, &cobra.Command{
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
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Models()
		b.Moderator("the `model` that writes the synthesis (default: the first participant)")
		b.PeerReview()
		b.PhaseTimeout()
		b.Timeout()
		b.Sessions()
		b.Setting("max-premium", "max-premium", "", "spend at most `N` premium requests a round: it shrinks to fit and stops with what it has at the cap (0: no cap)", cmdutil.GroupRun)
		opts.Sandbox.Declare(b.FS)
		b.Show()
		b.Progress()
		b.Connects()
	}},
		func(inv *cmdutil.Invocation) error {
			opts.Invocation = inv
			if runF != nil {
				return runF(opts)
			}
			return chatRun(opts)
		})
	c.Flags().StringVar(&opts.Resume, "resume", "", "continue the saved conversation `ID` (quorum history lists them)")
	cmdutil.Group(c.Flags().Lookup("resume"), cmdutil.GroupInput)
	_ = c.RegisterFlagCompletionFunc("resume", completeChats(f))
	c.Flags().StringVar(&opts.Approve, "approve", "", "how /agent's shell commands are decided: `mode` ask (you: the default), quorum (the other models vote), auto (all, in the worktree) or never")
	cmdutil.Group(c.Flags().Lookup("approve"), cmdutil.GroupRun)
	c.Flags().BoolVar(&opts.Plain, "plain", false, "line by line instead of full screen (also with TERM=dumb, or off a terminal)")
	cmdutil.Group(c.Flags().Lookup("plain"), cmdutil.GroupOutput)
	return c
}

func chatRun(opts *ChatOptions) error {
	inv, resume, approve, plain := opts.Invocation, opts.Resume, opts.Approve, opts.Plain
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
	offered, err := connect.ListOffered(ctx, inv, c)
	if err != nil {
		return err
	}
	models, moderator, err := connect.ResolveQuorum(inv, offered)
	if err != nil {
		return err
	}
	feed := chat.NewFeed()
	defer feed.Stop()
	cfg := quorum.ChatConfig{Dir: dir, Simulated: inv.Simulated(), Config: quorum.Config{
		Multipliers:        offered.Multipliers,
		MaxPremium:         inv.Settings.MaxPremium,
		NoEarlyStop:        !inv.Settings.EarlyStop,
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
		Chat: ch, Feed: feed, Offered: offered.IDs, History: hist, ChatDir: dir,
		Simulated: inv.Simulated(), Colour: !inv.Settings.NoColor, Editor: editor,
		NewChat: func(models []string, moderator string) (*quorum.Chat, error) {
			n := cfg
			n.Models, n.Moderator = models, moderator
			return quorum.NewChat(b, n)
		},
		Agent: func(ctx context.Context, task string) (quorum.AgentConfig, error) {
			cfg, _, err := agent.Config(ctx, inv, task, shell, "", opts.Sandbox.Policy())
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
	// Said on the chat's own screen: stderr is hidden behind it.
	var notices []string
	if shell == quorum.ShellAuto {
		notices = append(notices, "--approve auto: every shell command /agent's executor asks for in its worktree will run without asking.")
	}
	if opts.Sandbox.NoSandbox {
		notices = append(notices, "warning: "+agent.NoSandboxWarning)
	}
	o.Notice = strings.Join(notices, " ")
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
