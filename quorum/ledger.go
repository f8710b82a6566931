package quorum

import (
	"fmt"
	"slices"
	"strings"
)

// This file is a debate's ledger of objections: what each turn and the
// moderator's rulings do to it, when an objection awaits a ruling, the
// settle gate, and the ledger as prompts quote it.

// ObjectionStep is one thing that happened to an objection after it was
// raised: an answer or a ruling.
type ObjectionStep struct {
	Phase Phase
	// Answer is set for an answer, Ruling for a ruling.
	Answer *ObjectionAnswer
	Ruling *StatusChange
}

// Steps returns the answers and rulings of o in the order they came: by
// phase, and within a phase a ruling before the answers, since a ruling
// judges the answers given before it (both sides of a round run at once).
func (o Objection) Steps() []ObjectionStep {
	type step struct {
		order int
		s     ObjectionStep
	}
	var ss []step
	for i := range o.Answers {
		a := &o.Answers[i]
		ss = append(ss, step{2*phaseOrder(a.Phase) + 1, ObjectionStep{Phase: a.Phase, Answer: a}})
	}
	for i := range o.History {
		if i == 0 {
			continue // raised
		}
		h := &o.History[i]
		ss = append(ss, step{2 * phaseOrder(h.Phase), ObjectionStep{Phase: h.Phase, Ruling: h}})
	}
	slices.SortStableFunc(ss, func(a, b step) int { return a.order - b.order })
	out := make([]ObjectionStep, len(ss))
	for i, x := range ss {
		out[i] = x.s
	}
	return out
}

// pending reports whether an objection has an answer that nobody has
// ruled on: one given in or after the phase of its latest status.
func pending(o Objection) bool {
	if len(o.Answers) == 0 || len(o.History) == 0 {
		return false
	}
	return phaseOrder(o.Answers[len(o.Answers)-1].Phase) >= phaseOrder(o.History[len(o.History)-1].Phase)
}

// phaseOrder orders a debate's phases: the opening, the rounds, the
// verdict.
func phaseOrder(p Phase) int {
	if n, ok := p.Round(); ok {
		return n
	}
	if p == PhaseVerdict {
		return MaxRounds + 1
	}
	return 0
}

// phaseName is a phase as a sentence says it: "the opening", "round 2".
func phaseName(p Phase) string {
	if n, ok := p.Round(); ok {
		return fmt.Sprintf("round %d", n)
	}
	return "the " + string(p)
}

// ledgerText renders the ledger for a prompt: a line per objection, then
// its answers and rulings, indented, in the order they came. Texts are
// folded onto one line, so that only quorum's own lines start with an
// objection's id.
func (db *debate) ledgerText() string {
	var b strings.Builder
	for _, o := range db.d.Ledger {
		fmt.Fprintf(&b, "%s [%s, %s] raised by Opponent %s in %s: %s\n", o.ID, o.Severity, o.Status, o.RaisedBy, phaseName(o.Phase), oneLine(o.Text))
		for _, st := range o.Steps() {
			if a := st.Answer; a != nil {
				fmt.Fprintf(&b, "  answer by Proponent %s in %s: %s\n", a.By, phaseName(a.Phase), oneLine(a.Text))
				continue
			}
			h := st.Ruling
			by := "Opponent " + h.By
			if h.By == moderatorBy {
				by = "the moderator"
			}
			fmt.Fprintf(&b, "  ruled %s by %s in %s", h.Status, by, phaseName(h.Phase))
			if h.Reason != "" {
				fmt.Fprintf(&b, ": %s", oneLine(h.Reason))
			}
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		b.WriteString("(no objection has been raised)")
	}
	return quote("LEDGER", db.nonce, b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// moderatorBy is StatusChange.By for the moderator's rulings.
const moderatorBy = "moderator"

// objection returns the ledger entry with id, or nil.
func (db *debate) objection(id string) *Objection {
	for i := range db.d.Ledger {
		if db.d.Ledger[i].ID == id {
			return &db.d.Ledger[i]
		}
	}
	return nil
}

// apply records a turn in the ledger. What its side does not do is left
// out of the turn and named in its problems: only proponents answer, and
// only opponents rule and object; an opponent rules only on its own
// objections.
func (db *debate) apply(t *DebateTurn) {
	note := func(format string, args ...any) { t.Problems = append(t.Problems, fmt.Sprintf(format, args...)) }
	if t.Side == SideProponent {
		if len(t.Rulings) > 0 {
			note("a proponent does not rule on objections; %d rulings were ignored", len(t.Rulings))
			t.Rulings = nil
		}
		if len(t.Objections) > 0 {
			note("a proponent does not raise objections; %d objections were ignored", len(t.Objections))
			t.Objections = nil
		}
		var kept []Rebuttal
		for _, a := range t.Answers {
			o := db.objection(a.Objection)
			switch {
			case o == nil:
				note("an answer to %s, which is not in the ledger, was ignored", a.Objection)
			case o.Status != StatusStanding:
				note("an answer to %s, which is %s, was ignored", a.Objection, o.Status)
			default:
				o.Answers = append(o.Answers, ObjectionAnswer{By: t.Label, Model: t.Model, Phase: t.Phase, Text: a.Text})
				kept = append(kept, a)
			}
		}
		t.Answers = kept
		return
	}
	if len(t.Answers) > 0 {
		note("an opponent does not answer objections; %d answers were ignored", len(t.Answers))
		t.Answers = nil
	}
	var rulings []Ruling
	for _, ru := range t.Rulings {
		o := db.objection(ru.Objection)
		switch {
		case o == nil:
			note("a ruling on %s, which is not in the ledger, was ignored", ru.Objection)
		case o.RaisedBy != t.Label:
			note("a ruling on %s, which Opponent %s raised, was ignored: only its author rules on it", ru.Objection, o.RaisedBy)
		default:
			o.Status = ru.Status
			o.History = append(o.History, StatusChange{Phase: t.Phase, Status: ru.Status, By: t.Label, Model: t.Model, Reason: ru.Reason})
			rulings = append(rulings, ru)
		}
	}
	t.Rulings = rulings
	var raised []RaisedObjection
	for _, ob := range t.Objections {
		if dup := slices.IndexFunc(db.d.Ledger, func(o Objection) bool { return strings.EqualFold(oneLine(o.Text), oneLine(ob.Text)) }); dup >= 0 {
			note("an objection repeating %s was not added again", db.d.Ledger[dup].ID)
			continue
		}
		ob.ID = fmt.Sprintf("O%d", len(db.d.Ledger)+1)
		db.d.Ledger = append(db.d.Ledger, Objection{
			ID: ob.ID, Severity: ob.Severity, Text: ob.Text, RaisedBy: t.Label, Model: t.Model, Phase: t.Phase, Status: StatusStanding,
			History: []StatusChange{{Phase: t.Phase, Status: StatusStanding, By: t.Label, Model: t.Model, Reason: "raised"}},
		})
		raised = append(raised, ob)
	}
	t.Objections = raised
}

// settled is the settle gate: no blocking objection stands.
func (db *debate) settled() bool {
	return db.countStanding(SeverityBlocking) == 0
}

func (db *debate) countStanding(sev Severity) int {
	n := 0
	for _, o := range db.d.Ledger {
		if o.Severity == sev && o.Status == StatusStanding {
			n++
		}
	}
	return n
}

// rule applies the moderator's rulings to the objections awaiting one and
// fills the verdict's standing objections. The moderator judges only what
// no opponent could: an answer given in the last round.
func (db *debate) rule(v *DebateVerdict, waiting []string) {
	note := func(format string, args ...any) { v.Problems = append(v.Problems, fmt.Sprintf(format, args...)) }
	var kept []Ruling
	ruled := map[string]bool{}
	for _, ru := range v.Rulings {
		switch {
		case !slices.Contains(waiting, ru.Objection):
			note("%s was not awaiting a ruling; its opponent's ruling stands", ru.Objection)
		case ru.Status == StatusWithdrawn:
			note("only its opponent can withdraw %s; the moderator's ruling was ignored", ru.Objection)
		default:
			o := db.objection(ru.Objection)
			o.Status = ru.Status
			o.History = append(o.History, StatusChange{Phase: PhaseVerdict, Status: ru.Status, By: moderatorBy, Model: v.Moderator, Reason: ru.Reason})
			kept = append(kept, ru)
			ruled[ru.Objection] = true
		}
	}
	for _, id := range waiting {
		if !ruled[id] {
			note("no ruling on %s, answered in the last round; it stands", id)
		}
	}
	v.Rulings = kept
	for _, o := range db.d.Ledger {
		if o.Status != StatusStanding {
			continue
		}
		switch o.Severity {
		case SeverityBlocking:
			v.Standing.Blocking = append(v.Standing.Blocking, o.ID)
		case SeverityMajor:
			v.Standing.Major = append(v.Standing.Major, o.ID)
		default:
			v.Standing.Minor = append(v.Standing.Minor, o.ID)
		}
	}
}
