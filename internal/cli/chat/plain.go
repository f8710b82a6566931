package chat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/cli/planfile"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// RunPlain runs the chat line by line, for a screen reader, a log or a
// pipe: each line read from in is a question or a command (a line ending
// with \ goes on on the next), progress is a line per step, and each
// round ends with its report as plain text (an /ask reply streams, and is
// not written again). A prompt waits for each line typed at a terminal;
// a line read from elsewhere is echoed after the prompt, as a person's
// would be. It returns at the end of in, /quit or when ctx ends; the
// caller closes the chat (o.Chat may have been replaced by /new: it
// returns the chat to close).
func RunPlain(ctx context.Context, o Options, in io.Reader, out io.Writer) (*quorum.Chat, error) {
	lines := make(chan string)
	readErr := make(chan error, 1)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		// Reading in cannot be interrupted: this goroutine ends at the
		// end of in, or at the next line once RunPlain has returned (for
		// a terminal, with the process).
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var cont strings.Builder
		for sc.Scan() {
			l := sc.Text()
			if s, ok := strings.CutSuffix(l, `\`); ok {
				cont.WriteString(s + "\n")
				continue
			}
			cont.WriteString(l)
			select {
			case lines <- cont.String():
			case <-stopped:
				return
			}
			cont.Reset()
		}
		readErr <- sc.Err()
		close(lines)
	}()
	tty, _ := iostreams.TerminalWidth(out)
	p := &plain{o: &o, out: out, lines: lines, typed: tty && iostreams.IsTerminal(in)}
	if o.Notice != "" {
		fmt.Fprintln(out, sanitize.Text(o.Notice))
	}
	p.intro()
	for {
		if p.typed {
			fmt.Fprint(out, "› ")
		}
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
			p.endPrompt()
			return o.Chat, nil
		}
		if !ok {
			p.endPrompt()
			select {
			case err := <-readErr:
				return o.Chat, err
			default:
				return o.Chat, nil
			}
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !p.typed {
			// What was read is said as the prompt and the line a person
			// would have typed: each round's output follows its question.
			fmt.Fprintln(out, "› "+strings.ReplaceAll(sanitize.Text(line), "\n", "\n  "))
		}
		if o.History != nil {
			if err := o.History.Add(line); err != nil {
				fmt.Fprintln(out, "quorum: "+sanitize.Line(err.Error()))
			}
		}
		models, _ := o.Chat.Models()
		req, err := parseLine(line, models)
		if err != nil {
			fmt.Fprintln(out, sanitize.Line(err.Error()))
			continue
		}
		if quit := p.do(ctx, req); quit {
			return o.Chat, nil
		}
	}
}

type plain struct {
	o     *Options
	out   io.Writer
	lines <-chan string // the input, a line at a time: questions and the gate's answers
	// typed: the input is typed at the terminal out shows, which echoes
	// it. Then a prompt waits for each line; otherwise (a pipe, a file,
	// out not that terminal) what was read is echoed after its prompt,
	// so that no prompt is left in front of the output that follows.
	typed bool
}

// endPrompt ends the line of a prompt left waiting (the input ended).
func (p *plain) endPrompt() {
	if p.typed {
		fmt.Fprintln(p.out)
	}
}

func (p *plain) intro() {
	models, moderator := p.o.Chat.Models()
	sim := ""
	if p.o.Simulated {
		sim = " (simulated)"
	}
	fmt.Fprintf(p.out, "quorum chat %s%s with %s; moderator %s\n", p.o.Chat.ID(), sim,
		sanitize.Line(strings.Join(models, ", ")), sanitize.Line(firstNonEmpty(moderator, first(models))))
	if n := len(p.o.Chat.Rounds()); n > 0 {
		fmt.Fprintf(p.out, "%d earlier round(s); the next builds on them.\n", n)
	}
	fmt.Fprintln(p.out, "Type a question; /help lists the commands; end of input (Ctrl-D) or /quit leaves.")
}

// do carries out one request; it reports whether to leave.
func (p *plain) do(ctx context.Context, req request) bool {
	o := p.o
	switch req.kind {
	case reqQuit:
		return true
	case reqHelp:
		fmt.Fprint(p.out, helpText(false))
	case reqModels:
		if len(req.args) > 0 {
			if err := setModels(o.Chat, o.Offered, req.args); err != nil {
				fmt.Fprintln(p.out, sanitize.Line(err.Error()))
				return false
			}
		}
		fmt.Fprintln(p.out, modelsText(o.Chat, o.Offered))
	case reqHistory:
		s, err := historyText(o.ChatDir, 0)
		if err != nil {
			s = err.Error()
		}
		fmt.Fprintln(p.out, sanitize.Text(s))
	case reqSave:
		path := firstNonEmpty(req.text, "quorum-chat-"+o.Chat.ID()+".md")
		if err := saveMarkdown(path, o.Chat, o.Simulated); err != nil {
			fmt.Fprintln(p.out, sanitize.Line(err.Error()))
			return false
		}
		fmt.Fprintln(p.out, "saved to "+sanitize.Line(path))
	case reqNew:
		c, err := renew(ctx, o)
		if err != nil {
			fmt.Fprintln(p.out, sanitize.Line(err.Error()))
			return false
		}
		o.Chat = c
		p.intro()
	case reqRound:
		p.round(ctx, req)
	}
	return false
}

// renew closes the chat and starts a new one with the same models.
func renew(ctx context.Context, o *Options) (*quorum.Chat, error) {
	if o.NewChat == nil {
		return nil, fmt.Errorf("/new is not available here")
	}
	models, moderator := o.Chat.Models()
	c, err := o.NewChat(models, moderator)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), quorum.DefaultCloseTimeout)
	defer cancel()
	if err := o.Chat.Close(cctx); err != nil {
		return c, nil // the new chat goes on; the old sessions are the CLI's to drop
	}
	return c, nil
}

// round runs a round, printing a line per step and the report at its end.
func (p *plain) round(ctx context.Context, req request) {
	type done struct {
		r   *quorum.ChatRound
		err error
	}
	end := make(chan done, 1)
	go func() {
		r, err := runRound(ctx, p.o, p.o.Chat, req)
		end <- done{r, err}
	}()
	streaming := false
	var streamed strings.Builder // an Ask round's reply, as shown
	for {
		var ev quorum.Progress
		select {
		case d := <-end:
			if streaming {
				fmt.Fprintln(p.out)
			}
			switch {
			case d.r == nil && d.err != nil:
				fmt.Fprintln(p.out, "quorum: "+sanitize.Line(d.err.Error()))
			case d.r != nil:
				fmt.Fprintln(p.out)
				fmt.Fprint(p.out, roundText(d.r, p.o.Simulated, streamed.String()))
			}
			return
		case ev = <-p.o.Feed.ch:
		case q := <-p.o.Feed.questions:
			if streaming {
				fmt.Fprintln(p.out)
				streaming = false
			}
			p.answer(ctx, q)
			continue
		}
		switch ev.Kind {
		case quorum.PhaseStarted:
			fmt.Fprintf(p.out, "· %s: %s\n", ev.Phase, sanitize.Line(ev.Text))
		case quorum.Delta:
			// Only a question to one model streams here: a round's many
			// models would interleave.
			if ev.Phase == quorum.PhaseAsk {
				streaming = true
				streamed.WriteString(sanitize.Text(ev.Text))
				fmt.Fprint(p.out, sanitize.Text(ev.Text))
			}
		case quorum.ToolActivity:
			fmt.Fprintf(p.out, "  ⚙ %s: %s\n", sanitize.Line(ev.Model), sanitize.Line(ev.Text))
		case quorum.ActionDecided:
			fmt.Fprintf(p.out, "  → %s: %s\n", sanitize.Line(ev.Model), sanitize.Line(ev.Text))
		case quorum.ModelFinished:
			if streaming {
				fmt.Fprintln(p.out)
				streaming = false
			}
			who := ev.Model
			if ev.Target != "" {
				who += " on " + ev.Target
			}
			if ev.Err != nil {
				fmt.Fprintf(p.out, "  ✗ %s: %s\n", sanitize.Line(who), sanitize.Line(ev.Err.Error()))
			} else {
				fmt.Fprintf(p.out, "  ✓ %s (%d chars, %.1fs)\n", sanitize.Line(who), len([]rune(ev.Text)), ev.Elapsed.Seconds())
			}
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// answer puts an /agent round's question on the line and reads the
// answer from the input: the plan (or the command), then the choices
// until one is given, as a word (y or yes, n or no, a or always, e or
// edit; anything else is asked again, so a line typed for something
// else is never taken for consent). To edit the plan, e writes it to a
// file for any editor and reads it back when the person presses Enter.
// The end of the input answers no: nothing runs that nobody allowed. A
// question whose asker stopped waiting is withdrawn, said so.
func (p *plain) answer(ctx context.Context, q *question) {
	var edited *quorum.AgentPlan
	show := func() {
		fmt.Fprintln(p.out)
		fmt.Fprint(p.out, q.text(edited, p.o.Simulated))
	}
	errWithdrawn := errors.New("withdrawn")
	read := func() (string, error) {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return "", io.EOF
			}
			return line, nil
		case <-q.over:
			return "", errWithdrawn
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	show()
	for {
		fmt.Fprint(p.out, q.prompt(edited != nil)+": ")
		line, err := read()
		if err == nil && !p.typed {
			fmt.Fprintln(p.out, sanitize.Line(line)) // the answer after its prompt
		}
		switch {
		case err == io.EOF:
			fmt.Fprintln(p.out)
			fmt.Fprintln(p.out, "quorum: the input ended: answered no")
			a, _ := q.decide("n", nil)
			q.reply <- a
			return
		case err == errWithdrawn:
			fmt.Fprintln(p.out)
			fmt.Fprintln(p.out, "quorum: "+q.withdrawnNote())
			return
		case err != nil:
			fmt.Fprintln(p.out)
			return
		}
		choice := choiceOf(line)
		if choice == "e" && q.plan != nil {
			if e, ok := p.editPlan(q, edited, read); ok {
				edited = e
				show()
			}
			continue
		}
		if a, ok := q.decide(choice, edited); ok {
			q.reply <- a
			return
		}
		fmt.Fprintf(p.out, "quorum: %q is not an answer here.\n", sanitize.Line(strings.TrimSpace(line)))
	}
}

// editPlan writes the plan to a file, waits for Enter, and reads the
// file back; a plan that does not read is said, and not taken.
func (p *plain) editPlan(q *question, edited *quorum.AgentPlan, read func() (string, error)) (*quorum.AgentPlan, bool) {
	plan := *q.plan
	if edited != nil {
		plan = *edited
	}
	path, err := planfile.Write(plan)
	if err != nil {
		fmt.Fprintln(p.out, "quorum: "+sanitize.Line(err.Error()))
		return nil, false
	}
	defer os.Remove(path)
	fmt.Fprintf(p.out, "The plan is in %s, as JSON: edit it with any editor, save it, then press Enter.\n", path)
	if _, err := read(); err != nil {
		return nil, false
	}
	got, err := planfile.Read(path)
	if err != nil {
		fmt.Fprintln(p.out, "quorum: "+sanitize.Line(err.Error()))
		return nil, false
	}
	got.Author = q.plan.Author
	return &got, true
}
