package sim

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// persona shapes one demo model's replies.
type persona struct {
	id, name string
	openers  []string
	points   int // how many points the reply makes
	closers  []string
	// multiplier is the model's premium requests per request; 0 means
	// the default, 1.
	multiplier float64
}

// Demo models. Their replies are clearly labelled as simulated, vary with the
// prompt and are deterministic (seeded from a hash of model and prompt).
var personas = []persona{
	{
		id: "sim-fast", name: "Simulated fast model",
		multiplier: 0.25, // cheap, as fast models are
		openers:    []string{"Short answer:", "In brief:", "Quick take:"},
		points:     1,
		closers:    []string{"That is the gist.", "Details depend on your constraints."},
	},
	{
		id: "sim-thorough", name: "Simulated thorough model",
		openers: []string{"Let me work through this.", "Here is a structured answer.", "Taking this step by step."},
		points:  3,
		closers: []string{"Overall, the trade-offs favour the simplest option that meets the requirements.", "I would validate this with a small experiment before committing."},
	},
	{
		id: "sim-skeptic", name: "Simulated skeptical model",
		openers: []string{"I am not convinced the question is framed right.", "Before answering, a caveat.", "A contrarian view:"},
		points:  2,
		closers: []string{"So the conventional answer may hold, but check the assumptions.", "I would push back on the premise before going further."},
	},
}

var demoPoints = []string{
	"the key constraint is the one you can least change later",
	"measure before optimising; intuition about bottlenecks is often wrong",
	"prefer the design with fewer moving parts",
	"consider what fails first under load and how it recovers",
	"the edge cases usually live at the boundaries between components",
	"a clear contract between layers matters more than any single algorithm",
	"simplicity now buys flexibility later",
	"the cost of being wrong here is asymmetric, so be conservative",
	"write the test that would have caught the last incident",
	"look at how the data flows rather than how the code is organised",
}

// DefaultModels returns the demo models: sim-fast, sim-thorough and
// sim-skeptic. They answer with no delays (see Paced for a live feel). Every
// reply starts with "[simulated <id>]".
func DefaultModels() []Model {
	out := make([]Model, len(personas))
	for i, p := range personas {
		out[i] = Model{ID: p.id, Name: p.name, Respond: p.respond}
		if p.multiplier != 0 {
			out[i] = out[i].WithMultiplier(p.multiplier)
		}
	}
	return out
}

func (p persona) respond(t Turn) Response {
	rng := t.Rand()
	var b strings.Builder
	fmt.Fprintf(&b, "[simulated %s] %s", p.id, p.openers[rng.IntN(len(p.openers))])
	if topic := summarise(t.Prompt, 60); topic != "" {
		fmt.Fprintf(&b, " On %q:", topic)
	}
	perm := rng.Perm(len(demoPoints))
	for i := range p.points {
		if p.points == 1 {
			fmt.Fprintf(&b, " %s.", capitalise(demoPoints[perm[i]]))
			continue
		}
		fmt.Fprintf(&b, "\n%d. %s.", i+1, capitalise(demoPoints[perm[i]]))
	}
	for _, r := range t.ToolResults {
		if r.OK() {
			fmt.Fprintf(&b, "\nThe %s tool said: %s", r.Name, summarise(r.Text, 80))
		} else {
			fmt.Fprintf(&b, "\nThe %s tool failed: %s", r.Name, summarise(r.Error, 80))
		}
	}
	fmt.Fprintf(&b, "\n%s", p.closers[rng.IntN(len(p.closers))])
	return Text(b.String())
}

// summarise returns the first line of s, cut to at most n runes.
func summarise(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[size:]
}
