package quorumtest_test

import (
	"context"
	"fmt"

	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/quorumtest"
)

// The example uses Start and Close, as an Example has no *testing.T; in a
// test, quorumtest.NewServer(t) does both.

// Run a quorum discussion offline, on the simulated participants and
// moderator, which answer quorum's prompts.
func Example() {
	ctx := context.Background()
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	d, err := quorum.Discuss(ctx, quorum.Copilot(srv.Client()),
		"Should a small team adopt microservices or keep a monolith?", quorumtest.Config())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range d.Standings {
		fmt.Printf("%d. %s: mean score %.1f\n", s.Rank, s.Model, s.MeanScore)
	}
	fmt.Println("synthesis by", d.Synthesis.Moderator, "- degraded:", d.Degraded, "- sessions left:", len(srv.Sessions()))
	// Output:
	// 1. sim-gamma: mean score 8.5
	// 2. sim-beta: mean score 7.5
	// 3. sim-alpha: mean score 6.0
	// synthesis by sim-moderator - degraded: false - sessions left: 0
}
