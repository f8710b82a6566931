package cli

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
)

// agentJSON runs quorum agent with args and -o json and returns its
// result, failing the test unless it exits 0.
func (h *harness) agentJSON(t *testing.T, args ...string) quorum.AgentResult {
	t.Helper()
	o := h.run(append(append([]string{"agent", "--sim", "--yes", "-o", "json"}, args...), "Add a --verbose flag")...)
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
	if env.Status != "ok" {
		t.Fatalf("status %q", env.Status)
	}
	return env.Result
}

// branches lists the agent's branches in the harness's repository.
func (h *harness) branches(t *testing.T) []string {
	out := strings.TrimSpace(gittest.Git(t, h.dir, "branch", "--list", "quorum/*", "--format=%(refname:short)"))
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// --attempts 2 on the simulator: two branches, -a and -b, each in a
// worktree of its own outside the repository, with visibly different
// changes; the JSON result has both attempts and the ranking, and its own
// fields are the winner's; the user's working tree, index, HEAD and files
// are as they were.
func TestAgentAttemptsOnTheSimulatorCLI(t *testing.T) {
	h, before := agentHarness(t)
	a := h.agentJSON(t, "--attempts", "2")
	if len(a.Attempts) != 2 || a.Ranking == nil || len(a.Ranking.Standings) != 2 {
		t.Fatalf("attempts %+v, ranking %+v", a.Attempts, a.Ranking)
	}
	br := h.branches(t)
	if len(br) != 2 || !strings.HasSuffix(br[0], "-a") || !strings.HasSuffix(br[1], "-b") || strings.TrimSuffix(br[0], "-a") != strings.TrimSuffix(br[1], "-b") {
		t.Fatalf("branches %v; want quorum/agent-<time>-<slug>-a and -b", br)
	}
	if diff := gittest.Git(t, h.dir, "diff", br[0], br[1], "--", "QUORUM_SIM_NOTES.md"); !strings.Contains(diff, "Attempt A's approach") || !strings.Contains(diff, "Attempt B's approach") {
		t.Fatalf("the attempts' branches do not differ as their executors worked:\n%s", diff)
	}
	if wt := h.worktrees(); len(wt) != 2 {
		t.Fatalf("worktrees %v; want one per attempt", wt)
	}
	for i, at := range a.Attempts {
		if at.Workspace == nil || at.Workspace.Branch != br[i] || !strings.HasPrefix(at.Workspace.Dir, h.env["XDG_STATE_HOME"]) || at.Error != "" {
			t.Fatalf("attempt %+v", at)
		}
	}
	w := a.Ranking.Winner
	if a.Workspace == nil || a.Workspace.Branch != a.Attempts[w[0]-'A'].Workspace.Branch {
		t.Fatalf("the result's branch %+v is not the winner %s's", a.Workspace, w)
	}
	before.Unchanged(t)
	text := h.run("agent", "--sim", "--yes", "--attempts", "2", "--show", "attempts,next", "Add a --verbose flag")
	for _, want := range []string{"ATTEMPTS", "Each model's judgement", "The winner, Attempt", "The other attempts are kept"} {
		if text.code != 0 || !strings.Contains(text.stdout, want) {
			t.Fatalf("exit %d; the report lacks %q:\n%s", text.code, want, text.stdout)
		}
	}
	before.Unchanged(t)
}

// --keep winner removes the losing attempts' worktrees and branches,
// --executors gives each attempt its executor.
func TestAgentKeepWinnerAndExecutors(t *testing.T) {
	h, before := agentHarness(t)
	a := h.agentJSON(t, "--executors", "sim-beta,sim-gamma", "--keep", "winner")
	if len(a.Attempts) != 2 || a.Attempts[0].Executor != "sim-beta" || a.Attempts[1].Executor != "sim-gamma" || a.Ranking == nil {
		t.Fatalf("attempts %+v", a.Attempts)
	}
	for _, at := range a.Attempts {
		if at.Removed != (at.Label != a.Ranking.Winner) {
			t.Fatalf("attempt %s removed %v, winner %s", at.Label, at.Removed, a.Ranking.Winner)
		}
	}
	br, wt := h.branches(t), h.worktrees()
	if len(br) != 1 || br[0] != a.Workspace.Branch || len(wt) != 1 || wt[0] != a.Workspace.Dir {
		t.Fatalf("branches %v, worktrees %v; want the winner's alone, %s", br, wt, a.Workspace.Branch)
	}
	before.Unchanged(t)
}

// Bad attempt flags are usage errors, before any model is asked.
func TestAgentAttemptsFlagsRefused(t *testing.T) {
	h, before := agentHarness(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--attempts", "0"}, "--attempts takes 1 to"},
		{[]string{"--keep", "some"}, "--keep takes all or winner"},
		{[]string{"--executor", "sim-alpha", "--executors", "sim-beta,sim-gamma"}, "--executors alone"},
		{[]string{"--attempts", "3", "--executors", "sim-beta,sim-gamma"}, "one executor per attempt"},
	} {
		var events int
		h.onEvent = func(quorum.Progress) { events++ }
		o := h.run(append(append([]string{"agent", "--sim", "--yes"}, c.args...), "t")...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) || events != 0 {
			t.Errorf("%v: exit %d, %d events, stderr %q; want 2, none, %q", c.args, o.code, events, o.stderr, c.want)
		}
	}
	if len(h.worktrees()) != 0 {
		t.Fatal("a refused run made a worktree")
	}
	before.Unchanged(t)
}

// Interrupted while both attempts work, the command exits 130 and keeps
// both attempts' worktrees and branches, each with its first step
// committed.
func TestAgentAttemptsInterruptKeepsEveryAttempt(t *testing.T) {
	h, before := agentHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	interrupt, ctrlC := context.WithCancel(ctx)
	defer ctrlC()
	var mu sync.Mutex
	second := 0
	h.onEvent = func(ev quorum.Progress) {
		// Both attempts' second steps have started: their first ones are
		// committed by then.
		if ev.Kind == quorum.ModelStarted && ev.Phase == quorum.PhaseExecute && strings.HasPrefix(ev.Target, "2 (attempt ") {
			mu.Lock()
			second++
			if second == 2 {
				ctrlC()
			}
			mu.Unlock()
		}
	}
	o := h.runContext(interrupt, "agent", "--sim", "--yes", "--attempts", "2", "Add a --verbose flag")
	if o.code != 130 {
		t.Fatalf("exit %d, want 130: %s", o.code, o.stderr)
	}
	br := h.branches(t)
	if len(br) != 2 || len(h.worktrees()) != 2 {
		t.Fatalf("branches %v, worktrees %v; want both attempts kept", br, h.worktrees())
	}
	for _, b := range br {
		if log := gittest.Git(t, h.dir, "log", "--oneline", b); !strings.Contains(log, "step 1") {
			t.Fatalf("step 1 is not committed on %s:\n%s", b, log)
		}
	}
	if !strings.Contains(o.stdout, "interrupted") || !strings.Contains(o.stdout, "The other attempts are kept") {
		t.Errorf("the report of the interrupted run:\n%s", o.stdout)
	}
	before.Unchanged(t)
}
