package quorum

// AgentResult is the result of Agent: everything the run did, phase by
// phase, in the JSON that `quorum agent -o json` prints as its result.
type AgentResult struct {
	Task string `json:"task"`
	// Models are the participants, in configured order.
	Models []string `json:"models"`
	// Stage is how far the run went: StagePlanned (it stopped at the
	// gate, nothing executed), StageRejected (the gate said no),
	// StageExecuted (the plan was carried out; see Steps for how far) or
	// StageReviewed (and the result reviewed).
	Stage string `json:"stage"`
	// Context lists what the models read before planning.
	Context []ContextSource `json:"context"`

	// Proposals, Votes, Standings and Winner are the ensemble planning, as
	// in PlanResult; with AgentConfig.Solo there is one proposal, no vote.
	Proposals []Proposal `json:"proposals"`
	Votes     []Vote     `json:"votes"`
	Standings []Standing `json:"standings"`
	Winner    string     `json:"winner"`
	// PlanReviews are the rounds of review of the winning plan, in order.
	PlanReviews []PlanReviewRound `json:"planReviews"`
	// Objections are the objections still standing after the last round.
	Objections []PlanObjection `json:"objections"`
	// Plan is the plan as approved (as planned when the run stopped before
	// the gate, as edited when the user edited it); null when planning
	// failed.
	Plan *AgentPlan `json:"plan"`
	// PlanGiven is true when the plan was given in advance
	// (AgentConfig.Plan) and carried out as it was: no planning phase ran,
	// so Proposals, Votes, Standings and PlanReviews are empty. PlanFrom
	// says where it came from (AgentConfig.PlanFrom), "" when not said.
	PlanGiven bool   `json:"planGiven,omitempty"`
	PlanFrom  string `json:"planFrom,omitempty"`
	// Approval is the gate's answer: "approved", "edited", "rejected", or
	// "" when the run stopped before it.
	Approval string `json:"approval"`

	// Executor is the model that carried the plan out.
	Executor string `json:"executor"`
	// Workspace is where it did; null when nothing was executed.
	Workspace *WorkspaceInfo `json:"workspace"`
	// Sandbox is the confinement the executor ran under (or that it ran
	// unconfined, by the user's choice) and what the sandbox stopped;
	// null when nothing was executed.
	Sandbox *SandboxInfo `json:"sandbox"`
	// Steps are the plan's steps as carried out, then the fix rounds'
	// turns (Round "fix-1", …), in order.
	Steps []StepRun `json:"steps"`
	// Actions are every decision of the action gate, in order.
	Actions []ActionRecord `json:"actions"`
	// Change summarises the branch's diff against its base after the last
	// commit; null when nothing was executed.
	Change *ChangeSummary `json:"change"`
	// Reviews are the reviews of the branch: the final review, then one
	// per fix round.
	Reviews []AgentReview `json:"reviews"`
	// Findings are the last review's findings at or above the gate
	// (AgentConfig.FailOn): what remains to fix.
	Findings []MergedFinding `json:"findings"`
	// Attempts are the attempts that carried the plan out when there
	// were several (AgentConfig.Attempts), in label order; Ranking is the
	// models' judgement of them. The fields above, from Executor to
	// Findings, then describe the winner. Both are left out of the JSON
	// for a run of one attempt.
	Attempts []AgentAttempt  `json:"attempts,omitempty"`
	Ranking  *AttemptRanking `json:"ranking,omitempty"`
	Outcome
}

// How far an agent run went (AgentResult.Stage).
const (
	StagePlanned  = "planned"
	StageRejected = "rejected"
	StageExecuted = "executed"
	StageReviewed = "reviewed"
)

// ContextSource is one thing the models read before planning.
type ContextSource struct {
	Path string `json:"path"`
	// Bytes is how much of it the models read; Truncated is true when that
	// is less than the whole, the budget being spent.
	Bytes     int  `json:"bytes"`
	Truncated bool `json:"truncated,omitempty"`
}

// AgentPlan is a plan an agent carries out: ordered steps, each with its
// goal, the files it touches and how to check it.
type AgentPlan struct {
	Title string `json:"title"`
	// Author is the model that wrote (and revised) it.
	Author string      `json:"author"`
	Steps  []AgentStep `json:"steps"`
	Risks  []string    `json:"risks"`
}

// AgentStep is one step of an AgentPlan.
type AgentStep struct {
	Goal  string   `json:"goal"`
	Files []string `json:"files"`
	// Check says how to see that the step worked: a command, or what to
	// look at.
	Check string `json:"check"`
}

// PlanReviewRound is one round of review of the plan, and the revision
// that followed it, if any.
type PlanReviewRound struct {
	Round   int          `json:"round"`
	Reviews []PlanReview `json:"reviews"`
	// Revised is true when the author revised the plan after this round.
	Revised bool `json:"revised"`
}

// PlanReview is one model's review of the plan.
type PlanReview struct {
	Reviewer string `json:"reviewer"`
	// Approve is true when the reviewer approved the plan as it stands.
	Approve    bool            `json:"approve"`
	Objections []PlanObjection `json:"objections"`
	RawReply
	TurnCost
}

// PlanObjection is a change a reviewer asked for, with its reason.
type PlanObjection struct {
	Reviewer string `json:"reviewer"`
	Text     string `json:"text"`
}

// WorkspaceInfo says where an agent's change was carried out.
type WorkspaceInfo struct {
	Dir    string `json:"dir"`
	Branch string `json:"branch"`
	// Base is the commit the branch started from; Head its last commit
	// ("" when nothing was committed).
	Base string `json:"base"`
	Head string `json:"head"`
}

// StepRun is one executor turn: a plan step, or a fix round.
type StepRun struct {
	// Round is "execute" for a plan step, "fix-1", "fix-2", … for a fix
	// round's turn; Step is the plan step's number (from 1), 0 in a fix
	// round.
	Round string `json:"round"`
	Step  int    `json:"step"`
	Goal  string `json:"goal"`
	// Reply is what the executor said when the turn ended.
	Reply string    `json:"reply"`
	Tools []ToolUse `json:"tools"`
	// Commit is the commit that recorded the turn's changes, "" when it
	// changed nothing.
	Commit string `json:"commit"`
	// Error says why the turn failed; "" when it did not.
	Error string `json:"error,omitempty"`
	TurnCost
}

// AgentReview is one review of the agent's branch.
type AgentReview struct {
	// Round is "final" for the review after execution, "fix-1", … for the
	// re-review after each fix round.
	Round       string          `json:"round"`
	Change      ChangeSummary   `json:"change"`
	Inspections []Inspection    `json:"inspections"`
	Findings    []MergedFinding `json:"findings"`
}

func (a *AgentResult) fillLists() {
	a.Context = nonNil(a.Context)
	a.Proposals = nonNil(a.Proposals)
	a.Votes = nonNil(a.Votes)
	a.Standings = nonNil(a.Standings)
	a.PlanReviews = nonNil(a.PlanReviews)
	a.Objections = nonNil(a.Objections)
	a.Steps = nonNil(a.Steps)
	a.Actions = nonNil(a.Actions)
	a.Reviews = nonNil(a.Reviews)
	a.Findings = nonNil(a.Findings)
	a.Sandbox.fillLists()
	for i := range a.Proposals {
		a.Proposals[i].Problems = nonNil(a.Proposals[i].Problems)
	}
	for i := range a.PlanReviews {
		rr := &a.PlanReviews[i]
		rr.Reviews = nonNil(rr.Reviews)
		for j := range rr.Reviews {
			rr.Reviews[j].Objections = nonNil(rr.Reviews[j].Objections)
			rr.Reviews[j].Problems = nonNil(rr.Reviews[j].Problems)
		}
	}
	for i := range a.Reviews {
		a.Reviews[i].Inspections = nonNil(a.Reviews[i].Inspections)
		a.Reviews[i].Findings = nonNil(a.Reviews[i].Findings)
	}
	for i := range a.Attempts {
		a.Attempts[i].fillLists()
	}
	if a.Ranking != nil {
		a.Ranking.fillLists()
	}
	if a.Plan != nil {
		a.Plan.Steps = nonNil(a.Plan.Steps)
		a.Plan.Risks = nonNil(a.Plan.Risks)
		for i := range a.Plan.Steps {
			a.Plan.Steps[i].Files = nonNil(a.Plan.Steps[i].Files)
		}
	}
}
