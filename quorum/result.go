package quorum

import "time"

// This file is the JSON schema of results: what `quorum -o json` prints.
// Field names are stable; durations are whole milliseconds in fields
// ending in "Ms"; times are RFC 3339. Lists are never null: an empty list
// is [].

// DiscussResult is the result of Discuss.
type DiscussResult struct {
	Question string `json:"question"`
	// Models are the participants, in configured order.
	Models []string `json:"models"`
	// Answers are the answers that were given, in configured model order.
	// Models that failed to answer are in Failures, not here.
	Answers []Answer `json:"answers"`
	// Reviews are the reviews that were returned (parsed or not), in
	// configured model order of their reviewers. Reviews that failed are in
	// Failures.
	Reviews []PeerReview `json:"reviews"`
	// Standings are every answer in aggregate order, best first; after a
	// run that failed in the review phase, by the reviews that came in.
	Standings []Standing `json:"ranking"`
	// Ranked is false when no review gave a usable score or ranking (review
	// off, or every review failed): Standings are then in Models' order.
	Ranked bool `json:"ranked"`
	// Synthesis is the moderator's synthesis; null only when the run failed
	// before or during it.
	Synthesis *Synthesis `json:"synthesis"`
	Outcome
}

// Answer is one participant's answer.
type Answer struct {
	// Label is the answer's anonymous label ("A"); reviewers and the
	// moderator saw "Response A", never the model's name.
	Label string `json:"label"`
	Model string `json:"model"`
	Text  string `json:"text"`
	TurnCost
}

// PeerReview is one participant's review of the other answers it was shown.
type PeerReview struct {
	Reviewer string `json:"reviewer"`
	// ReviewerLabel is the label of the reviewer's own answer, which it was
	// never shown.
	ReviewerLabel string `json:"reviewerLabel"`
	// Reviewed are the labels of the answers it was shown.
	Reviewed []string `json:"reviewed"`
	// Raw is the review as the model wrote it. (Raw and Problems are not a
	// RawReply because Verdict sits between them in the JSON.)
	Raw string `json:"raw"`
	// Verdict is what could be parsed from Raw.
	Verdict Verdict `json:"verdict"`
	// Problems lists what could not be parsed or was ignored.
	Problems []string `json:"problems"`
	// Usable is false when nothing could be parsed; the review then counts
	// as a failure of its reviewer.
	Usable bool `json:"usable"`
	TurnCost
}

// Verdict is a parsed review: an assessment per answer and a ranking.
type Verdict struct {
	Assessments []Assessment `json:"assessments"`
	// Ranking lists labels best first. It may be partial.
	Ranking []string `json:"ranking"`
}

// Assessment is a reviewer's judgement of one answer.
type Assessment struct {
	Label string `json:"label"`
	// Score is from 1 to 10; 0 means the reviewer gave none that could be
	// parsed (nothing is invented).
	Score      float64  `json:"score"`
	Strengths  []string `json:"strengths"`
	Weaknesses []string `json:"weaknesses"`
}

// Standing is one answer's or plan's place in an aggregate ranking, with
// the figures behind it. Self-votes are never counted.
type Standing struct {
	// Rank is 1 for the best.
	Rank  int    `json:"rank"`
	Label string `json:"label"`
	Model string `json:"model"`
	// MeanScore is the mean of the Scores valid scores (0 when none).
	MeanScore float64 `json:"meanScore"`
	Scores    int     `json:"scores"`
	// Borda is the Borda count: from each ranking of m items, m−1 points
	// for the first, m−2 for the second, …; tied or unranked items share
	// the points of the places they span.
	Borda float64 `json:"borda"`
	// Failed counts the reviews or votes about this item that failed or
	// could not be parsed.
	Failed int `json:"failed"`
}

// Synthesis is the moderator's final text, parsed into its sections.
type Synthesis struct {
	Moderation
	// Raw is the synthesis as the moderator wrote it; Problems lists what
	// could not be parsed. (They are not a RawReply because Sections sit
	// between them in the JSON.)
	Raw string `json:"raw"`
	Sections
	Problems []string `json:"problems"`
	TurnCost
}

// Moderation says who wrote a part of a result that one model writes for
// the whole run (a discussion's synthesis, a debate's verdict), and why it
// is not the moderator configured when it is not.
type Moderation struct {
	// Moderator is the model that wrote it; RequestedModerator the one
	// configured. Substituted is true when they differ because the
	// configured one failed, and SubstitutionReason says why.
	Moderator          string `json:"moderator"`
	RequestedModerator string `json:"requestedModerator"`
	Substituted        bool   `json:"substituted"`
	SubstitutionReason string `json:"substitutionReason,omitempty"`
}

// RawReply is a model's reply as it wrote it, and what parsing it met.
// The parts of a result parsed from a reply embed it, and TurnCost after
// it, except where other fields sit between them in the JSON
// (PeerReview, Synthesis): an embedded type's fields are marshalled where
// it is embedded, so embedding it there would reorder the schema.
type RawReply struct {
	Raw string `json:"raw"`
	// Problems lists what could not be parsed or was ignored.
	Problems []string `json:"problems"`
}

// TurnCost is what the model turn behind a part of a result took: its
// time and the usage the provider reported.
type TurnCost struct {
	ElapsedMS int64 `json:"elapsedMs"`
	Usage     Usage `json:"usage"`
}

// Sections are the parts of a synthesis. When the sections cannot be
// found, Conclusion holds the whole text.
type Sections struct {
	Conclusion    string   `json:"conclusion"`
	KeyPoints     []string `json:"keyPoints"`
	Consensus     []string `json:"consensus"`
	Disagreements []string `json:"disagreements"`
}

// PlanResult is the result of Plan.
type PlanResult struct {
	Task   string   `json:"task"`
	Models []string `json:"models"`
	// Proposals are the usable plans, in configured model order.
	Proposals []Proposal `json:"proposals"`
	// Votes is the vote matrix: one entry per (voter, plan) pair that was
	// attempted, voters in model order, plans in label order; failed votes
	// included with their error.
	Votes []Vote `json:"votes"`
	// Standings are the plans in aggregate order; the first is the winner.
	// After a failed run they rank the plans by the votes that came in.
	Standings []Standing `json:"standings"`
	// Winner is the label of the winning plan; Reason says why it won.
	// Both are empty when the run failed.
	Winner string `json:"winner"`
	Reason string `json:"reason"`
	Outcome
}

// Proposal is one model's plan.
type Proposal struct {
	Label string `json:"label"`
	Model string `json:"model"`
	PlanSpec
	RawReply
	TurnCost
}

// PlanSpec is the structured form of a plan.
type PlanSpec struct {
	Title string   `json:"title"`
	Steps []string `json:"steps"`
	Risks []string `json:"risks"`
}

// Vote is one model's score of another model's plan.
type Vote struct {
	Voter string `json:"voter"`
	// Plan is the label of the plan voted on.
	Plan string `json:"plan"`
	// Score is from 1 to 10; 0 when the vote failed or had no valid score.
	Score     float64 `json:"score"`
	Reasoning string  `json:"reasoning"`
	RawReply
	// Error is why the vote failed (the model's error, or unparsable).
	Error string `json:"error,omitempty"`
	TurnCost
}

// Ballot is a parsed vote.
type Ballot struct {
	Score     float64 `json:"score"`
	Reasoning string  `json:"reasoning"`
}

// Outcome is what every result reports about the run itself.
type Outcome struct {
	// Degraded is true when a model dropped out of some phase, a review or
	// vote failed, or the moderator was replaced.
	Degraded bool `json:"degraded"`
	// Failures lists each failure: who, in which phase, and the real error.
	Failures []Failure `json:"failures"`
	// Phases reports each phase that started, in order.
	Phases []PhaseReport `json:"phases"`
	// Calls reports every model turn: timing, outcome and usage.
	Calls []Call `json:"calls"`
	// Usage totals every call's usage; UsageByModel splits it by model.
	Usage        Usage            `json:"usage"`
	UsageByModel map[string]Usage `json:"usageByModel"`
	StartedAt    time.Time        `json:"startedAt"`
	ElapsedMS    int64            `json:"elapsedMs"`
	// Premium is the run's account of premium requests: the estimate, what
	// was used, and what the cap and early stop left out.
	Premium *Premium `json:"premium,omitempty"`
	// Error is the run's error when it failed, "" otherwise.
	Error string `json:"error,omitempty"`
}

// Failure is one model's failure in one phase.
type Failure struct {
	Model string `json:"model"`
	Phase Phase  `json:"phase"`
	// Target is the label of the answer or plan concerned, if any.
	Target string `json:"target,omitempty"`
	// Kind is "error", "timeout", "canceled", "empty" or "unparsable".
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// PhaseReport is one phase's timing and who dropped out of it.
type PhaseReport struct {
	Phase Phase `json:"phase"`
	// StartMs is the phase's start, in milliseconds since the run began.
	StartMS   int64 `json:"startMs"`
	ElapsedMS int64 `json:"elapsedMs"`
	// Models took part; Dropped are those that failed it.
	Models  []string `json:"models"`
	Dropped []string `json:"dropped"`
}

// Call is one model turn.
type Call struct {
	Phase  Phase  `json:"phase"`
	Model  string `json:"model"`
	Target string `json:"target,omitempty"`
	// StartMs is when it started, in milliseconds since the run began.
	StartMS   int64 `json:"startMs"`
	ElapsedMS int64 `json:"elapsedMs"`
	// Outcome is "ok" or a Failure kind.
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// CloseError is set when the session could not be closed cleanly.
	CloseError string `json:"closeError,omitempty"`
	Usage      Usage  `json:"usage"`
}

// nonNil returns xs, or an empty list for nil: JSON lists are [] not null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// fillLists replaces nil lists by empty ones, so the JSON has [] not null.
func (d *DiscussResult) fillLists() {
	if d.Answers == nil {
		d.Answers = []Answer{}
	}
	if d.Reviews == nil {
		d.Reviews = []PeerReview{}
	}
	if d.Standings == nil {
		d.Standings = []Standing{}
	}
	for i := range d.Reviews {
		if d.Reviews[i].Problems == nil {
			d.Reviews[i].Problems = []string{}
		}
		if d.Reviews[i].Reviewed == nil {
			d.Reviews[i].Reviewed = []string{}
		}
	}
	if d.Synthesis != nil && d.Synthesis.Problems == nil {
		d.Synthesis.Problems = []string{}
	}
}

// fillLists replaces nil lists by empty ones, so the JSON has [] not null.
func (p *PlanResult) fillLists() {
	if p.Proposals == nil {
		p.Proposals = []Proposal{}
	}
	if p.Votes == nil {
		p.Votes = []Vote{}
	}
	if p.Standings == nil {
		p.Standings = []Standing{}
	}
	for i := range p.Proposals {
		if p.Proposals[i].Problems == nil {
			p.Proposals[i].Problems = []string{}
		}
	}
	for i := range p.Votes {
		if p.Votes[i].Problems == nil {
			p.Votes[i].Problems = []string{}
		}
	}
}
