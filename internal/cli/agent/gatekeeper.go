package agent

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/iostreams"
	"github.com/quorum-go/quorum/internal/cli/planfile"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// gatekeeper asks the person at the terminal: the plan at the gate, and
// each shell command under --approve ask. Answers are read a line at a
// time from stdin by one goroutine, so that a question honours its
// context (Ctrl-C) while the read waits.
type gatekeeper struct {
	inv   *cmdutil.Invocation
	once  sync.Once
	lines chan string
	// asking puts one question at a time: several attempts' executors may
	// ask at once, and not every progress view holds them apart.
	asking sync.Mutex
}

// readLine returns the next line of stdin, or an error once ctx ends or
// stdin does.
func (g *gatekeeper) readLine(ctx context.Context) (string, error) {
	g.once.Do(func() {
		g.lines = make(chan string)
		go func() {
			defer close(g.lines)
			sc := bufio.NewScanner(g.inv.In)
			for sc.Scan() {
				g.lines <- sc.Text()
			}
		}()
	})
	select {
	case <-ctx.Done():
		return "", context.Cause(ctx)
	case line, ok := <-g.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(line), nil
	}
}

// ask shows question (after text, if any) and returns the answer, asking
// again until it is one of choices (first letters count); the progress
// view holds still meanwhile.
func (g *gatekeeper) ask(ctx context.Context, text, question string, choices []string) (string, error) {
	var answer string
	var err error
	g.asking.Lock()
	defer g.asking.Unlock()
	g.inv.Interject(func() {
		w := g.inv.ErrOut
		if text != "" {
			fmt.Fprint(w, text)
		}
		for {
			fmt.Fprint(w, question)
			var line string
			if line, err = g.readLine(ctx); err != nil {
				fmt.Fprintln(w)
				return
			}
			line = strings.ToLower(line)
			for _, c := range choices {
				if line != "" && strings.HasPrefix(c, line) {
					answer = c
					return
				}
			}
			fmt.Fprintf(w, "Please answer %s.\n", strings.Join(choices, ", "))
		}
	})
	return answer, err
}

// approve is the gate on a terminal: the plan, then approve, edit or
// reject.
func (g *gatekeeper) approve(ctx context.Context, plan quorum.AgentPlan) (quorum.Approval, error) {
	for {
		var b strings.Builder
		inv := g.inv
		rep, o := report.AgentPlan(plan, nil), report.Options{Simulated: inv.Simulated()}
		var md strings.Builder
		report.Markdown(&md, rep, o)
		_, width := iostreams.TerminalWidth(inv.ErrOut)
		if out, err := report.Terminal(md.String(), width, !inv.NoColor()); err == nil {
			b.WriteString(out)
		} else {
			report.Text(&b, rep, o)
		}
		answer, err := g.ask(ctx, "\n"+b.String()+"\n", "Carry out this plan? [y]es, [e]dit, [n]o: ", []string{"yes", "edit", "no"})
		if err != nil {
			return quorum.Approval{}, fmt.Errorf("no answer at the gate: %w", err)
		}
		switch answer {
		case "yes":
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		case "no":
			return quorum.Approval{Verdict: quorum.ApprovalRejected, Reason: "rejected at the terminal"}, nil
		}
		edited, err := g.edit(ctx, plan)
		if err != nil {
			fmt.Fprintln(inv.ErrOut, "quorum: "+sanitize.Line(err.Error()))
			continue
		}
		plan = edited
		answer, err = g.ask(ctx, "", "Carry out the edited plan? [y]es, [n]o: ", []string{"yes", "no"})
		if err != nil {
			return quorum.Approval{}, fmt.Errorf("no answer at the gate: %w", err)
		}
		if answer == "yes" {
			return quorum.Approval{Verdict: quorum.ApprovalEdited, Plan: &plan}, nil
		}
	}
}

// edit opens the plan, as JSON, in $VISUAL or $EDITOR (vi if neither) and
// reads it back; a plan that does not read, or has no step, is an error
// and the plan stays as it was.
func (g *gatekeeper) edit(ctx context.Context, plan quorum.AgentPlan) (quorum.AgentPlan, error) {
	path, err := planfile.Write(plan)
	if err != nil {
		return plan, err
	}
	defer os.Remove(path)
	editor := g.inv.Getenv("VISUAL")
	if editor == "" {
		editor = g.inv.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	var runErr error
	g.inv.Interject(func() {
		cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "editor", path)
		if in, ok := g.inv.In.(*os.File); ok {
			cmd.Stdin = in
		}
		if out, ok := g.inv.ErrOut.(*os.File); ok {
			cmd.Stdout, cmd.Stderr = out, out
		}
		runErr = cmd.Run()
	})
	if runErr != nil {
		return plan, fmt.Errorf("the editor (%s) failed: %v; the plan is unchanged", editor, runErr)
	}
	edited, err := planfile.Read(path)
	if err != nil {
		return plan, err
	}
	return edited, nil
}

// askShell asks whether the executor may run a shell command: yes, no,
// or always (this command, for the rest of the run).
func (g *gatekeeper) askShell(ctx context.Context, a quorum.Action) (quorum.ActionDecision, error) {
	who := "The executor"
	if a.Attempt != "" {
		who = "Attempt " + sanitize.Line(a.Attempt) + "'s executor"
	}
	text := "\n" + who + " asks to run:\n  " + sanitize.Exact(sanitize.Line(a.Command)) + "\n"
	if a.Intention != "" {
		text += "to " + sanitize.Exact(sanitize.Line(a.Intention)) + "\n"
	}
	answer, err := g.ask(ctx, text, "Allow? [y]es, [n]o, [a]lways this command: ", []string{"yes", "no", "always"})
	if err != nil {
		return quorum.ActionDecision{}, err
	}
	switch answer {
	case "yes":
		return quorum.ActionDecision{Allow: true, Reason: "allowed at the terminal"}, nil
	case "always":
		return quorum.ActionDecision{Allow: true, Always: true, Reason: "allowed at the terminal, for the rest of the run"}, nil
	}
	return quorum.ActionDecision{Reason: "denied at the terminal"}, nil
}
