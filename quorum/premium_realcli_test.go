package quorum_test

import (
	"context"
	"errors"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/quorum"
)

// Through the real Copilot CLI, offline: the multipliers quorum prices a
// run with are the CLI's (the model API serves them), and a capped run's
// premium requests, as the CLI counts them in its assistant.usage events,
// stay within the cap — both when the cap shrinks the run before it starts
// (the peer review left out) and when the smallest run does not fit and
// the cap stops it (ErrPremiumCap, the answers kept). It fails, not skips,
// without the CLI.
func TestRealCLIPremiumCap(t *testing.T) {
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	sb := clitest.NewSandbox(t)
	models := []string{"alpha", "beta", "gamma"}
	api := sb.StartModelAPI(t, modelapi.Config{
		Models: map[string]modelapi.Responder{
			"alpha": chatPanelist("alpha"), "beta": chatPanelist("beta"), "gamma": chatPanelist("gamma"),
		},
		Multipliers: map[string]float64{"alpha": 1, "beta": 1, "gamma": 2},
	})
	ctx, cancel := context.WithTimeout(context.Background(), realGuard)
	defer cancel()
	c := startRealCLI(ctx, t, sb, bin, clitest.OfflineEnv(t, api.URL()), nil)
	mult, err := quorum.CopilotMultipliers(ctx, c)
	if err != nil || mult["gamma"] != 2 || mult["alpha"] != 1 {
		t.Fatalf("the CLI's multipliers: %v, %v", mult, err)
	}
	// cost is what the CLI reported the run's turns cost.
	cost := func(out quorum.Outcome) float64 {
		total := 0.0
		for _, call := range out.Calls {
			total += call.Usage.Cost
		}
		return total
	}

	// Answers 1+1+2, reviews 1+1+(0–2), synthesis 1: at most 9. A cap of
	// 6 leaves the peer review out: 5.
	cfg := quorum.Config{Models: models, Moderator: "alpha", Multipliers: mult, MaxPremium: 6}
	d, err := quorum.Discuss(ctx, quorum.Copilot(c), "Tabs or spaces?", cfg)
	if err != nil {
		t.Fatalf("a cap the run shrinks to fit: %v", err)
	}
	if got := cost(d.Outcome); got != 5 || d.Premium.Used != 5 || len(d.Reviews) != 0 || len(d.Premium.LeftOut) != 1 {
		t.Errorf("the CLI counted %v premium requests (quorum %v), %d reviews, left out %v; want 5, no review", got, d.Premium.Used, len(d.Reviews), d.Premium.LeftOut)
	}

	// A cap of 2.5: the smallest run, alpha and beta without review, takes
	// 1+1+1; it shrinks to that, and the cap stops it before the synthesis.
	cfg.MaxPremium = 2.5
	d, err = quorum.Discuss(ctx, quorum.Copilot(c), "Tabs or spaces?", cfg)
	if !errors.Is(err, quorum.ErrPremiumCap) {
		t.Fatalf("a cap the run cannot fit: err %v, want ErrPremiumCap", err)
	}
	if got := cost(d.Outcome); got > 2.5 || len(d.Answers) != 2 || d.Synthesis != nil || d.Premium.Refused == 0 {
		t.Errorf("the CLI counted %v premium requests past the cap of 2.5, or the answers were lost: %d answers, refused %d", got, len(d.Answers), d.Premium.Refused)
	}
}
