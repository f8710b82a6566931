package quorum

// AgentAttempt is one of several attempts at carrying out an agent's
// approved plan (AgentConfig.Attempts): its own executor, workspace,
// steps, gate decisions and reviews, as AgentResult holds them for a run
// of one attempt.
type AgentAttempt struct {
	// Label names the attempt: "A", "B", …; the judges know it by this
	// label alone.
	Label    string `json:"label"`
	Executor string `json:"executor"`
	// Stage is how far the attempt went: StageExecuted or StageReviewed.
	Stage     string          `json:"stage"`
	Workspace *WorkspaceInfo  `json:"workspace"`
	Sandbox   *SandboxInfo    `json:"sandbox"`
	Steps     []StepRun       `json:"steps"`
	Actions   []ActionRecord  `json:"actions"`
	Change    *ChangeSummary  `json:"change"`
	Reviews   []AgentReview   `json:"reviews"`
	Findings  []MergedFinding `json:"findings"`
	// Error says why the attempt stopped short; "" when it did not. One
	// attempt's failure does not stop the others.
	Error string `json:"error,omitempty"`
	// Removed is true when the attempt's worktree and branch were removed
	// after the run, having lost (quorum agent --keep winner).
	Removed bool `json:"removed,omitempty"`
}

// AttemptRanking is the models' judgement of the attempts: every model
// reads every attempt's diff and what its review found, knowing the
// attempts only by label, scores and ranks them; the rankings are
// aggregated as plan votes are (mean score, then Borda count).
type AttemptRanking struct {
	// Standings are the attempts best first. An attempt that failed or
	// kept a finding at or above AgentConfig.FailOn is HeldBack: it ranks
	// below every attempt that did not, whatever the votes.
	Standings []AttemptStanding `json:"standings"`
	// Judgements are each model's ranking with its reasons, in configured
	// model order.
	Judgements []AttemptJudgement `json:"judgements"`
	// Winner is the label of the attempt that is the run's result.
	Winner string `json:"winner"`
}

// AttemptStanding is an attempt's place in the ranking. Standing.Label is
// the attempt's label and Standing.Model its executor.
type AttemptStanding struct {
	Standing
	// HeldBack says why the attempt ranks below every attempt without a
	// reason; "" when it does not.
	HeldBack string `json:"heldBack,omitempty"`
}

// AttemptJudgement is one model's judgement of the attempts.
type AttemptJudgement struct {
	Model string `json:"model"`
	// Ranking lists labels best first; Assessments are the model's score
	// and reasons for each attempt.
	Ranking     []string     `json:"ranking"`
	Assessments []Assessment `json:"assessments"`
	RawReply
	TurnCost
}

func (t *AgentAttempt) fillLists() {
	t.Steps = nonNil(t.Steps)
	t.Actions = nonNil(t.Actions)
	t.Reviews = nonNil(t.Reviews)
	t.Findings = nonNil(t.Findings)
	t.Sandbox.fillLists()
	for i := range t.Reviews {
		t.Reviews[i].Inspections = nonNil(t.Reviews[i].Inspections)
		t.Reviews[i].Findings = nonNil(t.Reviews[i].Findings)
	}
}

func (k *AttemptRanking) fillLists() {
	k.Standings = nonNil(k.Standings)
	k.Judgements = nonNil(k.Judgements)
	for i := range k.Judgements {
		j := &k.Judgements[i]
		j.Ranking = nonNil(j.Ranking)
		j.Assessments = nonNil(j.Assessments)
		j.Problems = nonNil(j.Problems)
		for n := range j.Assessments {
			j.Assessments[n].Strengths = nonNil(j.Assessments[n].Strengths)
			j.Assessments[n].Weaknesses = nonNil(j.Assessments[n].Weaknesses)
		}
	}
}
