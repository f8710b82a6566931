// Package ask is quorum ask: one model, one question, the answer streamed
// to the terminal. Its command is built once per run and used by one
// goroutine; the observer a run is given is called from that goroutine.
package ask

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/cli/input"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// Result is the result of `quorum ask -o json`, the same as the MCP
// server's ask.
type Result struct {
	Model    string `json:"model"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// TurnCost is the turn's time and usage, in the quorum package's
	// terms, as an answer's in discuss.
	quorum.TurnCost
}

// AskOptions are what quorum ask runs with: its invocation (the one
// model, the question, the connection and the output format).
type AskOptions struct {
	*cmdutil.Invocation
}

// NewCmdAsk is quorum ask; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's, which may call
// Run with an observer).
func NewCmdAsk(f *cmdutil.Factory, runF func(*AskOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "ask <question>",
		Short: "Ask one model, streamed straight to the terminal",
		Long: `Ask one model one question, in a session of its own with the CLI's tools
switched off; the answer streams to stdout as it is written. With -o json,
the answer comes whole at the end, in the envelope every command uses:
  {"command": "ask", "simulated", "status", "error", "result":
   {"model", "question", "answer", "elapsedMs", "usage"}}
A question of - is read from stdin (up to 1 MiB); text piped on stdin
beside a question is given with it as context, marked as material and not
instructions (git diff | quorum ask "explain this"). An answer cut short by
Ctrl-C or a failure is still printed, in every format.`,
		Example: `  $ quorum ask "What does errgroup.WithContext do?"
  $ quorum ask -m gpt-5 --json answer "Explain CRDTs in one paragraph" | jq -r .answer
  $ git diff | quorum ask "explain this change"`,
		Args: cmdutil.ExactArgs("a question (quote it; - reads it from stdin)"),
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.OneModel()
		b.Timeout()
		b.Premium(false)
		b.Output()
		b.Progress()
		b.Connects()
	}, Result: Result{}}, func(inv *cmdutil.Invocation) error {
		opts := &AskOptions{Invocation: inv}
		if runF != nil {
			return runF(opts)
		}
		return Run(opts, nil)
	})
}

// Run asks the question. observe, when not nil, sees the streamed answer
// as Delta events; the command passes nil.
func Run(opts *AskOptions, observe func(quorum.Progress)) error {
	inv := opts.Invocation
	parent := inv.Cmd.Context()
	q, err := input.Topic(inv, "question")
	if err != nil {
		return err
	}
	g, err := input.WithContext(inv, q, "question")
	if err != nil {
		return err
	}
	q = g.Text
	cn, err := connect.Open(inv)
	if err != nil {
		return err
	}
	defer cn.Close()
	ctx, c := cn.Ctx, cn.Client
	offered, err := connect.ListOffered(ctx, inv, c)
	if err != nil {
		return cn.Early(err)
	}
	model, err := connect.ResolveModel(inv, offered)
	if err != nil {
		return cn.Early(err)
	}
	est := quorum.EstimateAsk(model, offered.Multipliers, inv.Settings.MaxPremium)
	if inv.Opts.DryRun {
		return runquorum.PrintEstimate(inv, "question", est, runquorum.ReadAllowance(ctx, c))
	}
	if !est.Fits() {
		return cn.Early(fmt.Errorf("%w: a question to %s costs %s premium requests, more than --max-premium %s; raise it or ask a cheaper model (quorum models lists them)",
			quorum.ErrPremiumCap, model, cmdutil.Num(est.Premium.Max), cmdutil.Num(est.Cap)))
	}
	s, err := c.NewSession(ctx, copilot.SessionConfig{Model: model, BuiltinTools: copilot.NoBuiltinTools()})
	if err != nil {
		return err
	}
	defer s.Destroy(context.WithoutCancel(ctx))
	jsonOut := inv.Settings.Output == "json"
	if !inv.Opts.Quiet {
		label := model
		if inv.Simulated() {
			label += " (simulated)"
		}
		with := ""
		if len(g.Lines) > 0 {
			// "with context: piped on stdin (6 bytes); main.go (1.2 KiB)"
			with = ", with context: " + strings.Join(g.Lines, "; ")
		}
		fmt.Fprintf(inv.ErrOut, "quorum: asking %s%s\n", sanitize.Line(label), sanitize.Line(with))
	}
	var streamed strings.Builder
	// On a terminal the answer is wrapped at spaces to its width; piped,
	// it is written as it comes.
	write := func(s string) { io.WriteString(inv.Out, s) }
	flush := func() {}
	if tty, width := inv.StdoutTerminal(); tty && width > 0 {
		ww := &wordWrapper{w: inv.Out, width: width}
		write, flush = ww.WriteString, ww.Flush
	}
	h := copilot.TurnHandlers{OnDelta: func(d string) {
		streamed.WriteString(d)
		if !jsonOut {
			write(sanitize.Text(d))
		}
		if hook := observe; hook != nil {
			hook(quorum.Progress{Kind: quorum.Delta, Model: model, Text: d})
		}
	}}
	start := time.Now()
	r, runErr := s.Stream(ctx, q, h)
	if r.Text == "" {
		r.Text = streamed.String() // cut short: what had streamed
	}
	var in *cmdutil.Interrupted
	switch {
	case runErr != nil && errors.Is(parent.Err(), context.Canceled): // Ctrl-C, SIGTERM
		in = cmdutil.InterruptedBy(parent)
		runErr = in
	case runErr != nil && parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		runErr = fmt.Errorf("%w, and the answer was cut short; raise --timeout", context.Cause(ctx))
	}
	if jsonOut {
		status, errText := cmdutil.StatusOK, ""
		switch {
		case in != nil:
			status, errText = cmdutil.StatusInterrupted, "the answer was "+in.What()+" before it was complete"
		case runErr != nil:
			status, errText = cmdutil.StatusFailed, runErr.Error()
		}
		u := quorum.Usage{Calls: 1, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
			CacheReadTokens: r.Usage.CacheReadTokens, CacheWriteTokens: r.Usage.CacheWriteTokens, Cost: r.Usage.Cost}
		res := Result{Model: model, Question: q, Answer: r.Text, TurnCost: quorum.TurnCost{ElapsedMS: time.Since(start).Milliseconds(), Usage: u}}
		if err := inv.WriteJSON(res, status, errText); err != nil {
			return err
		}
		return runErr
	}
	if streamed.Len() == 0 && r.Text != "" { // a model that does not stream
		write(sanitize.Text(r.Text))
	}
	flush()
	if r.Text != "" {
		fmt.Fprintln(inv.Out)
	}
	return runErr
}
