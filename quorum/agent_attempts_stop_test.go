package quorum

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Attempts that stop short: cancelled, at the premium cap, without a
// workspace (the backend is agent_attempts_test.go's).

// Cancelled while every attempt works, the run stops with every
// attempt's work so far committed in its own workspace, and no judging.
func TestAgentAttemptsCancelledKeepEveryAttempt(t *testing.T) {
	b := newAttemptsBackend(2, "A", "B")
	b.stall = 2
	b.stalled.Add(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { b.stalled.Wait(); cancel() }()
	a, err := Agent(ctx, b, "add a --verbose flag", b.config())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want the cancellation", err)
	}
	if len(a.Attempts) != 2 || a.Ranking != nil || len(b.judged) != 0 {
		t.Fatalf("attempts %+v, ranking %+v, %d judgings; want both attempts, not judged", a.Attempts, a.Ranking, len(b.judged))
	}
	for _, l := range []string{"A", "B"} {
		ws := b.spaces[l]
		if len(ws.commits) == 0 || !strings.Contains(ws.commits[0], "step 1") || ws.committed["attempt-"+strings.ToLower(l)+".go"] == "" {
			t.Fatalf("attempt %s's commits %v; want step 1 committed in its own workspace", l, ws.commits)
		}
	}
	if a.Workspace == nil || a.Workspace != a.Attempts[0].Workspace {
		t.Fatalf("the result's workspace %+v; want the first attempt's, to say where the work is", a.Workspace)
	}
}

// Cancelled while judging, the run stops unjudged, and its own fields say
// where the first attempt that did not fail (here A) keeps its work.
func TestAgentAttemptsCancelledWhileJudging(t *testing.T) {
	b := newAttemptsBackend(2, "B", "A")
	b.judging = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-b.judging; cancel() }()
	a, err := Agent(ctx, b, "add a --verbose flag", b.config())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want the cancellation", err)
	}
	if a.Ranking != nil || len(a.Attempts) != 2 || a.Workspace == nil || a.Workspace != a.Attempts[0].Workspace {
		t.Fatalf("ranking %+v, workspace %+v; want no ranking, attempt A's workspace", a.Ranking, a.Workspace)
	}
}

// The premium cap holds for every attempt together: a cap the attempts
// reach stops the run with ErrPremiumCap, never past the cap, with every
// attempt's work kept.
func TestAgentAttemptsShareTheCap(t *testing.T) {
	b := newAttemptsBackend(2, "A", "B")
	cfg := b.config()
	cfg.MaxPremium = 30
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if !errors.Is(err, ErrPremiumCap) {
		t.Fatalf("err %v; want the cap", err)
	}
	if !slices.Equal(a.Premium.LeftOut, []string{"the fix round"}) {
		t.Fatalf("left out %v; want the fix round alone: the cap's estimate fits both attempts", a.Premium.LeftOut)
	}
	if a.Premium.Used > cfg.MaxPremium || a.Premium.Refused == 0 || len(a.Attempts) != 2 || a.Workspace == nil {
		t.Fatalf("premium %+v, attempts %d, workspace %+v; want at most the cap used, refusals, both attempts kept", a.Premium, len(a.Attempts), a.Workspace)
	}
	for _, l := range []string{"A", "B"} {
		if len(b.spaces[l].commits) == 0 {
			t.Fatalf("attempt %s committed nothing", l)
		}
	}
}

// A cap the attempts' estimate cannot fit drops attempts before it
// touches the plan: the last attempt first, after the fix round; down to
// one attempt the run is the one-attempt run, by the first executor.
func TestAgentCapDropsAttempts(t *testing.T) {
	b := &fakeBackend{ws: newFakeWorkspace()}
	cfg := agentConfig(b)
	cfg.Executors = []string{"m1", "m2", "m3"}
	full, err := EstimateAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cap     float64
		leftOut []string
	}{
		{full.Premium.Max, nil},
		{full.Premium.Max - 1, []string{"the fix round"}},
		{full.Premium.Max - 10, []string{"the fix round", "attempt C"}},
		{full.Premium.Max - 13, []string{"the fix round", "attempt C", "attempt B"}},
	} {
		cfg.MaxPremium = c.cap
		e, err := EstimateAgent(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(e.LeftOut, c.leftOut) || !e.Fits() {
			t.Errorf("cap %v of %v: left out %v (fits %v); want %v", c.cap, full.Premium.Max, e.LeftOut, e.Fits(), c.leftOut)
		}
	}
	// Down to one attempt, the run is the one-attempt run by m1.
	cfg.MaxPremium = full.Premium.Max - 13
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Attempts) != 0 || a.Ranking != nil || a.Executor != "m1" || a.Stage != StageReviewed ||
		!slices.Equal(a.Premium.LeftOut, []string{"the fix round", "attempt C", "attempt B"}) {
		t.Fatalf("attempts %d, ranking %+v, executor %s, stage %s, left out %v; want the one-attempt run by m1", len(a.Attempts), a.Ranking, a.Executor, a.Stage, a.Premium.LeftOut)
	}
}

// An attempt whose workspace cannot be made fails alone: the run is
// degraded, the failure names the attempt, the other attempt wins.
func TestAgentAttemptWithoutAWorkspace(t *testing.T) {
	b := newAttemptsBackend(2, "A", "B")
	b.noSpace = "A"
	b.barrier.Add(-1) // A's executor never starts
	a, err := Agent(context.Background(), b, "add a --verbose flag", b.config())
	if err != nil {
		t.Fatal(err)
	}
	if !a.Degraded || len(a.Failures) != 1 || a.Failures[0].Target != "attempt A" || !strings.Contains(a.Failures[0].Error, "the disk is full") {
		t.Fatalf("degraded %v, failures %+v; want attempt A's failure", a.Degraded, a.Failures)
	}
	if a.Attempts[0].Workspace != nil || a.Ranking == nil || a.Ranking.Winner != "B" || a.Workspace != a.Attempts[1].Workspace {
		t.Fatalf("attempts %+v, ranking %+v; want B to win", a.Attempts, a.Ranking)
	}
}
