package report

import (
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// Debate is the report of a debate. Its parts come in the order of the
// run: every turn, phase by phase, the ledger, then the verdict, which is
// what stays in view on a terminal; usage and what went wrong close it.
// Debaters are named by label and model together everywhere ("Opponent B
// (sim-beta)"): the labels are what the debaters and the moderator saw.
func Debate(d *quorum.DebateResult) Report { return debate{d} }

type debate struct{ d *quorum.DebateResult }

// DebateSections are the parts of a debate's report.
var DebateSections = []string{"arguments", "ledger", "verdict", "usage"}

func (debate) Sections() []string { return DebateSections }

// who names a debater by its label, with its side and model:
// "Opponent B (sim-beta)".
func (r debate) who(label string) string {
	for _, db := range r.d.Debaters {
		if db.Label == label {
			return fmt.Sprintf("%s %s (%s)", sideName(db.Side), label, db.Model)
		}
	}
	return label
}

func sideName(s quorum.Side) string {
	if s == quorum.SideOpponent {
		return "Opponent"
	}
	return "Proponent"
}

// phaseTitle is a debate phase as a heading says it: "Opening", "Round 2".
func phaseTitle(p quorum.Phase) string {
	if n, ok := p.Round(); ok {
		return fmt.Sprintf("Round %d", n)
	}
	s := string(p)
	return strings.ToUpper(s[:1]) + s[1:]
}

// phaseWhen is a phase in a sentence: "the opening", "round 2".
func phaseWhen(p quorum.Phase) string {
	if n, ok := p.Round(); ok {
		return fmt.Sprintf("round %d", n)
	}
	return "the " + string(p)
}

func (r debate) write(doc doc, o Options) {
	d := r.d
	header(doc, o)
	doc.title("Debate", "Claim", o.subject(d.Claim))
	var pro, con []string
	for _, db := range d.Debaters {
		who := participants(o, []string{db.Model}, &d.Outcome)
		if db.Side == quorum.SideOpponent {
			con = append(con, who)
		} else {
			pro = append(pro, who)
		}
	}
	kv := [][2]string{{"For (proponents)", strings.Join(pro, ", ")}, {"Against (opponents)", strings.Join(con, ", ")}}
	if v := d.Verdict; v != nil {
		kv = append(kv, [2]string{"Moderator", moderatorLine(v.Moderation)})
	}
	doc.fields(o.withContext(kv))
	if o.show("arguments") {
		r.arguments(doc)
	}
	if o.show("ledger") && len(d.Ledger) > 0 {
		r.ledger(doc)
	}
	if o.show("verdict") {
		r.verdict(doc, o)
	}
	usage(doc, o, &d.Outcome)
	problems(doc, o, &d.Outcome)
}

// arguments writes every turn, phase by phase.
func (r debate) arguments(doc doc) {
	if len(r.d.Turns) == 0 {
		doc.heading(1, "Opening")
		doc.para("No turn came in.")
		return
	}
	var phase quorum.Phase
	for _, t := range r.d.Turns {
		if t.Phase != phase {
			phase = t.Phase
			doc.heading(1, phaseTitle(phase))
			if phase == quorum.PhaseOpening {
				doc.note("The debaters saw each other under their labels only, never their models' names.")
			}
		}
		doc.heading(2, fmt.Sprintf("%s %s · %s", sideName(t.Side), t.Label, t.Model))
		if strings.TrimSpace(t.Argument.Argument) != "" {
			doc.quote(t.Argument.Argument)
		}
		if len(t.Answers) > 0 {
			var its []item
			for _, a := range t.Answers {
				its = append(its, item{text: a.Objection + ": " + a.Text})
			}
			doc.para("Answers:")
			doc.list(its)
		}
		if len(t.Rulings) > 0 {
			var its []item
			for _, ru := range t.Rulings {
				its = append(its, item{text: rulingText(ru)})
			}
			doc.para("Rulings:")
			doc.list(its)
		}
		if len(t.Objections) > 0 {
			var its []item
			for _, ob := range t.Objections {
				its = append(its, item{text: fmt.Sprintf("%s [%s] %s", ob.ID, ob.Severity, ob.Text)})
			}
			doc.para("Objections raised:")
			doc.list(its)
		}
		if len(t.Problems) > 0 {
			doc.para("Parse problems: " + strings.Join(t.Problems, "; "))
		}
	}
}

func rulingText(ru quorum.Ruling) string {
	s := ru.Objection + " " + string(ru.Status)
	if ru.Reason != "" {
		s += ": " + ru.Reason
	}
	return s
}

// ledger writes every objection with its status, then what happened to
// it, in order.
func (r debate) ledger(doc doc) {
	doc.heading(1, "Ledger")
	doc.note("Every objection, with its status after the debate: an objection stands until the opponent who raised it rules it answered or withdraws it; the moderator rules on answers given in the last round.")
	var its []item
	for _, o := range r.d.Ledger {
		it := item{text: fmt.Sprintf("%s [%s, %s] %s", o.ID, o.Severity, o.Status, o.Text)}
		it.sub = append(it.sub, fmt.Sprintf("raised by %s in %s", r.who(o.RaisedBy), phaseWhen(o.Phase)))
		for _, st := range o.Steps() {
			if a := st.Answer; a != nil {
				it.sub = append(it.sub, fmt.Sprintf("answered by %s in %s: %s", r.who(a.By), phaseWhen(a.Phase), a.Text))
				continue
			}
			h := st.Ruling
			by := r.who(h.By)
			if h.By == "moderator" {
				by = "the moderator (" + h.Model + ")"
			}
			text := fmt.Sprintf("ruled %s by %s in %s", h.Status, by, phaseWhen(h.Phase))
			if h.Reason != "" {
				text += ": " + h.Reason
			}
			it.sub = append(it.sub, text)
		}
		its = append(its, it)
	}
	doc.list(its)
}

func (r debate) verdict(doc doc, o Options) {
	d := r.d
	doc.heading(1, "Verdict")
	v := d.Verdict
	if v == nil {
		if o.Incomplete != "" {
			doc.para("Not given: the run stopped first.")
		}
		return
	}
	// The summary cites debaters by label: the legend sits right above.
	var labels, models []string
	for _, db := range d.Debaters {
		labels = append(labels, db.Label)
		models = append(models, fmt.Sprintf("%s (%s)", db.Model, strings.ToLower(sideName(db.Side))))
	}
	sortPairs(labels, models)
	doc.fields([][2]string{
		{"Position", positionText(v.Position)},
		{"By", moderatorLine(v.Moderation)},
		{"Debaters", legend(labels, models)},
		{"Rounds", d.End.Reason},
	})
	if strings.TrimSpace(v.Summary) != "" {
		doc.quote(v.Summary)
	}
	doc.heading(2, "Standing objections")
	var its []item
	for _, g := range []struct {
		sev quorum.Severity
		ids []string
	}{{quorum.SeverityBlocking, v.Standing.Blocking}, {quorum.SeverityMajor, v.Standing.Major}, {quorum.SeverityMinor, v.Standing.Minor}} {
		for _, id := range g.ids {
			its = append(its, item{text: fmt.Sprintf("%s [%s] %s", id, g.sev, r.objectionText(id))})
		}
	}
	if len(its) == 0 {
		doc.para("None.")
	} else {
		doc.list(its)
	}
	if len(v.Rulings) > 0 {
		doc.heading(2, "The moderator's rulings")
		var rs []item
		for _, ru := range v.Rulings {
			rs = append(rs, item{text: rulingText(ru)})
		}
		doc.list(rs)
	}
	doc.heading(2, "What would change the verdict")
	if len(v.WouldChange) == 0 {
		doc.para("The moderator did not say.")
	} else {
		doc.list(items(v.WouldChange))
	}
	if len(v.Problems) > 0 {
		doc.para("Parse problems: " + strings.Join(v.Problems, "; "))
	}
}

func (r debate) objectionText(id string) string {
	for _, o := range r.d.Ledger {
		if o.ID == id {
			return o.Text
		}
	}
	return ""
}

func positionText(p quorum.Position) string {
	switch p {
	case quorum.PositionFor:
		return "for the claim"
	case quorum.PositionAgainst:
		return "against the claim"
	}
	return string(p)
}
