package quorum

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Debate runs a structured debate of claim among cfg.Models, through b:
//
//  1. Roles: the models in odd places of cfg.Models (the first, the
//     third, …) argue for the claim as proponents, the others against it
//     as opponents; each gets an anonymous label, and the others only ever
//     see "Proponent A" or "Opponent B". cfg.Moderator gives the verdict.
//  2. Opening: every debater at once; proponents make their case,
//     opponents raise objections to the claim, each with a severity
//     (blocking, major or minor). Objections go into a ledger (O1, O2, …)
//     that every later prompt quotes.
//  3. Rounds (at most cfg.Rounds), both sides at once, each answering the
//     other side's arguments of the previous phase: proponents answer the
//     standing objections; opponents rule on their own objections
//     (answered, withdrawn or standing) in the light of the answers they
//     have seen, and may raise new ones. Running the sides together means
//     an answer given in a round is ruled on in the next one.
//  4. The settle gate: after the opening and after each round, the
//     debating ends as soon as no blocking objection stands, or else after
//     the last round.
//  5. Verdict: the moderator reads every debater's latest argument and the
//     ledger, rules on the objections answered in the last round (which no
//     opponent has seen yet), and gives the position the debate supports,
//     a summary, and what would change the verdict. The objections still
//     standing, by severity, complete it. If the moderator fails or gives
//     no position, the first debater still in the debate takes its place,
//     and the result says so.
//
// Failure, timeouts and cancellation behave as in Discuss: a debater that
// fails is left out of the later phases and the run goes on, degraded;
// fewer than cfg.MinModels debaters left, or a side left with nobody,
// fail it with a *TooFewError. The returned DebateResult is nil only when
// the arguments are invalid; after a failed or cancelled run it holds
// everything done so far: the turns that came in and the ledger they
// made, but no verdict.
func Debate(ctx context.Context, b Backend, claim string, cfg Config) (*DebateResult, error) {
	s, err := cfg.settleFor(b, claim, "claim")
	if err != nil {
		return nil, err
	}
	if len(s.Models) < 2 {
		return nil, invalid("a debate needs at least two models in Config.Models, one for each side; it has %d", len(s.Models))
	}
	s.fit(debateShape, fewerRounds, fewerModels(2))
	d := &DebateResult{Claim: claim, Models: s.Models, Rounds: s.Rounds}
	r := newRun(ctx, b, s, &d.Outcome)
	err = newDebate(r, d).run()
	r.finish(err, d.Verdict != nil && d.Verdict.Substituted)
	d.fillLists()
	return d, err
}

// debate is a debate in progress.
type debate struct {
	r *run
	d *DebateResult
	// seats are the debaters by model; alive those still in the debate, in
	// configured order.
	seats map[string]Debater
	alive []string
	// last are the usable turns of the previous phase: what the next one
	// answers.
	last []DebateTurn
	// nonce is the delimiter nonce of the next phase, derived from
	// everything it quotes.
	nonce string
}

func newDebate(r *run, d *DebateResult) *debate {
	models := r.s.Models
	perm := shuffle(len(models), append([]string{d.Claim}, models...)...)
	db := &debate{r: r, d: d, seats: make(map[string]Debater, len(models)), alive: slices.Clone(models), nonce: nonceOf(d.Claim)}
	for i, m := range models {
		side := SideProponent
		if i%2 == 1 {
			side = SideOpponent
		}
		seat := Debater{Label: label(perm[i]), Model: m, Side: side}
		d.Debaters = append(d.Debaters, seat)
		db.seats[m] = seat
	}
	return db
}

func (db *debate) run() error {
	if err := db.phase(PhaseOpening, 0); err != nil {
		return err
	}
	held := 0
	for held < db.d.Rounds && !db.settled() {
		held++
		if err := db.phase(PhaseRound(held), held); err != nil {
			db.d.End.RoundsHeld = held
			return err
		}
	}
	db.end(held)
	return db.verdict()
}

// phase runs the opening (round 0) or a round: every debater still in the
// debate at once. The turns are applied to the ledger after the phase, in
// configured order, so the ledger does not depend on which reply came
// first.
func (db *debate) phase(p Phase, round int) error {
	r := db.r
	tasks := make([]task, len(db.alive))
	for i, m := range db.alive {
		seat := db.seats[m]
		prompt, err := db.prompt(seat, p, round)
		if err != nil {
			return err
		}
		system := r.s.Prompts.ProponentSystem
		if seat.Side == SideOpponent {
			system = r.s.Prompts.OpponentSystem
		}
		tasks[i] = task{model: m, system: system, prompt: prompt}
	}
	ph := r.startPhase(p, db.alive)
	var turns []DebateTurn
	kept, dropped := ph.collect(ph.do(tasks), func(res result) bool {
		a, problems, ok := ParseArgument(res.reply.Text)
		if !ok {
			r.ev.emit(Progress{Kind: ArgumentParsed, Phase: p, Model: res.model, Err: r.unparsable(p, res.task, problems)})
			return false
		}
		seat := db.seats[res.model]
		turns = append(turns, DebateTurn{
			Phase: p, Round: round, Label: seat.Label, Model: seat.Model, Side: seat.Side, Argument: a,
			RawReply: RawReply{Raw: res.reply.Text, Problems: problems}, TurnCost: res.cost(),
		})
		return true
	})
	texts := []string{db.nonce}
	for i := range turns {
		db.apply(&turns[i])
		r.ev.emit(Progress{Kind: ArgumentParsed, Phase: p, Model: turns[i].Model, Text: summariseTurn(turns[i])})
		texts = append(texts, turns[i].Raw)
	}
	db.d.Turns = append(db.d.Turns, turns...)
	db.last = turns
	db.nonce = nonceOf(texts...)
	db.alive = nil
	for _, res := range kept {
		db.alive = append(db.alive, res.model)
	}
	if err := ph.end(dropped, db.alive); err != nil {
		return err
	}
	return db.bothSides(p)
}

// bothSides fails the run when a side has nobody left: a debate with one
// side is no debate.
func (db *debate) bothSides(p Phase) error {
	for _, side := range []Side{SideProponent, SideOpponent} {
		if !slices.ContainsFunc(db.alive, func(m string) bool { return db.seats[m].Side == side }) {
			return &TooFewError{Phase: p, Need: 1, Left: []string{}, Role: side, Failures: slices.Clone(db.r.failures)}
		}
	}
	return nil
}

// prompt renders a debater's prompt for the opening (round 0) or a round.
func (db *debate) prompt(seat Debater, p Phase, round int) (string, error) {
	s := db.r.s
	data := DebateData{Claim: db.d.Claim, Label: seat.Label, Round: round, Rounds: s.Rounds, Opening: round == 0, Nonce: db.nonce}
	t := s.t.proponent
	if seat.Side == SideOpponent {
		t = s.t.opponent
	}
	var ids []string
	if round > 0 {
		other := SideOpponent
		if seat.Side == SideOpponent {
			other = SideProponent
		}
		var args []string
		for _, turn := range db.last {
			if turn.Side == other {
				args = append(args, db.quoteArgument(turn, ""))
			}
		}
		data.Arguments = strings.Join(args, "\n\n")
		data.Ledger = db.ledgerText()
		data.Open, ids = db.open(seat)
	}
	data.Example = debateExample(seat.Side, round, ids)
	return render(t, p, data)
}

// quoteArgument quotes a turn's argument between its delimiter lines,
// after a line naming its side when intro is set.
func (db *debate) quoteArgument(t DebateTurn, intro string) string {
	text := t.Argument.Argument
	if strings.TrimSpace(text) == "" {
		text = "(no argument given; see the ledger)"
	}
	q := quote("ARGUMENT "+t.Label, db.nonce, text)
	if intro != "" {
		return intro + "\n" + q
	}
	return q
}

// open says what a debater is to deal with this round, and the ids
// concerned: for a proponent, the standing objections that have no answer
// awaiting a ruling, most severe first; for an opponent, its own standing
// objections, those with an answer it has not ruled on marked.
func (db *debate) open(seat Debater) (string, []string) {
	var parts, ids []string
	byRank := slices.Clone(db.d.Ledger)
	slices.SortStableFunc(byRank, func(a, b Objection) int { return b.Severity.Rank() - a.Severity.Rank() })
	for _, o := range byRank {
		if o.Status != StatusStanding {
			continue
		}
		switch {
		case seat.Side == SideProponent && !pending(o):
			parts = append(parts, fmt.Sprintf("%s (%s)", o.ID, o.Severity))
		case seat.Side == SideOpponent && o.RaisedBy == seat.Label && pending(o):
			parts = append(parts, fmt.Sprintf("%s (%s, newly answered)", o.ID, o.Severity))
		case seat.Side == SideOpponent && o.RaisedBy == seat.Label:
			parts = append(parts, fmt.Sprintf("%s (%s, no new answer)", o.ID, o.Severity))
		default:
			continue
		}
		ids = append(ids, o.ID)
	}
	if len(parts) == 0 {
		if seat.Side == SideProponent {
			return "none (no standing objection lacks an answer)", nil
		}
		return "none (you have no standing objection)", nil
	}
	return strings.Join(parts, ", "), ids
}

// end records how the debating ended, after held rounds.
func (db *debate) end(held int) {
	e := &db.d.End
	e.RoundsHeld = held
	e.Settled = db.settled()
	e.Early = e.Settled && held < db.d.Rounds
	when := "the opening"
	if held > 0 {
		when = fmt.Sprintf("round %d", held)
	}
	all := fmt.Sprintf("All %d rounds were held", held)
	if held == 1 {
		all = "The one round was held"
	}
	switch {
	case e.Early:
		e.Reason = fmt.Sprintf("No blocking objection stood after %s, so the debate settled early.", when)
	case e.Settled:
		e.Reason = all + "; no blocking objection stood after the last."
	default:
		e.Reason = fmt.Sprintf("%s; %s still stood after the last.", all, plural(db.countStanding(SeverityBlocking), "blocking objection"))
	}
	p := PhaseOpening
	if held > 0 {
		p = PhaseRound(held)
	}
	db.r.ev.emit(Progress{Kind: DebateSettled, Phase: p, Text: e.Reason})
}

// verdict asks the moderator for the verdict, and when it fails or gives
// no position, the debaters still in the debate in turn.
func (db *debate) verdict() error {
	r, s := db.r, db.r.s
	var args, ids []string
	for _, seat := range db.d.Debaters {
		for i := len(db.d.Turns) - 1; i >= 0; i-- {
			if t := db.d.Turns[i]; t.Model == seat.Model {
				args = append(args, db.quoteArgument(t, fmt.Sprintf("%s %s (latest, from %s):", sideName(seat.Side), seat.Label, phaseName(t.Phase))))
				break
			}
		}
	}
	var waiting []string
	for _, o := range db.d.Ledger {
		ids = append(ids, o.ID)
		if o.Status == StatusStanding && pending(o) {
			waiting = append(waiting, o.ID)
		}
	}
	pendingText := "No objection awaits a ruling."
	if len(waiting) > 0 {
		pendingText = fmt.Sprintf(`These objections were answered in the last round and await a ruling: %s. Rule on each: "answered" if the answer settles it, "standing" if it does not.`, strings.Join(waiting, ", "))
	}
	prompt, err := render(s.t.verdict, PhaseVerdict, VerdictData{
		Claim: db.d.Claim, Arguments: strings.Join(args, "\n\n"), Ledger: db.ledgerText(),
		Pending: pendingText, Nonce: db.nonce, Example: verdictExample(waiting),
	})
	if err != nil {
		return err
	}
	return r.moderate(moderatedPhase{
		phase: PhaseVerdict, system: s.Prompts.VerdictSystem, prompt: prompt,
		requested: s.Moderator, substitutes: db.alive, alive: db.alive,
		accept: func(res result, who Moderation) *ModelError {
			dec, problems, ok := ParseDecision(res.reply.Text, ids)
			ev := Progress{Kind: VerdictParsed, Phase: PhaseVerdict, Model: res.model, Text: strings.TrimSpace(string(dec.Position) + ": " + dec.Summary)}
			if !ok {
				e := r.unparsable(PhaseVerdict, res.task, problems)
				ev.Err = e
				r.ev.emit(ev)
				return e
			}
			v := &DebateVerdict{Moderation: who, Decision: dec, RawReply: RawReply{Raw: res.reply.Text, Problems: problems}, TurnCost: res.cost()}
			db.rule(v, waiting)
			db.d.Verdict = v
			r.ev.emit(ev)
			return nil
		},
	})
}

// summariseTurn is an ArgumentParsed event's text.
func summariseTurn(t DebateTurn) string {
	var parts []string
	if len(t.Answers) > 0 {
		var ids []string
		for _, a := range t.Answers {
			ids = append(ids, a.Objection)
		}
		parts = append(parts, "answered "+strings.Join(ids, ", "))
	}
	if len(t.Rulings) > 0 {
		var rs []string
		for _, ru := range t.Rulings {
			rs = append(rs, ru.Objection+" "+string(ru.Status))
		}
		parts = append(parts, "ruled "+strings.Join(rs, ", "))
	}
	if len(t.Objections) > 0 {
		var os []string
		for _, o := range t.Objections {
			os = append(os, fmt.Sprintf("%s (%s)", o.ID, o.Severity))
		}
		parts = append(parts, "raised "+strings.Join(os, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "argued")
	}
	s := strings.Join(parts, "; ")
	if len(t.Problems) > 0 {
		s += fmt.Sprintf(" (%s)", plural(len(t.Problems), "parse problem"))
	}
	return s
}
