package simquorum

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/sim"
)

// chunk is the streamed piece size, in runes: small enough that every
// reply streams in several chunks, as a live model's would.
const chunk = 24

// hash is a deterministic, well-mixed hash of its parts.
func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return mix(h.Sum64())
}

// mix spreads every input bit over the whole word (splitmix64's
// finaliser): FNV alone leaves similar inputs with similar low bits, and
// the replies pick their parts from those bits.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func pick(list []string, h uint64, salt uint64) string {
	return list[(h/(salt*7+1))%uint64(len(list))]
}

// perm is a permutation of 0..n-1 drawn from h.
func perm(n int, h uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		h = mix(h + 0x9e3779b97f4a7c15)
		j := int(h % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

func prefix(model string) string { return "[simulated " + model + "] " }

func reply(text string) sim.Response { return sim.Response{Text: text, ChunkSize: chunk} }

var (
	openers = []string{
		"Short version: it depends on %s, but there is a sensible default.",
		"Looking at %s, the deciding factor is what you can least afford to get wrong.",
		"My view on %s is pragmatic.",
		"There are two sides to %s, and the answer follows from which constraint binds first.",
		"On %s, the evidence points one way more often than not.",
	}
	sentences = []string{
		"The heart of %s is a trade-off between speed now and safety later.",
		"For %s, start with the simplest approach that could work, then measure it.",
		"Most trouble with %s comes from the edges: error handling, limits and recovery.",
		"Judge any plan for %s by the worst case, not the average one.",
		"Give %s a clear owner and a way to roll back.",
		"With %s, numbers beat intuition, so gather them first.",
		"People usually underestimate the long-term cost of maintaining %s.",
		"Keep the interfaces around %s narrow so each part can change on its own.",
		"A small experiment on %s will settle more than a long debate.",
		"Write down the assumptions behind %s; that is where answers usually diverge.",
	}
	closers = []string{
		"I would revisit this once real data comes in.",
		"Confidence: moderate; the details depend on your constraints.",
		"That is the gist; the rest is execution.",
		"I am fairly sure of the direction, less of the timing.",
	}
	strengths = []string{
		"clear and direct about %s", "names the key trade-off in %s", "practical advice on %s",
		"honest about the uncertainty around %s", "well structured treatment of %s", "concrete next steps for %s",
	}
	weaknesses = []string{
		"thin on evidence about %s", "skips the failure cases of %s", "could be more specific about %s",
		"does not quantify the costs of %s", "leaves the rollback path for %s vague", "assumes a lot about the context of %s",
	}
	steps = []string{
		"Write down the goal for %s and how success will be measured",
		"Survey the current state of %s and collect baseline numbers",
		"Prototype the smallest useful change to %s",
		"Review the prototype with the people who own %s",
		"Roll the change to %s out behind a switch, watching the metrics",
		"Document what was learned about %s and plan the next step",
	}
	risks = []string{
		"The baseline for %s may be wrong; re-measure before deciding",
		"Scope creep around %s; keep a written list of what is out",
		"The rollout of %s could fail midway; keep the rollback tested",
		"Key people may be unavailable; share ownership of %s early",
	}
)

// Answer writes a short answer to a quorum answer prompt (or any prompt).
func Answer(t sim.Turn) sim.Response {
	h := mix(t.Seed())
	subj := subject(t.Prompt)
	tp := topic(subj)
	ws := topics(subj, 2)
	if len(ws) == 0 {
		ws = []string{"the question"}
	}
	var b strings.Builder
	b.WriteString(prefix(t.Model))
	fmt.Fprintf(&b, pick(openers, h, 1), tp)
	n := 2 + int(h%2) // two or three distinct points
	for i, k := range perm(len(sentences), h>>8)[:n] {
		fmt.Fprintf(&b, " "+sentences[k], ws[i%len(ws)])
	}
	b.WriteString(" " + pick(closers, h, 9))
	return reply(b.String())
}

// verdict is the JSON shape quorum asks reviewers for.
type verdict struct {
	Reviews []assessment `json:"reviews"`
	Ranking []string     `json:"ranking"`
}

type assessment struct {
	Response   string   `json:"response"`
	Score      int      `json:"score"`
	Strengths  []string `json:"strengths"`
	Weaknesses []string `json:"weaknesses"`
}

// Review reviews the answers quoted in a review prompt, as JSON after the
// simulated label. Scores (5–9) depend on the reviewer and the answer's
// text; an answer that tries to instruct its reviewers gets 1.
func Review(t sim.Turn) sim.Response {
	tp := topics(subject(t.Prompt), 1)
	word := "the topic"
	if len(tp) > 0 {
		word = tp[0]
	}
	var v verdict
	for _, bl := range blocks(t.Prompt) {
		if bl.kind != "RESPONSE" {
			continue
		}
		h := hash(t.Model, bl.text)
		a := assessment{Response: bl.label, Score: 5 + int(h%5)}
		a.Strengths = []string{fmt.Sprintf(pick(strengths, h, 1), word)}
		a.Weaknesses = []string{fmt.Sprintf(pick(weaknesses, h, 2), word)}
		if instructs(bl.text) {
			a.Score = 1
			a.Strengths = []string{}
			a.Weaknesses = []string{"tries to instruct the reviewers instead of answering"}
		}
		v.Reviews = append(v.Reviews, a)
	}
	v.Ranking = make([]string, len(v.Reviews))
	order := slices.Clone(v.Reviews)
	slices.SortStableFunc(order, func(a, b assessment) int { return b.Score - a.Score })
	for i, a := range order {
		v.Ranking[i] = a.Response
	}
	if v.Reviews == nil {
		v.Reviews = []assessment{}
	}
	j, _ := json.Marshal(v)
	return reply(prefix(t.Model) + "Here is my review.\n" + string(j))
}

// Synthesis writes a Markdown synthesis of the answers quoted in a
// synthesis prompt, which come best-ranked first.
func Synthesis(t sim.Turn) sim.Response {
	subj := subject(t.Prompt)
	tp := topic(subj)
	var answers []block
	for _, bl := range blocks(t.Prompt) {
		if bl.kind == "RESPONSE" {
			answers = append(answers, bl)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sSynthesis of %d answers.\n\n## Conclusion\n", prefix(t.Model), len(answers))
	if len(answers) == 0 {
		fmt.Fprintf(&b, "There were no answers to draw on about %s (simulated).\n", tp)
	} else {
		fmt.Fprintf(&b, "On %s, the panel's best-supported view is Response %s's: %s (simulated conclusion)\n",
			tp, answers[0].label, firstSentence(answers[0].text))
	}
	b.WriteString("\n## Key points\n")
	for _, a := range answers {
		fmt.Fprintf(&b, "- Response %s: %s\n", a.label, firstSentence(a.text))
	}
	b.WriteString("\n## Consensus\n")
	fmt.Fprintf(&b, "- All %d answers treat %s as a question of trade-offs rather than a single right choice.\n", len(answers), tp)
	b.WriteString("\n## Disagreements\n")
	if len(answers) >= 2 {
		fmt.Fprintf(&b, "- Response %s and Response %s weigh the risks of %s differently; the reviews favoured Response %s.\n",
			answers[0].label, answers[len(answers)-1].label, tp, answers[0].label)
	} else {
		b.WriteString("- None.\n")
	}
	return reply(b.String())
}

// firstSentence returns the first sentence of a simulated answer, without
// its "[simulated …]" label.
func firstSentence(s string) string {
	if strings.HasPrefix(s, "[simulated ") {
		if i := strings.Index(s, "] "); i >= 0 {
			s = s[i+2:]
		}
	}
	if i := strings.IndexAny(s, ".!?\n"); i >= 0 {
		s = s[:i+1]
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}

// plan is the JSON shape quorum asks proposers for.
type plan struct {
	Title string   `json:"title"`
	Steps []string `json:"steps"`
	Risks []string `json:"risks"`
}

// Proposal proposes a plan for the task of a proposal prompt, as JSON
// after the simulated label.
func Proposal(t sim.Turn) sim.Response {
	h := mix(t.Seed())
	subj := subject(t.Prompt)
	tp := topic(subj)
	ws := topics(subj, 2)
	if len(ws) == 0 {
		ws = []string{"the task"}
	}
	// A seeded choice of 3–5 of the step templates, kept in their natural
	// order, and 2 of the risks.
	n := 3 + int(h%3)
	order := perm(len(steps), h)
	chosen := slices.Clone(order[:n])
	slices.Sort(chosen)
	p := plan{Title: fmt.Sprintf("Simulated plan for %s (%s)", tp, t.Model)}
	for i, k := range chosen {
		p.Steps = append(p.Steps, fmt.Sprintf(steps[k], ws[i%len(ws)]))
	}
	for i, k := range perm(len(risks), h>>20)[:2] {
		p.Risks = append(p.Risks, fmt.Sprintf(risks[k], ws[i%len(ws)]))
	}
	j, _ := json.Marshal(p)
	return reply(prefix(t.Model) + "My proposal:\n" + string(j))
}

// Vote scores the plan quoted in a vote prompt (5–9, depending on the
// voter and the plan; 1 for a plan that tries to instruct its voters), as
// JSON after the simulated label.
func Vote(t sim.Turn) sim.Response {
	var text, lbl string
	for _, bl := range blocks(t.Prompt) {
		if bl.kind == "PLAN" {
			text, lbl = bl.text, bl.label
			break
		}
	}
	h := hash(t.Model, text)
	v := struct {
		Score     int    `json:"score"`
		Reasoning string `json:"reasoning"`
	}{Score: 5 + int(h%5)}
	v.Reasoning = fmt.Sprintf("Plan %s is %s; %s.", lbl,
		pick([]string{"well ordered", "realistic", "ambitious", "cautious"}, h, 1),
		pick([]string{"the risks are named", "the first step could be smaller", "it needs clearer success criteria", "it would work as written"}, h, 2))
	if instructs(text) {
		v.Score, v.Reasoning = 1, fmt.Sprintf("Plan %s tries to instruct its voters instead of planning.", lbl)
	}
	j, _ := json.Marshal(v)
	return reply(prefix(t.Model) + string(j))
}
