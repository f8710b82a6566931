package quorum

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// moderatedPhase is a phase one model does for the whole run, with others
// ready to take its place: a discussion's synthesis, a debate's verdict.
type moderatedPhase struct {
	phase          Phase
	system, prompt string
	// requested is the configured moderator; substitutes may take its
	// place, in order, if they are still in the run (alive).
	requested   string
	substitutes []string
	alive       []string
	// accept reads a reply. It returns nil when the reply is usable, having
	// stored it with who (its writer, and why that is not the requested
	// moderator when it is not); otherwise the failure it recorded, and
	// the turn passes to the next candidate.
	accept func(res result, who Moderation) *ModelError
}

// moderate runs a moderated phase: the requested moderator first, unless it is
// a participant that already dropped out of the run, then each substitute
// in turn while the previous one fails, each change announced with
// ModeratorReplaced. It returns the run's error: the run's context ended,
// or nobody could do the phase.
func (r *run) moderate(m moderatedPhase) error {
	var candidates, reasons []string
	replaced := ""
	if slices.Contains(r.s.Models, m.requested) && !slices.Contains(m.alive, m.requested) {
		reasons = append(reasons, m.requested+" had dropped out of the run: "+r.lastFailure(m.requested))
		replaced = m.requested
	} else {
		candidates = append(candidates, m.requested)
	}
	for _, c := range m.substitutes {
		if c != m.requested && slices.Contains(m.alive, c) && !slices.Contains(candidates, c) {
			candidates = append(candidates, c)
		}
	}
	if len(candidates) == 0 {
		return r.tooFew(m.phase, nil, 1)
	}
	ph := r.startPhase(m.phase, candidates[:1])
	var dropped []string
	done := false
	for i, c := range candidates {
		if i > 0 || replaced != "" {
			if i > 0 {
				ph.report.Models = append(ph.report.Models, c)
				replaced = candidates[i-1]
			}
			r.ev.emit(Progress{Kind: ModeratorReplaced, Phase: m.phase, Model: c, Text: fmt.Sprintf("%s takes the place of %s: %s", c, replaced, reasons[len(reasons)-1])})
		}
		res := ph.do([]task{{model: c, system: m.system, prompt: m.prompt}})[0]
		failed := res.err
		if failed != nil {
			r.fail(failed, res.kind)
		} else {
			who := Moderation{Moderator: c, RequestedModerator: m.requested, Substituted: c != m.requested}
			if who.Substituted {
				who.SubstitutionReason = strings.Join(reasons, "; then ")
			}
			failed = m.accept(res, who)
		}
		if failed == nil {
			done = true
			break
		}
		dropped = append(dropped, c)
		reasons = append(reasons, failed.Error())
		if r.ctx.Err() != nil || errors.Is(failed, ErrPremiumCap) {
			break // a substitute would be refused the same way
		}
	}
	ph.finish(dropped)
	if err := r.stopped(m.phase); err != nil {
		return err
	}
	if !done {
		return r.tooFew(m.phase, nil, 1)
	}
	return nil
}
