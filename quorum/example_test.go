package quorum_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// simulated connects a client to the simulated Copilot server, serving
// simquorum's participants and moderator. With a real CLI, start one
// instead: client, err := copilot.Start(ctx, copilot.Options{}).
func simulated(ctx context.Context) (*copilot.Client, *sim.Server, error) {
	srv := sim.NewServer(sim.Options{Models: simquorum.Models()})
	client, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return client, srv, nil
}

// A discussion among three simulated models, moderated by a fourth.
func ExampleDiscuss() {
	ctx := context.Background()
	client, srv, err := simulated(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	defer client.Close()

	d, err := quorum.Discuss(ctx, quorum.Copilot(client),
		"Should a small team adopt microservices or keep a monolith?",
		quorum.Config{Models: simquorum.Participants, Moderator: simquorum.Moderator})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range d.Standings {
		fmt.Printf("%d. Response %s (%s): mean score %.1f, Borda %g\n", s.Rank, s.Label, s.Model, s.MeanScore, s.Borda)
	}
	fmt.Printf("synthesis by %s: %d key points, %d disagreements\n", d.Synthesis.Moderator, len(d.Synthesis.KeyPoints), len(d.Synthesis.Disagreements))
	fmt.Println("degraded:", d.Degraded, "sessions left:", len(srv.LiveSessions()))
	// Output:
	// 1. Response B (sim-gamma): mean score 8.5, Borda 2
	// 2. Response C (sim-beta): mean score 7.5, Borda 1
	// 3. Response A (sim-alpha): mean score 6.0, Borda 0
	// synthesis by sim-moderator: 3 key points, 1 disagreements
	// degraded: false sessions left: 0
}

// Ensemble planning: every plan scored by every other model; the highest
// mean score wins.
func ExamplePlan() {
	ctx := context.Background()
	client, srv, err := simulated(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	defer client.Close()

	p, err := quorum.Plan(ctx, quorum.Copilot(client),
		"Migrate the billing service from MySQL to Postgres without downtime",
		quorum.Config{Models: simquorum.Participants})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d plans, %d votes\n", len(p.Proposals), len(p.Votes))
	for _, s := range p.Standings {
		fmt.Printf("%d. Plan %s (%s): mean score %.1f from %d votes\n", s.Rank, s.Label, s.Model, s.MeanScore, s.Scores)
	}
	fmt.Println(p.Reason)
	// Output:
	// 3 plans, 6 votes
	// 1. Plan C (sim-alpha): mean score 7.5 from 2 votes
	// 2. Plan A (sim-beta): mean score 6.5 from 2 votes
	// 3. Plan B (sim-gamma): mean score 6.0 from 2 votes
	// Plan C (sim-alpha) won with the highest mean score, 7.50 from 2 votes, against 6.50 for Plan A (sim-beta).
}

// A structured debate: two simulated proponents against one opponent, and
// a moderator's verdict. The opponent's objections go into a ledger; the
// debate ends when no blocking objection stands, or after the last round.
func ExampleDebate() {
	ctx := context.Background()
	client, srv, err := simulated(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	defer client.Close()

	d, err := quorum.Debate(ctx, quorum.Copilot(client),
		"A small team should adopt microservices instead of a monolith.",
		quorum.Config{Models: simquorum.Participants, Moderator: simquorum.Moderator})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, db := range d.Debaters {
		fmt.Printf("%s %s: %s\n", db.Side, db.Label, db.Model)
	}
	for _, o := range d.Ledger {
		fmt.Printf("%s [%s] %s\n", o.ID, o.Severity, o.Status)
	}
	fmt.Println(d.End.Reason)
	fmt.Printf("verdict by %s: %s; blocking objections standing: %d\n", d.Verdict.Moderator, d.Verdict.Position, len(d.Verdict.Standing.Blocking))
	// Output:
	// proponent C: sim-alpha
	// opponent B: sim-beta
	// proponent A: sim-gamma
	// O1 [blocking] answered
	// O2 [major] answered
	// O3 [minor] answered
	// O4 [minor] answered
	// All 2 rounds were held; no blocking objection stood after the last.
	// verdict by sim-moderator: for; blocking objections standing: 0
}

// A review of a change by three simulated models: their findings merged,
// ranked by severity and by how many models agree.
func ExampleReview() {
	ctx := context.Background()
	client, srv, err := simulated(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	defer client.Close()

	diff := `diff --git a/store/db.go b/store/db.go
--- a/store/db.go
+++ b/store/db.go
@@ -1,3 +1,5 @@
 func FindUser(db *sql.DB, name string) (*sql.Rows, error) {
-	return db.Query("SELECT * FROM users WHERE name = $1", name)
+	// TODO: paginate
+	password := "hunter2"
+	return db.Query("SELECT * FROM users WHERE name = '" + name + "'")
 }
`
	r, err := quorum.Review(ctx, quorum.Copilot(client), quorum.Change{Diff: diff},
		quorum.Config{Models: simquorum.Participants})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range r.Findings {
		fmt.Printf("%s %s %s:%d-%d (%s), %d of 3 models\n", f.ID, f.Severity, f.File, f.StartLine, f.EndLine, f.Category, f.Agreement)
	}
	fmt.Println("degraded:", r.Degraded, "sessions left:", len(srv.LiveSessions()))
	// Output:
	// F1 blocking store/db.go:2-3 (security), 3 of 3 models
	// F2 blocking store/db.go:4-4 (security), 3 of 3 models
	// F3 minor store/db.go:1-2 (maintainability), 2 of 3 models
	// F4 minor store/db.go:2-2 (tests), 1 of 3 models
	// degraded: false sessions left: 0
}

// An agent on the simulator, in a throwaway repository: the models plan,
// review and revise the plan, it is approved, the simulated executor
// carries it out in a worktree of a new branch, every action it asks for
// is decided by the gate, and the other models review the result. The
// repository's own working tree is never touched.
func ExampleAgent() {
	ctx := context.Background()
	client, srv, err := simulated(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	defer client.Close()

	dir, _ := os.MkdirTemp("", "agent-example-")
	defer os.RemoveAll(dir)
	for _, args := range [][]string{{"init", "-q", "-b", "main", "repo"}, {"-C", "repo", "-c", "user.name=Example", "-c", "user.email=example@localhost", "commit", "-q", "--allow-empty", "-m", "initial"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			fmt.Println(err, string(out))
			return
		}
	}
	repo, err := workspace.Open(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		fmt.Println(err)
		return
	}
	task := "Document how we cut a release"
	a, err := quorum.Agent(ctx, quorum.Copilot(client), task, quorum.AgentConfig{
		Config: quorum.Config{Models: simquorum.Participants},
		// The human gate: a real program shows the plan and asks.
		Approve: func(ctx context.Context, p quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			return repo.NewWorktree(ctx, task, workspace.Options{Root: filepath.Join(dir, "worktrees")})
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stage %s, plan by %s, %d review rounds\n", a.Stage, a.Plan.Author, len(a.PlanReviews))
	for _, st := range a.Steps {
		fmt.Printf("%s %d: %d tool calls, committed: %v\n", st.Round, st.Step, len(st.Tools), st.Commit != "")
	}
	for _, rec := range a.Actions[:5] {
		fmt.Printf("%s: allowed %v by %s\n", rec.Action.Kind, rec.Allow, rec.By)
	}
	denied := 0
	for _, d := range a.Sandbox.Decisions {
		if d.Kind == "access_denied" {
			denied++
		}
	}
	// The read outside the worktree never reaches the gate: the sandbox
	// refuses it first.
	fmt.Printf("sandboxed %v, network %s, %d access denied by the sandbox\n", a.Sandbox.Enabled, a.Sandbox.Network, denied)
	fmt.Printf("reviewed by %d models, %d findings left\n", len(a.Reviews[0].Inspections), len(a.Findings))
	// Output:
	// stage reviewed, plan by sim-gamma, 2 review rounds
	// execute 1: 5 tool calls, committed: true
	// execute 2: 2 tool calls, committed: true
	// execute 3: 2 tool calls, committed: true
	// read: allowed true by policy
	// write: allowed true by policy
	// shell: allowed true by quorum
	// url: allowed false by policy
	// write: allowed true by policy
	// sandboxed true, network blocked, 1 access denied by the sandbox
	// reviewed by 2 models, 0 findings left
}
