package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
)

// planningPhases are the phases --plan leaves out.
var planningPhases = []quorum.Phase{quorum.PhasePropose, quorum.PhaseVote, quorum.PhasePlanReview, quorum.PhaseRevise}

// agentEnvelope is quorum agent's JSON output.
type agentEnvelope struct {
	Status string             `json:"status"`
	Result quorum.AgentResult `json:"result"`
}

func decodeAgent(t *testing.T, o outcome) quorum.AgentResult {
	t.Helper()
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var env agentEnvelope
	if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
		t.Fatalf("%v\n%s", err, o.stdout)
	}
	return env.Result
}

// Off a terminal the agent stops at its plan; the JSON it printed, saved,
// is carried out later with --plan as it is: no model is asked to
// propose, vote on, review or revise a plan, the task is the saved run's,
// the work lands on a branch of its own, and the repository (with its
// uncommitted change) and the saved file are as they were.
func TestAgentCarriesOutASavedPlan(t *testing.T) {
	h, before := agentHarness(t)
	planned := h.run("agent", "--sim", "-o", "json", "Add a --verbose flag")
	if p := decodeAgent(t, planned); p.Stage != quorum.StagePlanned || p.Plan == nil {
		t.Fatalf("the first run: stage %q, plan %+v", p.Stage, p.Plan)
	}
	saved := filepath.Join(t.TempDir(), "saved.json")
	if err := os.WriteFile(saved, []byte(planned.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	var first agentEnvelope
	json.Unmarshal([]byte(planned.stdout), &first)

	var started []quorum.Phase
	h.onEvent = func(ev quorum.Progress) {
		if ev.Kind == quorum.ModelStarted {
			started = append(started, ev.Phase)
		}
	}
	a := decodeAgent(t, h.run("agent", "--sim", "--yes", "--plan", saved, "-o", "json"))
	for _, c := range a.Calls {
		if slices.Contains(planningPhases, c.Phase) {
			t.Errorf("a %s call by %s: the saved plan was planned again", c.Phase, c.Model)
		}
	}
	for _, p := range started {
		if slices.Contains(planningPhases, p) {
			t.Errorf("a model started a %s turn", p)
		}
	}
	if len(a.Calls) == 0 || !slices.Contains(started, quorum.PhaseExecute) {
		t.Fatalf("calls %+v, turns started %v: the plan was not carried out", a.Calls, started)
	}
	if !a.PlanGiven || a.PlanFrom != saved || len(a.Proposals) != 0 || len(a.PlanReviews) != 0 {
		t.Fatalf("planGiven %v, planFrom %q, %d proposals, %d plan reviews", a.PlanGiven, a.PlanFrom, len(a.Proposals), len(a.PlanReviews))
	}
	if a.Task != first.Result.Task || !reflect.DeepEqual(a.Plan, first.Result.Plan) {
		t.Fatalf("carried out %q: %+v; want the saved run's task and plan %+v", a.Task, a.Plan, first.Result.Plan)
	}
	if a.Stage != quorum.StageReviewed || a.Executor != a.Plan.Author || len(a.Steps) != len(a.Plan.Steps) || a.Workspace == nil {
		t.Fatalf("stage %q, executor %q (author %q), %d steps for %d, workspace %+v", a.Stage, a.Executor, a.Plan.Author, len(a.Steps), len(a.Plan.Steps), a.Workspace)
	}
	if !strings.HasPrefix(a.Workspace.Dir, h.env["XDG_STATE_HOME"]) {
		t.Fatalf("the worktree %s is not under the state directory", a.Workspace.Dir)
	}
	if notes := gittest.Git(t, h.dir, "show", a.Workspace.Branch+":QUORUM_SIM_NOTES.md"); !strings.Contains(notes, a.Plan.Steps[0].Goal) {
		t.Fatalf("the branch's notes do not follow the saved plan: %q", notes)
	}
	if b, err := os.ReadFile(saved); err != nil || string(b) != planned.stdout {
		t.Fatalf("the saved plan's file changed (%v)", err)
	}
	// The text report says where the plan came from.
	text := h.run("agent", "--sim", "--yes", "--plan", saved, "--show", "plan")
	if text.code != 0 || !strings.Contains(flat(text.stdout), "given (from "+saved+"), not planned in this run") {
		t.Errorf("exit %d; the report does not say the plan was given:\n%s", text.code, text.stdout)
	}
	before.Unchanged(t)
}

// A plan file (the gate's edit format) on stdin needs the task beside it;
// a dry run prices only what the plan leaves: no planning phase, a turn
// per step.
func TestAgentPlanFileOnStdin(t *testing.T) {
	h, before := agentHarness(t)
	h.stdin = `{"title":"Notes","author":"","steps":[{"goal":"Write the release notes","files":["NOTES.md"],"check":"cat NOTES.md"},{"goal":"Link them from the README","files":["README.md"],"check":"grep NOTES README.md"}],"risks":[]}`
	if o := h.run("agent", "--sim", "--yes", "--plan", "-"); o.code != 2 || !strings.Contains(o.stderr, `give the task too: quorum agent --plan - "TASK"`) {
		t.Fatalf("a plan file without a task: exit %d, %s", o.code, o.stderr)
	}
	dry := h.run("agent", "--sim", "--yes", "--plan", "-", "--dry-run", "-o", "json", "Write release notes")
	if dry.code != 0 {
		t.Fatalf("--dry-run: exit %d: %s", dry.code, dry.stderr)
	}
	est := decodePremium(t, dry.stdout).Result.Estimate
	for _, p := range est.Phases {
		if slices.Contains(planningPhases, p.Phase) {
			t.Errorf("the estimate prices a %s phase", p.Phase)
		}
		if p.Phase == quorum.PhaseExecute && (p.Turns.Min != 2 || p.Turns.Max != 2) {
			t.Errorf("the execute phase: %+v; want a turn per step (2)", p.Turns)
		}
	}
	a := decodeAgent(t, h.run("agent", "--sim", "--yes", "--plan", "-", "-o", "json", "Write release notes"))
	if !a.PlanGiven || a.PlanFrom != "stdin" || a.Task != "Write release notes" || a.Executor != a.Models[0] || len(a.Steps) != 2 || a.Steps[1].Goal != "Link them from the README" {
		t.Fatalf("planGiven %v from %q, task %q, executor %q, steps %+v", a.PlanGiven, a.PlanFrom, a.Task, a.Executor, a.Steps)
	}
	before.Unchanged(t)
}

// What cannot be carried out is a usage error (exit 2) that says what is
// wrong and what to do, before any model is asked and before any
// worktree is made.
func TestAgentPlanRefusesWhatItCannotCarryOut(t *testing.T) {
	h, before := agentHarness(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	savedRun := `{"command":"agent","status":"planned","result":{"task":"Add a --verbose flag","stage":"planned","plan":{"title":"t","author":"sim-alpha","steps":[{"goal":"g","files":[],"check":""}],"risks":[]}}}`
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not JSON", []string{"--plan", write("junk.json", "quorum: planning…\n")}, "is not JSON"},
		{"no plan", []string{"--plan", write("failed.json", `{"command":"agent","status":"interrupted","result":{"task":"t","stage":"","plan":null}}`)}, "stopped before the plan was made"},
		{"no steps", []string{"--plan", write("empty.json", `{"title":"t","steps":[]}`), "t"}, "has no steps"},
		{"another command", []string{"--plan", write("plan.json", `{"command":"plan","status":"ok","result":{"task":"t"}}`)}, `output of quorum "plan"`},
		{"missing", []string{"--plan", filepath.Join(dir, "missing.json")}, "cannot read the plan file"},
		{"another task", []string{"--plan", write("run.json", savedRun), "Fix the router"}, `was made for the task "Add a --verbose flag", not "Fix the router"`},
		{"and --solo", []string{"--plan", write("run2.json", savedRun), "--solo", "sim-alpha"}, "give one or the other"},
		{"and --max-revisions", []string{"--plan", write("run3.json", savedRun), "--max-revisions", "1"}, "leave --max-revisions out"},
		{"both on stdin", []string{"--plan", "-", "-"}, "cannot both come from stdin"},
		{"no task, no plan", nil, "needs a task"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var events int
			h.onEvent = func(quorum.Progress) { events++ }
			o := h.run(append([]string{"agent", "--sim", "--yes"}, tc.args...)...)
			if o.code != 2 || !strings.Contains(o.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", o.code, o.stderr, tc.want)
			}
			if strings.Contains(o.stderr, "panic") || events != 0 {
				t.Fatalf("%d events, stderr %q", events, o.stderr)
			}
		})
	}
	if wt := h.worktrees(); len(wt) != 0 {
		t.Fatalf("worktrees made for refused plans: %v", wt)
	}
	o := h.run("agent", "--sim", "--yes", "--plan", filepath.Join(dir, "junk.json"))
	if !strings.Contains(o.stderr, "give the JSON quorum agent -o json printed") {
		t.Errorf("a bad file's message does not say what to give: %s", o.stderr)
	}
	before.Unchanged(t)
}
