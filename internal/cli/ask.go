package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/copilot"
)

// askResult is `quorum ask -o json`.
type askResult struct {
	Simulated  bool          `json:"simulated"`
	Model      string        `json:"model"`
	Question   string        `json:"question"`
	Answer     string        `json:"answer"`
	DurationMS int64         `json:"duration_ms"`
	Usage      copilot.Usage `json:"usage"`
}

func runAsk(ctx context.Context, inv *invocation) error {
	q, err := inv.topic("question")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, inv.cfg.duration("timeout"))
	defer cancel()
	c, closeClient, err := inv.connect(ctx)
	if err != nil {
		return err
	}
	defer closeClient()
	models, err := inv.resolveModels(ctx, c, 1)
	if err != nil {
		return err
	}
	s, err := c.NewSession(ctx, copilot.SessionConfig{Model: models[0], BuiltinTools: copilot.NoBuiltinTools})
	if err != nil {
		return err
	}
	defer s.Destroy(context.WithoutCancel(ctx))
	jsonOut := inv.cfg.str("output") == "json"
	if !jsonOut && !inv.o.quiet {
		label := models[0]
		if inv.simulated() {
			label += ", simulated"
		}
		fmt.Fprintf(inv.e.stderr, "quorum: asking %s\n", label)
	}
	var h copilot.TurnHandlers
	var wrote strings.Builder
	if !jsonOut {
		h.OnDelta = func(d string) {
			wrote.WriteString(d)
			fmt.Fprint(inv.e.stdout, d)
		}
	}
	r, err := s.Stream(ctx, q, h)
	if err != nil {
		if wrote.Len() > 0 {
			fmt.Fprintln(inv.e.stdout)
		}
		return err
	}
	if jsonOut {
		enc := json.NewEncoder(inv.e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(askResult{Simulated: inv.simulated(), Model: models[0], Question: q,
			Answer: r.Text, DurationMS: r.Duration.Milliseconds(), Usage: r.Usage})
	}
	if wrote.Len() == 0 { // a non-streaming model
		fmt.Fprint(inv.e.stdout, r.Text)
	}
	fmt.Fprintln(inv.e.stdout)
	return nil
}
