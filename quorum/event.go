package quorum

import (
	"strconv"
	"strings"
	"time"
)

// Phase names a step of a run.
type Phase string

// Phases of Discuss (answer, review, synthesis), Plan (propose, vote),
// Debate (opening, then PhaseRound(1), PhaseRound(2), …, then verdict)
// and Review (inspect).
const (
	PhaseAnswer    Phase = "answer"
	PhaseReview    Phase = "review"
	PhaseSynthesis Phase = "synthesis"
	PhasePropose   Phase = "propose"
	PhaseVote      Phase = "vote"
	PhaseOpening   Phase = "opening"
	PhaseVerdict   Phase = "verdict"
	PhaseInspect   Phase = "inspect"
)

// roundPrefix starts the name of a debate round's phase.
const roundPrefix = "round-"

// PhaseRound is the phase of a debate's round n (from 1): "round-1". Each
// round is a phase of its own, so that a model that drops out is named
// with the round it dropped out in.
func PhaseRound(n int) Phase { return Phase(roundPrefix + strconv.Itoa(n)) }

// Round returns the round of a debate round's phase, and false for any
// other phase.
func (p Phase) Round() (int, bool) {
	s, ok := strings.CutPrefix(string(p), roundPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// ProgressKind says what a Progress reports.
type ProgressKind string

// Progress kinds, in the order a model's come.
const (
	// PhaseStarted: a phase begins; Text lists its models.
	PhaseStarted ProgressKind = "phase_started"
	// ModelStarted: a model's turn begins; Text is the prompt, System the
	// system message.
	ModelStarted ProgressKind = "model_started"
	// Delta: a piece of a model's streamed reply. Under a slow consumer,
	// consecutive pieces of one turn may arrive merged into one event.
	Delta ProgressKind = "delta"
	// ModelFinished: a model's turn ended; Text is the whole reply, Elapsed
	// its duration, Err its failure (nil on success), Usage its cost.
	ModelFinished ProgressKind = "model_finished"
	// ReviewParsed: a review was parsed; Text summarises the verdict and any
	// parse problems, Err is set if nothing was usable.
	ReviewParsed ProgressKind = "review_parsed"
	// ProposalParsed: a plan was parsed; Text is its title.
	ProposalParsed ProgressKind = "proposal_parsed"
	// VoteCast: a vote on the plan Target was parsed; Score is its score
	// (0 with Err set when it could not be parsed).
	VoteCast ProgressKind = "vote_cast"
	// ArgumentParsed: a debater's turn was parsed; Text summarises it (the
	// objections raised, answered and ruled on, any parse problems).
	ArgumentParsed ProgressKind = "argument_parsed"
	// DebateSettled: the debate's rounds are over, early (the settle gate
	// closed: no blocking objection stood) or after the last round; Text
	// says which.
	DebateSettled ProgressKind = "debate_settled"
	// VerdictParsed: the moderator's verdict on a debate was parsed; Text
	// is its position and summary, Err is set if it held no position.
	VerdictParsed ProgressKind = "verdict_parsed"
	// FindingsParsed: a model's review of a change was parsed; Text
	// counts its findings by severity, Err is set if nothing was usable.
	FindingsParsed ProgressKind = "findings_parsed"
	// ModeratorReplaced: the moderator failed and Model takes its place; Text
	// says why.
	ModeratorReplaced ProgressKind = "moderator_replaced"
	// SynthesisDone: the synthesis was written and parsed; Text is its
	// conclusion.
	SynthesisDone ProgressKind = "synthesis_done"
	// ToolActivity: an agent's executor started or finished a tool call;
	// Text describes it ("create {…}", "create → ok").
	ToolActivity ProgressKind = "tool_activity"
	// ActionDecided: the agent's action gate decided a permission request;
	// Text says what was asked, the decision, who made it and why.
	ActionDecided ProgressKind = "action_decided"
	// PhaseFinished: a phase ended; Elapsed is its duration, Text names the
	// models that dropped out.
	PhaseFinished ProgressKind = "phase_finished"
	// RunFinished: the last event of a run; Err is the run's error.
	RunFinished ProgressKind = "run_finished"
)

// Progress is one step of a run's progress, for UIs and transcripts. Fields
// that do not apply to a Kind are zero.
type Progress struct {
	Kind  ProgressKind
	Time  time.Time // when it happened (not when it was delivered)
	Phase Phase
	Model string
	// Target is the label of the answer or plan concerned ("A"), if any.
	Target  string
	Text    string
	System  string
	Elapsed time.Duration
	Score   float64
	Usage   *Usage
	Err     error
}
