package quorum

// This file is the JSON schema of a debate's result, under the same rules
// as result.go: stable field names, durations in whole milliseconds in
// fields ending in "Ms", lists never null.

// DebateResult is the result of Debate.
type DebateResult struct {
	Claim string `json:"claim"`
	// Models are the debaters, in configured order.
	Models []string `json:"models"`
	// Debaters are the debaters with their sides and anonymous labels, in
	// configured order.
	Debaters []Debater `json:"debaters"`
	// Rounds is the most rounds the debate could have; End says how many
	// were held and why the debating stopped.
	Rounds int `json:"rounds"`
	// Turns are the debaters' replies, phase by phase (the opening, then
	// each round), debaters in configured order within a phase. Turns that
	// failed are in Failures, not here.
	Turns []DebateTurn `json:"turns"`
	// Ledger is every objection raised, in the order raised, with its
	// status after the whole debate (the moderator's rulings included).
	Ledger []Objection `json:"ledger"`
	End    DebateEnd   `json:"end"`
	// Verdict is the moderator's; null only when the run failed before or
	// during it.
	Verdict *DebateVerdict `json:"verdict"`
	Outcome
}

// Side is a debater's side.
type Side string

// The two sides of a debate.
const (
	SideProponent Side = "proponent" // argues for the claim, answers objections
	SideOpponent  Side = "opponent"  // raises objections and rules on their answers
)

// Debater is one model's place in a debate.
type Debater struct {
	// Label is its anonymous label ("A"): the others saw "Proponent A" or
	// "Opponent A", never the model's name.
	Label string `json:"label"`
	Model string `json:"model"`
	Side  Side   `json:"side"`
}

// DebateTurn is one debater's reply in one phase.
type DebateTurn struct {
	Phase Phase `json:"phase"`
	// Round is the round, 0 for the opening.
	Round int    `json:"round"`
	Label string `json:"label"`
	Model string `json:"model"`
	Side  Side   `json:"side"`
	// Argument is what could be parsed from Raw. What the reply held that
	// its side does not do (a proponent's rulings, an opponent's answers)
	// is left out and named in Problems.
	Argument
	RawReply
	TurnCost
}

// Argument is a debater's parsed reply: its argument, and what it did to
// the ledger.
type Argument struct {
	Argument string `json:"argument"`
	// Answers are a proponent's answers to objections.
	Answers []Rebuttal `json:"answers"`
	// Rulings are an opponent's rulings on its own objections.
	Rulings []Ruling `json:"rulings"`
	// Objections are the objections an opponent raised.
	Objections []RaisedObjection `json:"objections"`
}

// Rebuttal is a proponent's answer to one objection.
type Rebuttal struct {
	// Objection is the objection's id ("O2").
	Objection string `json:"objection"`
	Text      string `json:"text"`
}

// Ruling sets an objection's status: an opponent's on its own objection,
// or the moderator's on one answered in the last round.
type Ruling struct {
	Objection string          `json:"objection"`
	Status    ObjectionStatus `json:"status"`
	Reason    string          `json:"reason"`
}

// RaisedObjection is an objection as an opponent raised it.
type RaisedObjection struct {
	// ID is the id the ledger gave it; empty from ParseArgument.
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Text     string   `json:"text"`
}

// ObjectionStatus is where an objection stands.
type ObjectionStatus string

// Objection statuses.
const (
	// StatusStanding: the objection holds. Every objection is standing when
	// raised and stays so until its opponent (or, for an answer in the last
	// round, the moderator) rules otherwise.
	StatusStanding ObjectionStatus = "standing"
	// StatusAnswered: the proponents' answer settled it.
	StatusAnswered ObjectionStatus = "answered"
	// StatusWithdrawn: the opponent that raised it no longer holds it.
	StatusWithdrawn ObjectionStatus = "withdrawn"
)

// Objection is one entry of the ledger.
type Objection struct {
	// ID is "O1", "O2", … in the order raised: phase by phase, opponents in
	// configured order, each one's objections in the order it wrote them.
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Text     string   `json:"text"`
	// RaisedBy is the label of the opponent that raised it, Model its
	// model, Phase the phase.
	RaisedBy string          `json:"raisedBy"`
	Model    string          `json:"model"`
	Phase    Phase           `json:"phase"`
	Status   ObjectionStatus `json:"status"`
	// Answers are the proponents' answers to it, in order.
	Answers []ObjectionAnswer `json:"answers"`
	// History is every status it had, the first being standing when it
	// was raised.
	History []StatusChange `json:"history"`
}

// ObjectionAnswer is a proponent's answer, as the ledger keeps it.
type ObjectionAnswer struct {
	By    string `json:"by"` // the proponent's label
	Model string `json:"model"`
	Phase Phase  `json:"phase"`
	Text  string `json:"text"`
}

// StatusChange is one step of an objection's history.
type StatusChange struct {
	Phase  Phase           `json:"phase"`
	Status ObjectionStatus `json:"status"`
	// By is the opponent's label, or "moderator".
	By     string `json:"by"`
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// DebateEnd says how the debating ended.
type DebateEnd struct {
	// RoundsHeld counts the rounds held after the opening.
	RoundsHeld int `json:"roundsHeld"`
	// Early is true when the settle gate closed before the last round: no
	// blocking objection stood.
	Early bool `json:"early"`
	// Settled is true when no blocking objection stood as the debating
	// ended, early or after the last round.
	Settled bool `json:"settled"`
	// Reason says it in a sentence.
	Reason string `json:"reason"`
}

// DebateVerdict is the moderator's verdict.
type DebateVerdict struct {
	Moderation
	Decision
	// Standing are the ids of the objections that still stand after the
	// moderator's rulings, by severity, each list in the order raised.
	Standing StandingObjections `json:"standing"`
	RawReply
	// TurnCost is the moderator's turn's.
	TurnCost
}

// Decision is the moderator's parsed reply.
type Decision struct {
	// Position is what the debate supports: for the claim, against it, or
	// undecided.
	Position Position `json:"position"`
	Summary  string   `json:"summary"`
	// Rulings are the moderator's rulings on the objections answered in the
	// last round, which no opponent had ruled on yet.
	Rulings []Ruling `json:"rulings"`
	// WouldChange lists what would change the verdict.
	WouldChange []string `json:"wouldChange"`
}

// Position is a verdict's position on the claim.
type Position string

// Positions.
const (
	PositionFor       Position = "for"
	PositionAgainst   Position = "against"
	PositionUndecided Position = "undecided"
)

// StandingObjections are objection ids by severity.
type StandingObjections struct {
	Blocking []string `json:"blocking"`
	Major    []string `json:"major"`
	Minor    []string `json:"minor"`
}

// fillLists replaces nil lists by empty ones, so the JSON has [] not null.
func (d *DebateResult) fillLists() {
	d.Debaters = nonNil(d.Debaters)
	d.Turns = nonNil(d.Turns)
	d.Ledger = nonNil(d.Ledger)
	for i := range d.Turns {
		t := &d.Turns[i]
		t.Answers, t.Rulings, t.Objections, t.Problems = nonNil(t.Answers), nonNil(t.Rulings), nonNil(t.Objections), nonNil(t.Problems)
	}
	for i := range d.Ledger {
		d.Ledger[i].Answers = nonNil(d.Ledger[i].Answers)
		d.Ledger[i].History = nonNil(d.Ledger[i].History)
	}
	if v := d.Verdict; v != nil {
		v.Rulings, v.WouldChange, v.Problems = nonNil(v.Rulings), nonNil(v.WouldChange), nonNil(v.Problems)
		v.Standing.Blocking, v.Standing.Major, v.Standing.Minor = nonNil(v.Standing.Blocking), nonNil(v.Standing.Major), nonNil(v.Standing.Minor)
	}
}
