package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
)

// agentHarness is a harness whose command runs in a fresh repository
// with a committed file and an uncommitted change, worktrees going to a
// state directory of the test's own.
func agentHarness(t *testing.T) (*harness, gittest.Snapshot) {
	h := newHarness(t)
	h.dir = gittest.NewRepo(t, map[string]string{"README.md": "# demo\n", "go.mod": "module demo\n"})
	gittest.Write(t, h.dir, map[string]string{"README.md": "# demo, edited and not committed\n"})
	h.env["XDG_STATE_HOME"] = t.TempDir()
	return h, gittest.Take(t, h.dir)
}

// worktrees lists the worktree folders the command left.
func (h *harness) worktrees() []string {
	m, _ := filepath.Glob(filepath.Join(h.env["XDG_STATE_HOME"], "quorum", "worktrees", "*", "*"))
	return m
}

// Where agent mode cannot start, it says why and what to do, exit 2,
// before any model is asked.
func TestAgentRefusesWhatItCannotStartFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T) string
		want string
	}{
		{"not a repository", func(t *testing.T) string { gittest.Isolate(t); return t.TempDir() }, "not a git repository"},
		{"bare", func(t *testing.T) string {
			gittest.Isolate(t)
			d := t.TempDir()
			gittest.Git(t, d, "init", "-q", "--bare")
			return d
		}, "bare repository"},
		{"detached HEAD", func(t *testing.T) string {
			d := gittest.NewRepo(t, map[string]string{"a": "a"})
			gittest.Git(t, d, "switch", "-q", "--detach")
			return d
		}, "HEAD is detached"},
		{"merge in progress", func(t *testing.T) string {
			d := gittest.NewRepo(t, map[string]string{"a": "base\n"})
			gittest.Diverge(t, d)
			gittest.Run(d, "merge", "other")
			return d
		}, "merge is under way"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.dir = tc.make(t)
			var events int
			h.onEvent = func(quorum.Progress) { events++ }
			o := h.run("agent", "--sim", "--yes", "do something")
			if o.code != 2 || !strings.Contains(o.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", o.code, o.stderr, tc.want)
			}
			if events != 0 {
				t.Fatalf("%d events: a model was asked", events)
			}
		})
	}
}

// Off a terminal without --yes, the agent plans, prints the plan, and
// stops: exit 0, status planned, no worktree, the repository untouched.
func TestAgentOffTerminalStopsAtThePlan(t *testing.T) {
	h, before := agentHarness(t)
	o := h.run("agent", "--sim", "-o", "json", "Add a --verbose flag")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var env struct {
		Status string             `json:"status"`
		Result quorum.AgentResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
		t.Fatalf("%v\n%s", err, o.stdout)
	}
	if env.Status != "planned" || env.Result.Stage != quorum.StagePlanned || env.Result.Plan == nil || len(env.Result.Plan.Steps) == 0 {
		t.Fatalf("status %q, stage %q, plan %+v", env.Status, env.Result.Stage, env.Result.Plan)
	}
	if wt := h.worktrees(); len(wt) != 0 {
		t.Fatalf("worktrees made without consent: %v", wt)
	}
	before.Unchanged(t)
}

// With --yes on the simulator the whole run goes through: the work is on
// a branch of its own in a worktree outside the repository, every kind of
// decision is recorded, the final review ran, and the repository (with
// its uncommitted change) is byte for byte as before. A second run makes
// a branch of its own.
func TestAgentYesCarriesItOut(t *testing.T) {
	h, before := agentHarness(t)
	var branches []string
	for range 2 {
		o := h.run("agent", "--sim", "--yes", "-o", "json", "Add a --verbose flag")
		if o.code != 0 {
			t.Fatalf("exit %d: %s", o.code, o.stderr)
		}
		var env struct {
			Status string             `json:"status"`
			Result quorum.AgentResult `json:"result"`
		}
		if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
			t.Fatalf("%v\n%s", err, o.stdout)
		}
		a := env.Result
		if env.Status != "ok" || a.Stage != quorum.StageReviewed || a.Workspace == nil || len(a.Reviews) == 0 {
			t.Fatalf("status %q, stage %q, workspace %+v, reviews %d", env.Status, a.Stage, a.Workspace, len(a.Reviews))
		}
		if !strings.HasPrefix(a.Workspace.Dir, h.env["XDG_STATE_HOME"]) {
			t.Fatalf("the worktree %s is not under the state directory", a.Workspace.Dir)
		}
		if notes := gittest.Git(t, h.dir, "show", a.Workspace.Branch+":QUORUM_SIM_NOTES.md"); !strings.Contains(notes, "# Notes") {
			t.Fatalf("the branch's notes: %q", notes)
		}
		seen := map[string]bool{}
		for _, rec := range a.Actions {
			seen[rec.Action.Kind+map[bool]string{true: "+", false: "-"}[rec.Allow]+rec.By] = true
		}
		for _, k := range []string{"write+policy", "shell+quorum", "url-policy"} {
			if !seen[k] {
				t.Errorf("no %s decision among %v", k, seen)
			}
		}
		// The read outside the worktree never reaches the gate: the
		// executor runs in the sandbox by default, which refuses it first
		// and records it.
		if a.Sandbox == nil {
			t.Fatal("no sandbox recorded")
		}
		denied := 0
		for _, d := range a.Sandbox.Decisions {
			if d.Kind == "access_denied" {
				denied++
			}
		}
		if !a.Sandbox.Enabled || a.Sandbox.Unconfined || a.Sandbox.Network != "blocked" || denied == 0 {
			t.Errorf("sandbox %+v: want enabled, network blocked, the outside read denied", a.Sandbox)
		}
		branches = append(branches, a.Workspace.Branch)
	}
	if branches[0] == branches[1] {
		t.Fatalf("two runs share the branch %s", branches[0])
	}
	before.Unchanged(t)
}

// --no-sandbox runs as before the sandbox: warned about on the terminal,
// recorded in the result, the outside read decided (and denied) by the
// gate instead of the sandbox; the repository unchanged.
func TestAgentNoSandboxIsWarnedAndRecorded(t *testing.T) {
	h, before := agentHarness(t)
	o := h.run("agent", "--sim", "--yes", "--no-sandbox", "-o", "json", "Add a --verbose flag")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stderr, "warning: --no-sandbox: the executor's commands run unconfined") {
		t.Errorf("no warning on stderr:\n%s", o.stderr)
	}
	var env struct {
		Result quorum.AgentResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
		t.Fatalf("%v\n%s", err, o.stdout)
	}
	a := env.Result
	if a.Sandbox == nil || !a.Sandbox.Unconfined || a.Sandbox.Enabled {
		t.Fatalf("sandbox %+v: want unconfined", a.Sandbox)
	}
	gate := false
	for _, rec := range a.Actions {
		gate = gate || (rec.Action.Kind == "read" && !rec.Allow && rec.By == quorum.ByPolicy)
	}
	if !gate {
		t.Errorf("the outside read was not denied by the gate: %+v", a.Actions)
	}
	text := h.run("agent", "--sim", "--yes", "--no-sandbox", "--show", "sandbox", "Add a --verbose flag")
	if text.code != 0 || !strings.Contains(text.stdout, "Unconfined (--no-sandbox)") {
		t.Errorf("exit %d; the report does not say the run was unconfined:\n%s", text.code, text.stdout)
	}
	before.Unchanged(t)
}

// The sandbox's flags reach the agent's configuration; --allow-host
// allows only the hosts named.
func TestAgentSandboxFlags(t *testing.T) {
	h, _ := agentHarness(t)
	o := h.run("agent", "--sim", "--yes", "--allow-host", "proxy.golang.org", "--mask-env", "MY_SECRET", "-o", "json", "Add a --verbose flag")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var env struct {
		Result quorum.AgentResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &env); err != nil {
		t.Fatalf("%v\n%s", err, o.stdout)
	}
	sb := env.Result.Sandbox
	if sb == nil || !sb.Enabled || sb.Network != "hosts" || !slices.Contains(sb.AllowedHosts, "proxy.golang.org") || !slices.Contains(sb.MaskedEnv, "MY_SECRET") {
		t.Fatalf("sandbox %+v", sb)
	}
}

// --approve ask needs someone to ask; an unknown mode is refused.
func TestAgentApproveModes(t *testing.T) {
	h, _ := agentHarness(t)
	if o := h.run("agent", "--sim", "--yes", "--approve", "ask", "t"); o.code != 2 || !strings.Contains(o.stderr, "needs a terminal") {
		t.Fatalf("--approve ask off a terminal: exit %d, %s", o.code, o.stderr)
	}
	if o := h.run("agent", "--sim", "--yes", "--approve", "sometimes", "t"); o.code != 2 || !strings.Contains(o.stderr, "ask, quorum, auto or never") {
		t.Fatalf("--approve sometimes: exit %d, %s", o.code, o.stderr)
	}
	o := h.run("agent", "--sim", "--yes", "--approve", "never", "-o", "json", "t")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var env struct{ Result quorum.AgentResult }
	json.Unmarshal([]byte(o.stdout), &env)
	for _, rec := range env.Result.Actions {
		if rec.Action.Kind == copilot.PermissionKindShell && (rec.Allow || rec.By != quorum.ByNever) {
			t.Fatalf("--approve never: %+v", rec)
		}
	}
}

// cmdutil.Interrupted while the executor works, the command exits 130, prints
// the report so far, and keeps the worktree and the branch with the work
// done, which the report names.
func TestAgentInterruptKeepsTheWork(t *testing.T) {
	h, before := agentHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	interrupt, ctrlC := context.WithCancel(ctx)
	defer ctrlC()
	var once sync.Once
	h.onEvent = func(ev quorum.Progress) {
		// The second step's start: the first is committed by then.
		if ev.Kind == quorum.ModelStarted && ev.Phase == quorum.PhaseExecute && ev.Target == "2" {
			once.Do(ctrlC)
		}
	}
	o := h.runContext(interrupt, "agent", "--sim", "--yes", "Add a --verbose flag")
	if o.code != 130 {
		t.Fatalf("exit %d, want 130: %s", o.code, o.stderr)
	}
	wt := h.worktrees()
	if len(wt) != 1 {
		t.Fatalf("worktrees %v, want the one kept", wt)
	}
	for _, want := range []string{"interrupted", "git worktree remove " + wt[0], "Step 1:"} {
		if !strings.Contains(flat(o.stdout), want) {
			t.Errorf("the report lacks %q:\n%s", want, o.stdout)
		}
	}
	branch := strings.TrimSpace(gittest.Git(t, h.dir, "branch", "--list", "quorum/*", "--format=%(refname:short)"))
	if branch == "" {
		t.Fatal("no branch kept")
	}
	if log := gittest.Git(t, h.dir, "log", "--oneline", branch); !strings.Contains(log, "step 1") {
		t.Fatalf("step 1 is not committed on %s:\n%s", branch, log)
	}
	before.Unchanged(t)
	if _, err := os.Stat(wt[0]); err != nil {
		t.Fatal(err)
	}
}

// --sarif writes the final review, --transcript every prompt and event,
// --show picks sections, as for the other commands.
func TestAgentOutputsAsTheOthers(t *testing.T) {
	h, _ := agentHarness(t)
	out := t.TempDir()
	sarif, transcript := filepath.Join(out, "r.sarif"), filepath.Join(out, "t.jsonl")
	o := h.run("agent", "--sim", "--yes", "-q", "--sarif", sarif, "--transcript", transcript, "--show", "actions,next", "t")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(sarif)
	if err != nil || json.Unmarshal(b, &log) != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || !log.Runs[0].Invocations[0].ExecutionSuccessful {
		t.Fatalf("the SARIF file (%v): %s", err, b)
	}
	tr, err := os.ReadFile(transcript)
	if err != nil || !strings.Contains(string(tr), "[quorum:execute]") || !strings.Contains(string(tr), "action_decided") {
		t.Fatalf("the transcript (%v) lacks the executor's prompts or the gate's decisions", err)
	}
	low := strings.ToLower(o.stdout)
	if !strings.Contains(low, "permission decisions") || !strings.Contains(low, "what now") || strings.Contains(low, "proposals") {
		t.Fatalf("--show actions,next:\n%s", o.stdout)
	}
}

// Without a state directory, and without --worktree-root, the agent says
// what to set before any model is asked.
func TestAgentWithoutAStateDirectory(t *testing.T) {
	h, before := agentHarness(t)
	h.env["XDG_STATE_HOME"], h.env["HOME"] = "", ""
	o := h.run("agent", "--sim", "--yes", "t")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "XDG_STATE_HOME") || !strings.Contains(o.stderr, "--worktree-root") {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	before.Unchanged(t)
}
