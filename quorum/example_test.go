package quorum_test

import (
	"context"
	"fmt"

	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/quorumtest"
)

// The examples run on simulated models (package quorumtest): they answer
// quorum's prompts, offline. With a real CLI, start a client instead —
// client, err := copilot.Start(ctx, copilot.Options{}) — and pass
// quorum.Copilot(client) and your models' ids.

// A discussion among three simulated models, moderated by a fourth.
func ExampleDiscuss() {
	ctx := context.Background()
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close() // and its client
	client := srv.Client()

	d, err := quorum.Discuss(ctx, quorum.Copilot(client),
		"Should a small team adopt microservices or keep a monolith?",
		quorumtest.Config())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range d.Standings {
		fmt.Printf("%d. Response %s (%s): mean score %.1f, Borda %g\n", s.Rank, s.Label, s.Model, s.MeanScore, s.Borda)
	}
	fmt.Printf("synthesis by %s: %d key points, %d disagreements\n", d.Synthesis.Moderator, len(d.Synthesis.KeyPoints), len(d.Synthesis.Disagreements))
	fmt.Println("degraded:", d.Degraded, "sessions left:", len(srv.Sessions()))
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
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close() // and its client
	client := srv.Client()

	p, err := quorum.Plan(ctx, quorum.Copilot(client),
		"Migrate the billing service from MySQL to Postgres without downtime",
		quorum.Config{Models: quorumtest.Participants()})
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
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close() // and its client
	client := srv.Client()

	d, err := quorum.Debate(ctx, quorum.Copilot(client),
		"A small team should adopt microservices instead of a monolith.",
		quorumtest.Config())
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
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close() // and its client
	client := srv.Client()

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
		quorum.Config{Models: quorumtest.Participants()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range r.Findings {
		fmt.Printf("%s %s %s:%d-%d (%s), %d of 3 models\n", f.ID, f.Severity, f.File, f.StartLine, f.EndLine, f.Category, f.Agreement)
	}
	fmt.Println("degraded:", r.Degraded, "sessions left:", len(srv.Sessions()))
	// Output:
	// F1 blocking store/db.go:2-3 (security), 3 of 3 models
	// F2 blocking store/db.go:4-4 (security), 3 of 3 models
	// F3 minor store/db.go:1-2 (maintainability), 2 of 3 models
	// F4 minor store/db.go:2-2 (tests), 1 of 3 models
	// degraded: false sessions left: 0
}
