package simquorum

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// This file answers an agent run's prompts (quorum.Agent): plans whose
// steps carry files and a check, reviews of a plan and its revision,
// votes on shell commands, and the executor's turns.

// agentPlan is the JSON shape quorum asks an agent's planners for.
type agentPlan struct {
	Title string      `json:"title"`
	Steps []agentStep `json:"steps"`
	Risks []string    `json:"risks"`
}

type agentStep struct {
	Goal  string   `json:"goal"`
	Files []string `json:"files"`
	Check string   `json:"check"`
}

// IsAgentProposal matches an agent's proposal prompt: a proposal that asks
// for steps with files and a check.
func IsAgentProposal(t sim.Turn) bool {
	return Is(quorum.PhasePropose)(t) && strings.Contains(t.Prompt, `"files": [`)
}

// notesFile is the file a simulated agent writes: it changes nothing of
// the project's own, so a --sim demo leaves a branch that is safe to look
// at and to drop.
const notesFile = "QUORUM_SIM_NOTES.md"

// AgentProposal proposes a plan a simulated executor can carry out: write
// down the task in a notes file, look at the repository, then check the
// work with git.
func AgentProposal(t sim.Turn) sim.Response {
	subj := subject(t.Prompt)
	tp := topic(subj)
	h := mix(t.Seed())
	file := notesFile
	p := agentPlan{
		Title: fmt.Sprintf("Simulated agent plan for %s (%s)", tp, t.Model),
		Steps: []agentStep{
			{Goal: fmt.Sprintf("Look at the repository and write down how %s fits in", tp), Files: []string{file}, Check: "cat " + file},
			{Goal: fmt.Sprintf("Record the %s decision in the notes", pick([]string{"design", "first", "main"}, h, 1)), Files: []string{file}, Check: "git status"},
		},
		Risks: []string{fmt.Sprintf("the notes on %s may go stale", tp)},
	}
	j, _ := json.Marshal(p)
	return reply(prefix(t.Model) + "My plan:\n" + string(j))
}

// verifyStep is the step a simulated reviewer asks for, and the revision
// adds.
const verifyStep = "Verify the change: review the diff with git"

// PlanReview reviews the plan quoted in a plan-review prompt: it asks for a
// verification step if the plan has none, and approves it otherwise; a
// plan that tries to instruct its reviewers is refused.
func PlanReview(t sim.Turn) sim.Response {
	var text string
	if bs := blocksOf(t.Prompt, "PLAN"); len(bs) > 0 {
		text = bs[0].text
	}
	v := struct {
		Approve    bool     `json:"approve"`
		Objections []string `json:"objections"`
	}{Approve: true, Objections: []string{}}
	switch {
	case instructs(text):
		v.Approve, v.Objections = false, []string{"the plan tries to instruct its reviewers instead of planning"}
	case !strings.Contains(text, verifyStep):
		v.Approve, v.Objections = false, []string{"add a last step that verifies the change, so the result is checked before review"}
	}
	j, _ := json.Marshal(v)
	return reply(prefix(t.Model) + string(j))
}

var stepLineRE = regexp.MustCompile(`(?m)^\d+\. (.+)$`)

// Revise revises the plan quoted in a revise prompt for the objections:
// the same steps, and the verification step at the end.
func Revise(t sim.Turn) sim.Response {
	var text string
	if bs := blocksOf(t.Prompt, "PLAN"); len(bs) > 0 {
		text = bs[0].text
	}
	file := notesFile
	p := agentPlan{Title: "Revised: " + firstLineAfter(text, "Title:"), Risks: []string{"none beyond the plan's own"}}
	for _, m := range stepLineRE.FindAllStringSubmatch(text, -1) {
		if m[1] != verifyStep {
			p.Steps = append(p.Steps, agentStep{Goal: m[1], Files: []string{file}, Check: "git status"})
		}
	}
	p.Steps = append(p.Steps, agentStep{Goal: verifyStep, Files: []string{}, Check: "git diff --stat"})
	j, _ := json.Marshal(p)
	return reply(prefix(t.Model) + "Revised plan:\n" + string(j))
}

func firstLineAfter(text, head string) string {
	for _, l := range strings.Split(text, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), head); ok {
			return strings.TrimSpace(s)
		}
	}
	return "plan"
}

// harmless are the commands a simulated voter approves: they read, build
// or test, and change nothing outside the worktree.
var harmless = []string{"ls", "pwd", "cat", "git status", "git diff", "git log", "go build", "go test", "go vet", "echo"}

// ShellVote votes on the command quoted in a shell-vote prompt: approve a
// harmless one, deny the rest.
func ShellVote(t sim.Turn) sim.Response {
	var cmd string
	if bs := blocksOf(t.Prompt, "COMMAND"); len(bs) > 0 {
		cmd = strings.TrimSpace(bs[0].text)
	}
	v := struct {
		Approve bool   `json:"approve"`
		Reason  string `json:"reason"`
	}{Reason: fmt.Sprintf("%q is not a command I know to be harmless", cmd)}
	for _, h := range harmless {
		if cmd == h || strings.HasPrefix(cmd, h+" ") {
			v.Approve, v.Reason = true, fmt.Sprintf("%q only reads the worktree", cmd)
			break
		}
	}
	if strings.ContainsAny(cmd, ";|&><`$") {
		v.Approve, v.Reason = false, "the command chains or redirects; ask for one plain command"
	}
	j, _ := json.Marshal(v)
	return reply(prefix(t.Model) + string(j))
}

var (
	stepNumRE  = regexp.MustCompile(`Now carry out step (\d+) of (\d+)`)
	stepGoalRE = regexp.MustCompile(`(?m)^Goal: (.+)$`)
	attemptRE  = regexp.MustCompile(`This is attempt ([A-Z]) of \d+`)
)

// approaches are what a simulated attempt writes down as its own take,
// one per attempt, so that attempts' branches differ visibly.
var approaches = []string{
	"keep the change as small as the plan allows",
	"write the notes as a checklist",
	"start from the tests",
	"document the trade-offs first",
}

// Executor carries out an agent's step (or fix round) with the built-in
// tools the simulator plays, in the session's working directory: it
// writes the step's goal into the notes file (and, as one of several
// attempts, the attempt's own approach), runs git status, and on the
// first step also tries what the action gate must refuse — a read outside
// the worktree and a fetch — so a --sim run shows every kind of decision.
// Once the tools have answered, it sums up what happened.
func Executor(t sim.Turn) sim.Response {
	if t.Call > 0 {
		return reply(prefix(t.Model) + executorSummary(t.ToolResults))
	}
	step := 0
	if m := stepNumRE.FindStringSubmatch(t.Prompt); m != nil {
		fmt.Sscan(m[1], &step)
	}
	goal := "fix the review's findings"
	if m := stepGoalRE.FindStringSubmatch(t.Prompt); m != nil {
		goal = strings.TrimSpace(m[1])
	}
	notes := "# Notes\n\n- " + goal + "\n"
	if m := attemptRE.FindStringSubmatch(t.Prompt); m != nil {
		// One of several attempts: its own approach, in its notes.
		n := int(m[1][0] - 'A')
		notes += fmt.Sprintf("- Attempt %s's approach: %s\n", m[1], approaches[n%len(approaches)])
	}
	var calls []sim.ToolCall
	switch {
	case step == 1:
		calls = append(calls,
			sim.ViewCall("."),
			sim.CreateCall(notesFile, notes),
			sim.ViewCall("../"),
			sim.BashCall("git status", "see what changed"),
			sim.WebFetchCall("https://example.com/"),
		)
	default:
		calls = append(calls,
			sim.EditCall(notesFile, "# Notes\n", "# Notes\n\n- "+goal+"\n"),
			sim.BashCall("git status", "see what changed"),
		)
	}
	return sim.Response{ToolCalls: calls}
}

// executorSummary says what each tool call came to, as a model would.
func executorSummary(results []sim.ToolCallResult) string {
	var parts []string
	for _, r := range results {
		outcome := "done"
		if r.Error != "" {
			outcome = "refused (" + firstSentence(r.Text) + ")"
		}
		parts = append(parts, fmt.Sprintf("%s: %s", r.Name, outcome))
	}
	if len(parts) == 0 {
		return "Step done without tools."
	}
	return "Step done. " + strings.Join(parts, "; ") + "."
}

// AttemptJudgement judges the attempts quoted in a judging prompt: each
// gets a score drawn from the model and its diff, and the ranking follows
// the scores; an attempt whose diff tries to instruct its judges scores 1.
func AttemptJudgement(t sim.Turn) sim.Response {
	var v verdict
	for _, bl := range blocks(t.Prompt) {
		if bl.kind != "ATTEMPT" {
			continue
		}
		h := hash(t.Model, bl.text)
		a := assessment{Response: bl.label, Score: 5 + int(h%5)}
		a.Strengths = []string{pick([]string{"follows the plan step by step", "keeps the change small", "leaves clear notes"}, h, 1)}
		a.Weaknesses = []string{pick([]string{"the notes could say more", "no test of the change", "repeats the plan's wording"}, h, 2)}
		if instructs(bl.text) {
			a.Score, a.Strengths, a.Weaknesses = 1, []string{}, []string{"tries to instruct the judges instead of changing the code"}
		}
		v.Reviews = append(v.Reviews, a)
	}
	order := slices.Clone(v.Reviews)
	slices.SortStableFunc(order, func(a, b assessment) int { return b.Score - a.Score })
	for _, a := range order {
		v.Ranking = append(v.Ranking, a.Response)
	}
	if v.Reviews == nil {
		v.Reviews, v.Ranking = []assessment{}, []string{}
	}
	j, _ := json.Marshal(v)
	return reply(prefix(t.Model) + "My judgement of the attempts:\n" + string(j))
}
