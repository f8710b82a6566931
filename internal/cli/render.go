package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/quorum-go/quorum/quorum"
)

// jsonResult is what `quorum discuss -o json` and `quorum plan -o json`
// print on stdout, one JSON object:
//
//	{"simulated": false, "command": "discuss", "result": {…}}
//
// simulated is true for --sim runs, whose answers come from quorum's
// built-in simulator. command is "discuss" or "plan". result is the quorum
// package's result schema (quorum/result.go), unchanged: a
// quorum.Discussion for discuss (question, models, answers, reviews,
// ranking, ranked, synthesis) or a quorum.PlanResult for plan (task,
// models, proposals, votes, standings, winner, reason), both with the run's
// outcome (degraded, failures, phases, calls, usage, usageByModel,
// startedAt, elapsedMs, error). Lists are [] when empty, never null. A run
// that failed (exit status 1) still prints its partial result, with
// result.error set.
type jsonResult struct {
	Simulated bool   `json:"simulated"`
	Command   string `json:"command"`
	Result    any    `json:"result"`
}

func (inv *invocation) printJSON(rep report) error {
	enc := json.NewEncoder(inv.e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // answers quote <<<delimiters>>>; keep them readable
	return enc.Encode(jsonResult{Simulated: inv.simulated(), Command: inv.name, Result: rep.result()})
}

// The label of simulated results, first thing on stdout.
const (
	simulatedText     = "SIMULATED RUN (--sim): every answer below comes from quorum's built-in simulator, not from a real model."
	simulatedMarkdown = "> **Simulated run** (`--sim`): every answer below comes from quorum's built-in simulator, not from a real model."
)

type discussReport struct{ d *quorum.Discussion }

func (r discussReport) outcome() *quorum.Outcome { return &r.d.Outcome }
func (r discussReport) result() any              { return r.d }

func (r discussReport) text(w io.Writer) {
	d := r.d
	fmt.Fprintf(w, "Question: %s\n", d.Question)
	if s := d.Synthesis; s != nil {
		fmt.Fprintf(w, "\nConclusion\n%s\n", indent(s.Conclusion, "  "))
		textList(w, "Key points", s.KeyPoints)
		textList(w, "Consensus", s.Consensus)
		textList(w, "Disagreements", s.Disagreements)
	}
	fmt.Fprintln(w)
	if d.Ranked {
		fmt.Fprintln(w, "Ranking (peer review: mean score and Borda count, self-votes excluded)")
	} else {
		fmt.Fprintln(w, "Ranking: not ranked (no usable review); answers in configured order")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  RANK\tANSWER\tMODEL\tMEAN SCORE\tSCORES\tBORDA\tFAILED")
	for _, st := range d.Ranking {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%d\t%s\t%d\n", st.Rank, st.Label, st.Model, mean(st), st.Scores, num(st.Borda), st.Failed)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Participants: %s\n", participants(d.Models, d.Phases))
	if s := d.Synthesis; s != nil {
		fmt.Fprintf(w, "Moderator:    %s\n", moderatorLine(s))
	}
	fmt.Fprintf(w, "Usage:        %s\n", usageLine(d.Usage))
	textDegraded(w, &d.Outcome)
}

func (r discussReport) markdown(w io.Writer) {
	d := r.d
	fmt.Fprintf(w, "# Discussion\n\n**Question:** %s\n", oneParagraph(d.Question))
	if s := d.Synthesis; s != nil {
		fmt.Fprintf(w, "\n## Conclusion\n\n%s\n", strings.TrimSpace(s.Conclusion))
		mdList(w, "Key points", s.KeyPoints)
		mdList(w, "Consensus", s.Consensus)
		mdList(w, "Disagreements", s.Disagreements)
	}
	fmt.Fprintln(w, "\n## Ranking")
	fmt.Fprintln(w)
	if !d.Ranked {
		fmt.Fprintln(w, "Not ranked (no usable review); answers in configured order.")
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| Rank | Answer | Model | Mean score | Scores | Borda | Failed |")
	fmt.Fprintln(w, "|---:|:---|:---|---:|---:|---:|---:|")
	for _, st := range d.Ranking {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %d | %s | %d |\n", st.Rank, st.Label, mdCell(st.Model), mean(st), st.Scores, num(st.Borda), st.Failed)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "**Participants:** %s  \n", participants(d.Models, d.Phases))
	if s := d.Synthesis; s != nil {
		fmt.Fprintf(w, "**Moderator:** %s  \n", moderatorLine(s))
	}
	fmt.Fprintf(w, "**Usage:** %s\n", usageLine(d.Usage))
	mdDegraded(w, &d.Outcome)
}

type planReport struct{ p *quorum.PlanResult }

func (r planReport) outcome() *quorum.Outcome { return &r.p.Outcome }
func (r planReport) result() any              { return r.p }

// proposal returns the plan labelled label.
func (r planReport) proposal(label string) (quorum.Proposal, bool) {
	for _, p := range r.p.Proposals {
		if p.Label == label {
			return p, true
		}
	}
	return quorum.Proposal{}, false
}

func (r planReport) text(w io.Writer) {
	p := r.p
	fmt.Fprintf(w, "Task: %s\n", p.Task)
	if win, ok := r.proposal(p.Winner); ok {
		fmt.Fprintf(w, "\nWinning plan: Plan %s, by %s\n  %s\n", win.Label, win.Model, win.Title)
		for i, s := range win.Steps {
			fmt.Fprintf(w, "%s\n", indentHanging(fmt.Sprintf("%d. %s", i+1, s), "  "))
		}
		if len(win.Risks) > 0 {
			fmt.Fprintln(w, "  Risks:")
			for _, s := range win.Risks {
				fmt.Fprintf(w, "%s\n", indentHanging("- "+s, "  "))
			}
		}
		fmt.Fprintf(w, "Why it won: %s\n", p.Reason)
	}
	fmt.Fprintln(w, "\nStandings (mean score of the other models' votes)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  RANK\tPLAN\tMODEL\tMEAN SCORE\tVOTES\tBORDA\tFAILED")
	for _, st := range p.Standings {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%d\t%s\t%d\n", st.Rank, st.Label, st.Model, mean(st), st.Scores, num(st.Borda), st.Failed)
	}
	tw.Flush()
	if len(p.Standings) > 1 {
		fmt.Fprintln(w, "\nRunners-up")
		for _, st := range p.Standings[1:] {
			pr, _ := r.proposal(st.Label)
			fmt.Fprintf(w, "  %d. Plan %s, by %s: %s\n", st.Rank, st.Label, st.Model, pr.Title)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Participants: %s\n", participants(p.Models, p.Phases))
	fmt.Fprintf(w, "Usage:        %s\n", usageLine(p.Usage))
	textDegraded(w, &p.Outcome)
}

func (r planReport) markdown(w io.Writer) {
	p := r.p
	fmt.Fprintf(w, "# Plan\n\n**Task:** %s\n", oneParagraph(p.Task))
	if win, ok := r.proposal(p.Winner); ok {
		fmt.Fprintf(w, "\n## Winning plan: %s\n\nPlan %s, by %s.\n\n", oneParagraph(win.Title), win.Label, mdCell(win.Model))
		for i, s := range win.Steps {
			fmt.Fprintf(w, "%d. %s\n", i+1, oneParagraph(s))
		}
		if len(win.Risks) > 0 {
			fmt.Fprintln(w, "\n### Risks")
			fmt.Fprintln(w)
			for _, s := range win.Risks {
				fmt.Fprintf(w, "- %s\n", oneParagraph(s))
			}
		}
		fmt.Fprintf(w, "\n**Why it won:** %s\n", p.Reason)
	}
	fmt.Fprintln(w, "\n## Standings")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Rank | Plan | Model | Title | Mean score | Votes | Borda | Failed |")
	fmt.Fprintln(w, "|---:|:---|:---|:---|---:|---:|---:|---:|")
	for _, st := range p.Standings {
		pr, _ := r.proposal(st.Label)
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %d | %s | %d |\n", st.Rank, st.Label, mdCell(st.Model), mdCell(pr.Title), mean(st), st.Scores, num(st.Borda), st.Failed)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "**Participants:** %s  \n", participants(p.Models, p.Phases))
	fmt.Fprintf(w, "**Usage:** %s\n", usageLine(p.Usage))
	mdDegraded(w, &p.Outcome)
}

// participants lists the models, each that dropped out with where.
func participants(models []string, phases []quorum.PhaseReport) string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m
		for _, ph := range phases {
			if slices.Contains(ph.Dropped, m) {
				out[i] += fmt.Sprintf(" (dropped out in the %s phase)", ph.Phase)
				break
			}
		}
	}
	return strings.Join(out, ", ")
}

func moderatorLine(s *quorum.Synthesis) string {
	if !s.Substituted {
		return s.Moderator
	}
	return fmt.Sprintf("%s, in place of %s (%s)", s.Moderator, s.RequestedModerator, strings.TrimPrefix(s.SubstitutionReason, "quorum: "))
}

func usageLine(u quorum.Usage) string {
	s := fmt.Sprintf("%d model calls, %d input and %d output tokens", u.Calls, u.InputTokens, u.OutputTokens)
	if u.Cost > 0 {
		s += ", CLI-reported cost " + num(u.Cost)
	}
	return s
}

func textDegraded(w io.Writer, o *quorum.Outcome) {
	if !o.Degraded {
		return
	}
	fmt.Fprintf(w, "\nDegraded: %s; the result comes from the models that remained.\n", failures(len(o.Failures)))
	for _, f := range o.Failures {
		fmt.Fprintf(w, "  ✗ %s\n", failureLine(f))
	}
}

func mdDegraded(w io.Writer, o *quorum.Outcome) {
	if !o.Degraded {
		return
	}
	fmt.Fprintf(w, "\n## Degraded\n\n%s; the result comes from the models that remained.\n\n", failures(len(o.Failures)))
	for _, f := range o.Failures {
		fmt.Fprintf(w, "- %s\n", oneParagraph(failureLine(f)))
	}
}

func failures(n int) string {
	if n == 1 {
		return "1 failure"
	}
	if n == 0 {
		return "the moderator was replaced"
	}
	return strconv.Itoa(n) + " failures"
}

func textList(w io.Writer, title string, items []string) {
	fmt.Fprintf(w, "\n%s\n", title)
	if len(items) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, it := range items {
		fmt.Fprintln(w, indentHanging("- "+it, "  "))
	}
}

func mdList(w io.Writer, title string, items []string) {
	fmt.Fprintf(w, "\n## %s\n\n", title)
	if len(items) == 0 {
		fmt.Fprintln(w, "None.")
	}
	for _, it := range items {
		fmt.Fprintf(w, "- %s\n", oneParagraph(it))
	}
}

// mean is a standing's mean score, or "-" when nobody scored it.
func mean(st quorum.Standing) string {
	if st.Scores == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", st.MeanScore)
}

// num formats a number without trailing zeros: 2, 1.5.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		} else {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// indentHanging indents the first line of s by prefix and the others
// further, under the text after a list marker.
func indentHanging(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	marker := strings.IndexByte(lines[0], ' ') + 1
	for i := range lines {
		if i == 0 {
			lines[i] = prefix + lines[i]
		} else {
			lines[i] = prefix + strings.Repeat(" ", marker) + strings.TrimSpace(lines[i])
		}
	}
	return strings.Join(lines, "\n")
}

// oneParagraph joins the lines of s, for a Markdown list item or cell.
func oneParagraph(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdCell makes s safe in a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(oneParagraph(s), "|", `\|`) }
