package quorum_test

import (
	"context"
	"fmt"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// A discussion among three simulated models, moderated by a fourth. With a
// real CLI, replace the simulator and Connect by copilot.Start.
func ExampleDiscuss() {
	srv := sim.NewServer(sim.Options{Models: simquorum.Models()})
	defer srv.Close()
	ctx := context.Background()
	client, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	d, err := quorum.Discuss(ctx, quorum.Copilot(client),
		"Should a small team adopt microservices or keep a monolith?",
		quorum.Config{Models: simquorum.Participants, Moderator: simquorum.Moderator})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range d.Ranking {
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
	srv := sim.NewServer(sim.Options{Models: simquorum.Models()})
	defer srv.Close()
	ctx := context.Background()
	client, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
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
