package runquorum

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// This file is what a run will cost, said before it starts: the estimate
// of premium requests at the CLI's multipliers, beside the account's
// allowance when the CLI reports one, and --dry-run, which prints it and
// stops there.

// ReadAllowance reads the account's premium-request allowance; nil when
// the CLI does not tell it (an older CLI, an account without one).
func ReadAllowance(ctx context.Context, c *copilot.Client) *copilot.Quota {
	q, err := c.PremiumQuota(ctx)
	if err != nil {
		return nil
	}
	return &q
}

// span writes a range of premium requests or turns in a sentence: "7",
// "6–7", "at least 4" (report.SpanText writes it for a table).
func span(s quorum.Span) string {
	if s.Open {
		return "at least " + report.SpanText(quorum.Span{Min: s.Min, Max: s.Min})
	}
	return report.SpanText(s)
}

// counted is a span and its noun, singular for exactly one: "1 model
// turn", "6–7 model turns".
func counted(s quorum.Span, noun string) string {
	if span(s) == "1" {
		return "1 " + noun
	}
	return span(s) + " " + noun + "s"
}

// estimateLine is the progress view's first line: what the run will cost
// and what the account has left.
func estimateLine(e quorum.Estimate, a *copilot.Quota) string {
	line := fmt.Sprintf("quorum: estimate %s (%s)", counted(e.Premium, "premium request"), counted(e.Turns, "model turn"))
	if e.Cap > 0 {
		line += fmt.Sprintf(", cap %s", span(quorum.Span{Min: e.Cap, Max: e.Cap}))
	}
	if len(e.LeftOut) > 0 {
		line += "; to fit, it leaves out " + strings.Join(e.LeftOut, ", ")
	}
	if s := allowanceText(a); s != "" {
		line += "; " + s
	}
	return line
}

// allowanceText says what the account has left, "" when unknown.
func allowanceText(a *copilot.Quota) string {
	if a == nil {
		return ""
	}
	return "premium requests this month: " + a.String()
}

// dryRun is --dry-run's result in JSON.
type dryRun struct {
	Estimate  quorum.Estimate `json:"estimate"`
	Allowance *copilot.Quota  `json:"allowance,omitempty"`
}

// PrintEstimate is --dry-run's output: the estimate phase by phase and
// model by model, and the allowance; nothing was asked of a model.
func PrintEstimate(inv *cmdutil.Invocation, noun string, e quorum.Estimate, a *copilot.Quota) error {
	if inv.JSONOutput() {
		return inv.WriteJSON(dryRun{Estimate: e, Allowance: a}, cmdutil.StatusOK, "")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# What this %s would cost\n\n", noun)
	fmt.Fprintf(&b, "%s in %s; nothing was asked of a model (--dry-run).\n\n", counted(e.Premium, "premium request"), counted(e.Turns, "model turn"))
	b.WriteString("| Phase | Model | Turns | Premium requests |\n|---|---|---:|---:|\n")
	for _, p := range e.Phases {
		for _, m := range p.Models {
			who := m.Model
			if who == "" {
				who = m.Role
			} else if m.Role != "" {
				who += " (" + m.Role + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.Phase, sanitize.Line(who), span(m.Turns), span(m.Premium))
		}
	}
	var notes []string
	for _, p := range e.Phases {
		if p.Why != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s", p.Phase, p.Why))
		}
	}
	if len(e.Unpriced) > 0 {
		notes = append(notes, "- the CLI gives no multiplier for "+sanitize.Line(strings.Join(e.Unpriced, ", "))+": each turn counted at 1")
	}
	if e.Cap > 0 {
		c := fmt.Sprintf("- cap: %s premium requests (--max-premium)", span(quorum.Span{Min: e.Cap, Max: e.Cap}))
		if len(e.LeftOut) > 0 {
			c += "; to fit, the run leaves out " + strings.Join(e.LeftOut, ", ")
		}
		notes = append(notes, c)
	}
	if s := allowanceText(a); s != "" {
		notes = append(notes, "- "+s)
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	md := b.String()
	if tty, width := inv.StdoutTerminal(); tty && inv.Settings.Output != "markdown" {
		if out, err := report.Terminal(md, width, !inv.NoColor()); err == nil {
			_, err = io.WriteString(inv.Out, out)
			return err
		}
	}
	_, err := io.WriteString(inv.Out, md)
	return err
}
