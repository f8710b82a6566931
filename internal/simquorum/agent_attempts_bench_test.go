package simquorum_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// BenchmarkAgentAttempts is the wall time of an agent run's execution
// (every attempt's steps, reviews and fixes) with 1, 2 and 4 attempts,
// on the simulator with every model turn paced as a model streams (first
// token after 40 ms, 5 ms a chunk), and of the judging that follows
// several. It reports the execution's ratio to one attempt's, measured in
// the same benchmark: attempts run together, so the ratio stays near 1
// (the goal is at most 1.3 at 4 attempts) rather than N; the judging is
// one more phase of one turn per model.
func BenchmarkAgentAttempts(b *testing.B) {
	var one float64
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("attempts=%d", n), func(b *testing.B) {
			var total, judging time.Duration
			for b.Loop() {
				e, j := executeTime(b, n)
				total, judging = total+e, judging+j
			}
			ms := float64(total.Microseconds()) / 1000 / float64(b.N)
			if n == 1 {
				one = ms
			}
			b.ReportMetric(ms, "ms/execution")
			b.ReportMetric(float64(judging.Microseconds())/1000/float64(b.N), "ms/judging")
			if one > 0 {
				b.ReportMetric(ms/one, "x-one-attempt")
			}
		})
	}
}

// executeTime runs an agent of n attempts and returns the time from the
// plan's approval to the judging's start (every attempt carried out and
// reviewed), and the judging's time (0 for one attempt).
func executeTime(b *testing.B, n int) (execution, judging time.Duration) {
	b.StopTimer()
	defer b.StartTimer()
	repo := gittest.NewRepo(b, map[string]string{"README.md": "# demo\n"})
	srv := sim.NewServer(sim.Options{Models: sim.Paced(simquorum.Models(), 40*time.Millisecond, 5*time.Millisecond)})
	defer srv.Close()
	ctx := context.Background()
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, err := workspace.Open(ctx, repo)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	var mu sync.Mutex
	var start, judged time.Time
	progress := func(ev quorum.Progress) {
		if ev.Kind == quorum.PhaseStarted && ev.Phase == quorum.PhaseJudge {
			mu.Lock()
			judged = ev.Time
			mu.Unlock()
		}
	}
	a, err := quorum.Agent(ctx, quorum.Copilot(c), "Document the release process", quorum.AgentConfig{
		Config:   quorum.Config{Models: simquorum.Participants, MaxConcurrency: 16, Progress: progress},
		Attempts: n,
		Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
			mu.Lock()
			start = time.Now()
			mu.Unlock()
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			label, _ := quorum.AttemptLabel(ctx)
			mu.Lock()
			defer mu.Unlock()
			return r.NewWorktree(ctx, "Document the release process", workspace.Options{Root: root, Suffix: strings.ToLower(label)})
		},
	})
	if err != nil || a.Stage != quorum.StageReviewed {
		b.Fatalf("Agent: %v (stage %s)", err, a.Stage)
	}
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if judged.IsZero() {
		judged = end
	}
	return judged.Sub(start), end.Sub(judged)
}
