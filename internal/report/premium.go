package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// This file is the usage section's account of premium requests: the
// estimate made before the run beside what each model and phase used, and
// what the cap and early stop changed.

// estimated is a model's estimated premium requests over every phase.
func estimated(p *quorum.Premium, model string) string {
	if p == nil {
		return "-"
	}
	var s quorum.Span
	for _, ph := range p.Estimate.Phases {
		for _, m := range ph.Models {
			if m.Model == model {
				s.Min, s.Max, s.Open = s.Min+m.Premium.Min, s.Max+m.Premium.Max, s.Open || m.Premium.Open
			}
		}
	}
	return SpanText(s)
}

// SpanText writes an estimated range, to two decimals, as a table shows
// it: "7", "6–7", "4+" (open-ended).
func SpanText(s quorum.Span) string {
	r := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	lo, hi := round2(s.Min), round2(s.Max)
	switch {
	case s.Open:
		return r(lo) + "+"
	case lo == hi:
		return r(hi)
	}
	return r(lo) + "–" + r(hi)
}

func round2(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	return v
}

// charged is what a turn cost: the CLI's figure when it reports them
// (reported), else the multiplier of a turn that got its reply.
func charged(p *quorum.Premium, c quorum.Call, reported bool) float64 {
	if reported || p == nil {
		return c.Usage.Cost
	}
	if c.Outcome != "ok" {
		return 0
	}
	for _, ph := range p.Estimate.Phases {
		for _, m := range ph.Models {
			if m.Model == c.Model && m.Turns.Max > 0 {
				return m.Premium.Max / m.Turns.Max
			}
		}
	}
	return 1
}

// premiumByPhase writes the estimate beside the turns and premium
// requests each phase used, then what the cap and early stop did.
func premiumByPhase(d doc, out *quorum.Outcome) {
	p := out.Premium
	if p == nil || len(p.Estimate.Phases) == 0 {
		return
	}
	type used struct {
		turns int
		cost  float64
	}
	byPhase := map[quorum.Phase]*used{}
	for _, c := range out.Calls {
		ph := c.Phase
		if isRound(ph) {
			ph = "rounds" // the estimate counts a debate's rounds together
		}
		u := byPhase[ph]
		if u == nil {
			u = &used{}
			byPhase[ph] = u
		}
		if c.Outcome != "cap" {
			u.turns++
		}
		u.cost += charged(p, c, out.Usage.Cost > 0)
	}
	var rows [][]string
	for _, e := range p.Estimate.Phases {
		u := byPhase[e.Phase]
		if u == nil {
			u = &used{}
		}
		rows = append(rows, []string{string(e.Phase), SpanText(e.Turns), strconv.Itoa(u.turns), SpanText(e.Premium), num(round2(u.cost))})
	}
	d.table([]string{"Phase", "Turns estimated", "Turns", "Premium estimated", "Premium requests"}, []bool{false, true, true, true, true}, rows)
	var notes []string
	if p.Cap > 0 {
		notes = append(notes, fmt.Sprintf("The run's cap was %s premium requests (--max-premium); it used %s.", num(p.Cap), num(round2(p.Used))))
	}
	if len(p.LeftOut) > 0 {
		notes = append(notes, "To fit the cap, the run left out "+strings.Join(p.LeftOut, ", ")+".")
	}
	if p.Refused > 0 {
		notes = append(notes, fmt.Sprintf("The cap stopped the run: %s not started.", plural(p.Refused, "turn")))
	}
	if p.Skipped > 0 {
		notes = append(notes, "Early stop saved "+plural(p.Skipped, "turn")+": "+p.SkippedWhy+" (--no-early-stop starts them all).")
	}
	if len(notes) > 0 {
		d.note(strings.Join(notes, " "))
	}
}

// isRound reports whether p is a debate round ("round-2").
func isRound(p quorum.Phase) bool {
	_, ok := p.Round()
	return ok
}
