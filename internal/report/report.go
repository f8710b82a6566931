// Package report writes the results of `quorum discuss`, `plan`, `debate`
// and `review` for people, in production: plain text (off a terminal),
// Markdown (-o markdown, and on a terminal rendered by glamour), every
// stage shown — each answer, plan, debate turn or code review under its
// model's name, each review, vote, ruling or finding, the ranking, ledger
// or merged findings with the letters mapped to models wherever letters
// are used, the synthesis, winning plan or verdict — then usage per model
// and what went wrong. A run that failed or was interrupted is reported the same way,
// marked incomplete, with whatever it had collected.
//
// Everything a model or the CLI wrote is cleaned for the terminal (package
// sanitize) on its way into the report.
package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quorum-go/quorum/quorum"
)

// Options shape a report.
type Options struct {
	// Sections are the parts to show, among the report's Sections, in any
	// order (the report keeps its own); nil shows every part.
	Sections []string
	// Simulated labels the report as the simulator's.
	Simulated bool
	// Incomplete, when set, is why the run did not finish (it failed or
	// was interrupted): the report says so at its top and its end, and
	// shows what had been collected.
	Incomplete string
	// Interrupted, when set, is how the person stopped the run
	// ("interrupted by Ctrl-C"): a model it cut short is said to have been
	// stopped then, not to have dropped out.
	Interrupted string
	// Subject, when set, is the question, task or claim as the user gave
	// it, shown in place of the result's, which holds the context given
	// with it; Context lists that context: what was read (its source and
	// size) and what was left out and why.
	Subject string
	Context []string
	// Width, when set, is the width the plain-text report is wrapped at
	// (prose only: tables and models' code stay whole); Markdown is not
	// wrapped.
	Width int
}

// subject is what the report names as the run's question: o.Subject, or
// the result's own text.
func (o Options) subject(own string) string {
	if o.Subject != "" {
		return excerpt(o.Subject)
	}
	return excerpt(own)
}

// withContext adds the context given with the question to a report's
// fields.
func (o Options) withContext(kv [][2]string) [][2]string {
	if len(o.Context) == 0 {
		return kv
	}
	return append(kv, [2]string{"Context", strings.Join(o.Context, "; ")})
}

func (o Options) show(section string) bool {
	return o.Sections == nil || slices.Contains(o.Sections, section)
}

// Report is a strategy's result, ready to write.
type Report interface {
	// Sections are the parts of the report, in the order it shows them.
	Sections() []string
	write(d doc, o Options)
}

// Text writes r as plain text.
func Text(w io.Writer, r Report, o Options) {
	r.write(&textDoc{blocks: blocks{w: w}, width: o.Width}, o)
}

// Markdown writes r as GitHub-flavoured Markdown.
func Markdown(w io.Writer, r Report, o Options) { r.write(&mdDoc{blocks{w: w}}, o) }

// The label of simulated results, first thing in the report.
const simulatedLabel = "SIMULATED RUN (--sim): every answer below comes from quorum's built-in simulator, not from a real model."

// header writes the labels that come before everything: simulated,
// incomplete.
func header(d doc, o Options) {
	if o.Simulated {
		d.banner(simulatedLabel)
	}
	if o.Incomplete != "" {
		d.banner("INCOMPLETE: " + o.Incomplete + " What follows is what had been collected.")
	}
}

// Subjects (questions, tasks) longer than this are cut in the report;
// the JSON output keeps them whole.
const (
	subjectRunes = 400
	subjectLines = 6
)

// excerpt is s cut to subjectRunes characters and subjectLines lines,
// saying how much was left out.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	cut := s
	if lines := strings.SplitN(cut, "\n", subjectLines+1); len(lines) > subjectLines {
		cut = strings.Join(lines[:subjectLines], "\n")
	}
	if utf8.RuneCountInString(cut) > subjectRunes {
		cut = string([]rune(cut)[:subjectRunes])
	}
	if cut == s {
		return s
	}
	left := utf8.RuneCountInString(s) - utf8.RuneCountInString(cut)
	return fmt.Sprintf("%s… (%s more characters, left out here; -o json has the whole text)", strings.TrimRight(cut, " \n"), thousands(left))
}

// thousands formats n with thousands separators: 99,700.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// usage writes the usage section: per model, then the total, and what
// the figures are.
func usage(d doc, o Options, out *quorum.Outcome) {
	if !o.show("usage") {
		return
	}
	d.heading(1, "Usage")
	var models []string
	turns := map[string]int{}
	for _, c := range out.Calls {
		if turns[c.Model] == 0 {
			models = append(models, c.Model)
		}
		turns[c.Model]++
	}
	if len(models) == 0 {
		d.para("No model was called.")
		return
	}
	cost := func(u quorum.Usage) string {
		if out.Usage.Cost == 0 {
			return "-"
		}
		return num(u.Cost)
	}
	var rows [][]string
	for _, m := range models {
		u := out.UsageByModel[m]
		rows = append(rows, []string{m, strconv.Itoa(turns[m]), strconv.Itoa(u.InputTokens), strconv.Itoa(u.OutputTokens), estimated(out.Premium, m), cost(u)})
	}
	u := out.Usage
	total := "-"
	if out.Premium != nil {
		total = SpanText(out.Premium.Estimate.Premium)
	}
	rows = append(rows, []string{"total", strconv.Itoa(len(out.Calls)), strconv.Itoa(u.InputTokens), strconv.Itoa(u.OutputTokens), total, cost(u)})
	d.table([]string{"Model", "Turns", "Input tokens", "Output tokens", "Premium estimated", "Premium requests"}, []bool{false, true, true, true, true, true}, rows)
	note := "Premium requests are GitHub Copilot's billing unit, as the CLI reports them: each model request counts its model's multiplier (quorum models lists them)."
	if out.Usage.Cost == 0 {
		note = "The CLI reported no premium requests (GitHub Copilot's billing unit) for these turns."
	}
	d.note(note + " A turn is one prompt and its reply, in a session of its own.")
	premiumByPhase(d, out)
}

// problems writes what went wrong: the failures of a degraded run, or why
// an incomplete one stopped and every failure before it.
func problems(d doc, o Options, out *quorum.Outcome) {
	lines := FailureLines(out.Failures)
	switch {
	case o.Incomplete != "":
		d.heading(1, "Incomplete")
		d.para(strings.ToUpper(o.Incomplete[:1]) + o.Incomplete[1:])
	case out.Degraded:
		d.heading(1, "Degraded")
		what := "the moderator was replaced"
		if n := len(out.Failures); n > 0 {
			what = plural(n, "failure")
		}
		d.para(what + "; the result comes from the models that remained.")
	default:
		return
	}
	if len(lines) > 0 {
		d.list(items(lines))
	}
}

// participants lists the models, each that dropped out with where. A
// model that was only cut short, when the run was stopped (Ctrl-C, a
// chat's Esc), did not drop out: it was stopped, and the line says so.
func participants(o Options, models []string, out *quorum.Outcome) string {
	list := make([]string, len(models))
	for i, m := range models {
		list[i] = m
		for _, ph := range out.Phases {
			if !slices.Contains(ph.Dropped, m) {
				continue
			}
			switch {
			case !onlyStopped(out.Failures, m, ph.Phase):
				list[i] += fmt.Sprintf(" (dropped out in the %s phase)", ph.Phase)
			case o.Interrupted != "":
				list[i] += fmt.Sprintf(" (stopped in the %s phase: the run was %s)", ph.Phase, o.Interrupted)
			default:
				list[i] += fmt.Sprintf(" (stopped in the %s phase: the run was cancelled)", ph.Phase)
			}
			break
		}
	}
	return strings.Join(list, ", ")
}

// onlyStopped says whether model's failures in phase are all the run's
// cancellation: it was stopped, not failing.
func onlyStopped(fs []quorum.Failure, model string, phase quorum.Phase) bool {
	stopped := false
	for _, f := range fs {
		if f.Model != model || f.Phase != phase {
			continue
		}
		if f.Kind != "canceled" {
			return false
		}
		stopped = true
	}
	return stopped
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

// plural is "1 failure", "2 failures".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// legend maps labels to models: "A = sim-beta, B = sim-alpha".
func legend(labels, models []string) string {
	parts := make([]string, len(labels))
	for i := range labels {
		parts[i] = labels[i] + " = " + models[i]
	}
	return strings.Join(parts, ", ")
}

// labelCmp orders labels as quorum deals them: A … Z, then AA ….
func labelCmp(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// sortByLabel sorts xs by their labels.
func sortByLabel[T any](xs []T, label func(T) string) {
	slices.SortStableFunc(xs, func(a, b T) int { return labelCmp(label(a), label(b)) })
}

// sortPairs sorts labels, and models with them.
func sortPairs(labels, models []string) {
	idx := make([]int, len(labels))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return labelCmp(labels[a], labels[b]) })
	l, m := slices.Clone(labels), slices.Clone(models)
	for i, j := range idx {
		labels[i], models[i] = l[j], m[j]
	}
}

// moderatorLine names who wrote a synthesis or verdict, and in whose
// place and why if it was a substitute.
func moderatorLine(m quorum.Moderation) string {
	if !m.Substituted {
		return m.Moderator
	}
	return fmt.Sprintf("%s, in place of %s (%s)", m.Moderator, m.RequestedModerator, strings.TrimPrefix(m.SubstitutionReason, "quorum: "))
}
