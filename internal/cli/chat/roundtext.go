// This file writes a chat's rounds for people: a round as Markdown (the
// screen, /save, quorum show) or as plain text (the line mode, pipes),
// and why a round did not finish, in the chat's words.

package chat

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// errYouStopped is the cause a round is cancelled with when the person
// stops it (Esc, Ctrl-C, leaving the chat): quorum's errors, the failures
// of the turns cut short and the saved round then say so, not Go's
// "context canceled". It is a context.Canceled for errors.Is.
var errYouStopped error = youStopped{}

type youStopped struct{}

func (youStopped) Error() string        { return "you stopped the round" }
func (youStopped) Is(target error) bool { return target == context.Canceled }

// stoppedByYou tells whether a round's error says that the person
// stopped it: errYouStopped, or the bare cancellation of rounds saved
// before it existed.
func stoppedByYou(err string) bool {
	return strings.Contains(err, errYouStopped.Error()) || err == context.Canceled.Error() ||
		strings.HasSuffix(err, ": "+context.Canceled.Error())
}

// incomplete says why r did not finish, "" when it did: for a round the
// person stopped, that they did, in which phase, and that what came in
// is kept; otherwise its status and error.
func incomplete(r *quorum.ChatRound) string {
	if r.Status != quorum.RoundInterrupted && r.Status != quorum.RoundFailed {
		return ""
	}
	if r.Status == quorum.RoundInterrupted && stoppedByYou(r.Error) {
		in := ""
		if out := outcome(r); out != nil && len(out.Phases) > 0 {
			in = " in its " + string(out.Phases[len(out.Phases)-1].Phase) + " phase"
		}
		return "interrupted: you stopped the round" + in + "; what had come in by then is kept."
	}
	if r.Error == "" {
		return r.Status
	}
	return r.Status + ": " + strings.TrimPrefix(r.Error, "quorum: ")
}

// outcome is r's strategy's outcome, nil for an Ask round and a round
// that could not start.
func outcome(r *quorum.ChatRound) *quorum.Outcome {
	switch {
	case r.Discuss != nil:
		return &r.Discuss.Outcome
	case r.Plan != nil:
		return &r.Plan.Outcome
	case r.Debate != nil:
		return &r.Debate.Outcome
	case r.Review != nil:
		return &r.Review.Outcome
	case r.Agent != nil:
		return &r.Agent.Outcome
	}
	return nil
}

// roundReport is a round's report and its options; rep is nil for an Ask
// round and for a round that could not start.
func roundReport(r *quorum.ChatRound, simulated bool) (rep report.Report, opts report.Options) {
	return report.Round(r), report.Options{Simulated: simulated, Incomplete: incomplete(r)}
}

// RoundMarkdown is a round as Markdown: what was asked, then its report.
// Everything a model wrote is cleaned for the terminal.
func RoundMarkdown(r *quorum.ChatRound, simulated bool) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## Round %d · %s\n\n", r.N, r.Kind)
	fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(sanitize.Text(r.Prompt), "\n", "\n> "))
	rep, opts := roundReport(r, simulated)
	switch {
	case rep != nil:
		report.Markdown(&b, rep, opts)
	default:
		writeAsk(&b, r, opts, "**", "*", false)
	}
	return b.String()
}

// RoundText is a round as plain text, for the line mode and pipes.
func RoundText(r *quorum.ChatRound, simulated bool) string {
	return roundText(r, simulated, "")
}

// roundText is RoundText after streamed, the text of an Ask round shown
// as it came in: when that is the whole reply, it is not written again.
func roundText(r *quorum.ChatRound, simulated bool, streamed string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Round %d · %s: %s\n\n", r.N, r.Kind, sanitize.Line(r.Prompt))
	rep, opts := roundReport(r, simulated)
	switch {
	case rep != nil:
		report.Text(&b, rep, opts)
	default:
		shown := r.Ask != nil && strings.TrimSpace(streamed) != "" &&
			strings.TrimSpace(streamed) == strings.TrimSpace(sanitize.Text(r.Ask.Text))
		writeAsk(&b, r, opts, "", "", shown)
	}
	return b.String()
}

// writeAsk writes an Ask round's reply (or why there is none), the
// model's name and the note between the marks given; shown: the reply
// is on the screen already, above, and is only pointed to.
func writeAsk(b *bytes.Buffer, r *quorum.ChatRound, opts report.Options, strong, em string, shown bool) {
	if r.Ask != nil {
		fmt.Fprintf(b, "%s%s%s", strong, sanitize.Line(r.Ask.Model), strong)
		if opts.Simulated {
			b.WriteString(" (simulated)")
		}
		if shown {
			b.WriteString(": its answer is above, as it came in.\n")
		} else {
			b.WriteString("\n\n" + strings.TrimSpace(sanitize.Text(r.Ask.Text)) + "\n")
		}
	}
	if opts.Incomplete != "" {
		fmt.Fprintf(b, "\n%s%s%s\n", em, sanitize.Line(opts.Incomplete), em)
	}
}

// saveMarkdown writes every round as Markdown to path (mode 0600).
func saveMarkdown(path string, c *quorum.Chat, simulated bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# quorum chat %s\n\n", c.ID())
	for _, r := range c.Rounds() {
		b.WriteString(RoundMarkdown(&r, simulated))
		b.WriteString("\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}
