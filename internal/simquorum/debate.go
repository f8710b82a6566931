package simquorum

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// This file makes simulated debaters and moderators. They write in one of
// three styles, fixed per model (see styleOf): the JSON asked for; JSON
// in a code fence after some prose, with a trailing comma and other
// scales' words for severities and statuses; or Markdown sections with no
// JSON at all, now and then with an item that cannot be read. So every
// debate exercises quorum's parsers and their fallbacks, and the result
// shows the problems they met.

// style is how a simulated model writes structured replies.
type style int

const (
	styleJSON     style = iota // the JSON asked for (quorum.ArgumentReply, quorum.Decision), after the label
	styleFenced                // prose, then loose JSON in a code fence
	styleMarkdown              // Markdown sections, no JSON
)

// styleOf is a model's style: seeded by its id, so that any id works and
// each keeps its style through a run. The demo's own models (Participants
// and Moderator) write JSON, bare or fenced, never Markdown: a reply read
// as Markdown is listed under "Parse problems" in the report, which makes
// a demo look broken. An id ending in MarkdownSuffix always writes
// Markdown, for the tests of that fallback.
func styleOf(model string) style {
	switch {
	case strings.HasSuffix(model, MarkdownSuffix):
		return styleMarkdown
	case model == Moderator || slices.Contains(Participants, model):
		return style(hash("styles", model) % 2)
	}
	return style(hash("styles", model) % 3)
}

// MarkdownSuffix ends the id of a simulated model that writes its debate
// turns, rulings, verdicts and review findings as Markdown with no JSON,
// so that quorum reads them through its Markdown fallback
// ("sim-beta-markdown").
const MarkdownSuffix = "-markdown"

var (
	seatRE   = regexp.MustCompile(`(?m)^You are (Proponent|Opponent) ([A-Z]+) `)
	idRE     = regexp.MustCompile(`\bO\d+\b`)
	ledgerRE = regexp.MustCompile(`^(O\d+) \[(\w+), (\w+)\] raised by Opponent ([A-Z]+) in [^:]+: (.*)$`)
)

// entry is an objection as a debater reads it in the ledger.
type entry struct {
	id, severity, status, by, text string
	// answers are the answers it has had, latest last.
	answers []string
}

// ledger reads the ledger quoted in a prompt.
func ledger(prompt string) []entry {
	var out []entry
	for _, b := range blocksOf(prompt, "LEDGER") {
		for _, line := range strings.Split(b.text, "\n") {
			if m := ledgerRE.FindStringSubmatch(line); m != nil {
				out = append(out, entry{id: m[1], severity: m[2], status: m[3], by: m[4], text: m[5]})
				continue
			}
			if a, ok := strings.CutPrefix(line, "  answer by "); ok && len(out) > 0 {
				_, text, _ := strings.Cut(a, ": ")
				out[len(out)-1].answers = append(out[len(out)-1].answers, text)
			}
		}
	}
	return out
}

// asked returns the objection ids on the prompt's line that starts with
// lead, outside quoted text, with what the line says of each.
func asked(prompt, lead string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(outside(prompt), "\n") {
		rest, ok := strings.CutPrefix(line, lead)
		if !ok {
			continue
		}
		for _, part := range strings.Split(rest, "), ") {
			if id := idRE.FindString(part); id != "" {
				out[id] = part
			}
		}
	}
	return out
}

// Debater argues a debate's opening or round, for the side and under the
// label its prompt gives it. Proponents make the case and answer the
// objections they are asked to; opponents raise objections (a blocking
// one and a major one in the opening, perhaps a minor one; one more in
// the first round) and rule on the answers to their own: a convincing
// answer settles an objection, most blocking ones in their first ruling.
// A debater that meets an argument or answer trying to instruct it raises
// that as a blocking objection, or keeps its objection standing.
func Debater(t sim.Turn) sim.Response {
	head := outside(t.Prompt)
	m := seatRE.FindStringSubmatch(head)
	if m == nil {
		return Answer(t)
	}
	side, label := m[1], m[2]
	ws := topics(subject(t.Prompt), 2)
	if len(ws) == 0 {
		ws = []string{"the claim"}
	}
	h := mix(t.Seed())
	opening := strings.HasPrefix(t.Prompt, quorum.PromptMarker(quorum.PhaseOpening))
	var a quorum.Argument
	others := blocksOf(t.Prompt, "ARGUMENT")
	if side == "Proponent" {
		a.Argument = fmt.Sprintf("As Proponent %s: %s", label, argue(h, ws, true))
		for _, b := range others {
			if instructs(b.text) {
				a.Argument += fmt.Sprintf(" Opponent %s's text tries to instruct us rather than argue; it is no objection.", b.label)
			}
		}
		todo := asked(t.Prompt, "Answer these objections, most severe first: ")
		for _, e := range ledger(t.Prompt) {
			if _, ok := todo[e.id]; ok {
				a.Answers = append(a.Answers, quorum.Rebuttal{Objection: e.id, Text: answerTo(t.Model, e, ws)})
			}
		}
	} else {
		a.Argument = fmt.Sprintf("As Opponent %s: %s", label, argue(h, ws, false))
		if opening {
			a.Objections = openingObjections(h, ws)
		} else {
			a.Rulings = rulings(t.Model, t.Prompt, label)
			for _, b := range others {
				if instructs(b.text) {
					a.Objections = append(a.Objections, quorum.RaisedObjection{Severity: quorum.SeverityBlocking,
						Text: fmt.Sprintf("Proponent %s's argument tries to instruct the debaters instead of arguing for the claim.", b.label)})
				}
			}
			if strings.HasPrefix(t.Prompt, quorum.PromptMarker(quorum.PhaseRound(1))) && h%3 != 0 && len(others) > 0 {
				a.Objections = append(a.Objections, quorum.RaisedObjection{Severity: pickSeverity(h>>12, quorum.SeverityMajor, quorum.SeverityMinor),
					Text: fmt.Sprintf(pick(lateObjections, h, 5), ws[len(ws)-1], "Proponent "+others[0].label)})
			}
		}
	}
	return reply(prefix(t.Model) + writeArgument(styleOf(t.Model), h, a))
}

var (
	cases = []string{
		"the claim about %s holds because the costs are known and bounded, while the benefits compound.",
		"on %s the evidence favours the claim: teams that tried it report fewer incidents, not more.",
		"the strongest reason for the claim is that %s gets simpler to reason about, and simple systems fail less.",
	}
	doubts = []string{
		"the claim about %s skips the hard part: what it costs to run, year after year.",
		"on %s the claim assumes conditions most teams do not have.",
		"the case for %s rests on anecdotes; the failure cases are left out.",
	}
	blockingObjections = []string{
		"Nobody has shown that %s survives the failure of a dependency; without a rollback path the claim cannot be accepted.",
		"The claim ignores the migration cost of %s, which could exceed the benefit.",
		"There is no evidence that %s works at our scale; the examples cited are an order of magnitude smaller.",
	}
	majorObjections = []string{
		"The operational burden of %s falls on a team that is already stretched.",
		"%s adds a dependency whose upgrades we do not control.",
		"The claim measures success on %s by the wrong metric.",
	}
	minorObjections = []string{
		"The timeline for %s is optimistic.",
		"The terminology around %s is used loosely.",
	}
	lateObjections = []string{
		"The argument on %s by %s leaves out who maintains it afterwards.",
		"%s: the figures %s cites are not comparable.",
	}
	answers = []string{
		"A staged rollout with a tested rollback bounds the risk of %s; we measured it on a pilot first.",
		"The cost of %s is real but one-off; the pilot paid it back within a quarter.",
		"At our scale the numbers for %s hold; the benchmark used production traffic.",
		"%s was addressed by keeping the old path running until the new one proved itself.",
	}
)

func argue(h uint64, ws []string, pro bool) string {
	list := doubts
	if pro {
		list = cases
	}
	return fmt.Sprintf(pick(list, h, 2), ws[0]) + " " + fmt.Sprintf(pick(sentences, h, 3), ws[len(ws)-1])
}

func pickSeverity(h uint64, sevs ...quorum.Severity) quorum.Severity {
	return sevs[h%uint64(len(sevs))]
}

// openingObjections are an opponent's objections in the opening: a
// blocking and a major one, and a minor one now and then.
func openingObjections(h uint64, ws []string) []quorum.RaisedObjection {
	out := []quorum.RaisedObjection{
		{Severity: quorum.SeverityBlocking, Text: fmt.Sprintf(pick(blockingObjections, h, 6), ws[0])},
		{Severity: quorum.SeverityMajor, Text: fmt.Sprintf(pick(majorObjections, h, 7), ws[len(ws)-1])},
	}
	if h%2 == 0 {
		out = append(out, quorum.RaisedObjection{Severity: quorum.SeverityMinor, Text: fmt.Sprintf(pick(minorObjections, h, 8), ws[0])})
	}
	return out
}

// answerTo answers an objection, each proponent in its own words; an
// objection that tries to instruct is named as such.
func answerTo(model string, e entry, ws []string) string {
	if instructs(e.text) {
		return e.id + " is not an objection but an instruction; there is nothing to answer."
	}
	return fmt.Sprintf(pick(answers, hash(model, e.id, e.text), 1), ws[0])
}

// rulings are an opponent's rulings on its newly answered objections: a
// blocking one is settled three times in four, a major one every other
// time, a minor one answered or withdrawn; an answer that tries to
// instruct settles nothing.
func rulings(model, prompt, label string) []quorum.Ruling {
	fresh := asked(prompt, "First rule on your own objections: ")
	var out []quorum.Ruling
	for _, e := range ledger(prompt) {
		part, ok := fresh[e.id]
		if !ok || e.by != label || !strings.Contains(part, "newly answered") || len(e.answers) == 0 {
			continue
		}
		last := e.answers[len(e.answers)-1]
		h := hash(model, e.id, last)
		ru := quorum.Ruling{Objection: e.id, Status: quorum.StatusStanding, Reason: "the answer does not meet the objection"}
		switch {
		case instructs(last):
			ru.Reason = "the answer tries to instruct instead of answering"
		case e.severity == string(quorum.SeverityBlocking) && h%4 != 0,
			e.severity == string(quorum.SeverityMajor) && h%2 == 0:
			ru.Status, ru.Reason = quorum.StatusAnswered, "the answer settles it"
		case e.severity == string(quorum.SeverityMinor) && h%3 == 0:
			ru.Status, ru.Reason = quorum.StatusWithdrawn, "on reflection it does not matter"
		case e.severity == string(quorum.SeverityMinor):
			ru.Status, ru.Reason = quorum.StatusAnswered, "fair enough"
		}
		out = append(out, ru)
	}
	return out
}

// writeArgument writes a debater's reply in a style.
func writeArgument(st style, h uint64, a quorum.Argument) string {
	switch st {
	case styleFenced:
		return fencedArgument(a)
	case styleMarkdown:
		return markdownArgument(h, a)
	}
	v := quorum.ArgumentReply{Argument: a.Argument}
	for _, x := range a.Answers {
		v.Answers = append(v.Answers, quorum.ReplyAnswer{Objection: x.Objection, Answer: x.Text})
	}
	// Appended, not assigned, so that no list means a nil one, which the
	// reply leaves out.
	v.Rulings = append(v.Rulings, a.Rulings...)
	for _, x := range a.Objections {
		v.Objections = append(v.Objections, quorum.ReplyObjection{Severity: x.Severity, Text: x.Text})
	}
	b, _ := json.Marshal(v)
	return "\n" + string(b)
}

// otherWords are other scales' words, which quorum must read as ours.
var otherWords = map[string]string{
	"blocking": "critical", "major": "medium", "minor": "low",
	"answered": "resolved", "withdrawn": "retracted", "standing": "still stands",
}

// fencedArgument is loose JSON in a code fence, after prose: a trailing
// comma, and other scales' words.
func fencedArgument(a quorum.Argument) string {
	var b strings.Builder
	b.WriteString("Here is my turn.\n```json\n{\n  \"argument\": " + jsonString(a.Argument) + ",\n")
	if len(a.Answers) > 0 {
		b.WriteString("  \"answers\": {\n")
		for _, x := range a.Answers {
			fmt.Fprintf(&b, "    %s: %s,\n", jsonString(x.Objection), jsonString(x.Text))
		}
		b.WriteString("  },\n")
	}
	if len(a.Rulings) > 0 {
		b.WriteString("  \"rulings\": [\n")
		for _, x := range a.Rulings {
			fmt.Fprintf(&b, "    {\"id\": %s, \"ruling\": %s, \"why\": %s},\n", jsonString(x.Objection), jsonString(otherWords[string(x.Status)]), jsonString(x.Reason))
		}
		b.WriteString("  ],\n")
	}
	if len(a.Objections) > 0 {
		b.WriteString("  \"objections\": [\n")
		for _, x := range a.Objections {
			fmt.Fprintf(&b, "    {\"level\": %s, \"objection\": %s},\n", jsonString(otherWords[string(x.Severity)]), jsonString(x.Text))
		}
		b.WriteString("  ],\n")
	}
	b.WriteString("}\n```\nThat is all for this round.")
	return b.String()
}

// markdownArgument is Markdown sections; one time in three, an objection
// loses its severity on the way, as a careless model's would.
func markdownArgument(h uint64, a quorum.Argument) string {
	var b strings.Builder
	b.WriteString("\n## Argument\n" + a.Argument + "\n")
	if len(a.Answers) > 0 {
		b.WriteString("\n## Answers\n")
		for i, x := range a.Answers {
			id := x.Objection
			if i%2 == 1 {
				id = "Objection " + strings.TrimPrefix(id, "O")
			}
			fmt.Fprintf(&b, "- **%s**: %s\n", id, x.Text)
		}
	}
	if len(a.Rulings) > 0 {
		b.WriteString("\n## Rulings\n")
		for _, x := range a.Rulings {
			fmt.Fprintf(&b, "- %s: %s — %s\n", x.Objection, x.Status, x.Reason)
		}
	}
	if len(a.Objections) > 0 {
		b.WriteString("\n## Objections\n")
		for _, x := range a.Objections {
			fmt.Fprintf(&b, "- [%s] %s\n", x.Severity, x.Text)
		}
		if h%3 == 0 {
			b.WriteString("- And the wording of the claim is vague.\n")
		}
	}
	return b.String()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Verdict gives a debate's verdict: it rules on the objections that await
// a ruling (a blocking one answered two times in three), then takes the
// position the ledger supports: against while a blocking objection
// stands, undecided with two major ones standing, for otherwise.
func Verdict(t sim.Turn) sim.Response {
	ws := topics(subject(t.Prompt), 2)
	if len(ws) == 0 {
		ws = []string{"the claim"}
	}
	waiting := map[string]bool{}
	for _, line := range strings.Split(outside(t.Prompt), "\n") {
		if rest, ok := strings.CutPrefix(line, "These objections were answered in the last round and await a ruling: "); ok {
			rest, _, _ = strings.Cut(rest, ".")
			for _, id := range idRE.FindAllString(rest, -1) {
				waiting[id] = true
			}
		}
	}
	var d quorum.Decision
	standing := map[string]int{}
	for _, e := range ledger(t.Prompt) {
		status := e.status
		if waiting[e.id] && len(e.answers) > 0 {
			h := hash(t.Model, e.id, e.answers[len(e.answers)-1])
			ru := quorum.Ruling{Objection: e.id, Status: quorum.StatusStanding, Reason: "the answer came late and leaves the objection open"}
			if !instructs(e.answers[len(e.answers)-1]) && (e.severity != string(quorum.SeverityBlocking) || h%3 != 0) {
				ru.Status, ru.Reason = quorum.StatusAnswered, "the last answer settles it"
			}
			d.Rulings = append(d.Rulings, ru)
			status = string(ru.Status)
		}
		if status == string(quorum.StatusStanding) {
			standing[e.severity]++
		}
	}
	switch {
	case standing[string(quorum.SeverityBlocking)] > 0:
		d.Position = quorum.PositionAgainst
		d.Summary = fmt.Sprintf("A blocking objection on %s still stands, so the claim cannot be accepted as it is (simulated verdict).", ws[0])
	case standing[string(quorum.SeverityMajor)] >= 2:
		d.Position = quorum.PositionUndecided
		d.Summary = fmt.Sprintf("No blocking objection stands, but two major ones on %s do; the debate does not settle it (simulated verdict).", ws[0])
	default:
		d.Position = quorum.PositionFor
		d.Summary = fmt.Sprintf("The proponents answered every blocking objection on %s; what stands is minor or major at most (simulated verdict).", ws[0])
	}
	d.WouldChange = []string{
		fmt.Sprintf("Evidence that %s fails at our scale.", ws[0]),
		fmt.Sprintf("A cheaper alternative to %s with the same benefits.", ws[len(ws)-1]),
	}
	return reply(prefix(t.Model) + writeDecision(styleOf(t.Model), d))
}

func writeDecision(st style, d quorum.Decision) string {
	if st == styleMarkdown {
		var b strings.Builder
		fmt.Fprintf(&b, "\n**Position:** %s\n\n## Summary\n%s\n", d.Position, d.Summary)
		if len(d.Rulings) > 0 {
			b.WriteString("\n## Rulings\n")
			for _, r := range d.Rulings {
				fmt.Fprintf(&b, "- %s: %s — %s\n", r.Objection, r.Status, r.Reason)
			}
		}
		b.WriteString("\n## What would change the verdict\n")
		for _, w := range d.WouldChange {
			b.WriteString("- " + w + "\n")
		}
		return b.String()
	}
	j, _ := json.Marshal(d)
	if st == styleFenced {
		return "My verdict follows.\n```json\n" + string(j) + "\n```"
	}
	return "\n" + string(j)
}
