package quorum

import (
	"context"
	"encoding/json"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// CopilotMultipliers reads each model's premium-request multiplier from
// the Copilot CLI (models.list, billing.multiplier), for
// Config.Multipliers. A model the CLI gives no multiplier is left out, and
// so counted at 1.
func CopilotMultipliers(ctx context.Context, c *copilot.Client) (Multipliers, error) {
	ms, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	return MultipliersOf(ms), nil
}

// MultipliersOf reads the multipliers of models already listed.
func MultipliersOf(ms []copilot.Model) Multipliers {
	out := Multipliers{}
	for _, m := range ms {
		var full protocol.Model
		if json.Unmarshal(m.Raw, &full) == nil && full.Billing != nil && full.Billing.Multiplier != nil && *full.Billing.Multiplier >= 0 {
			out[m.ID] = *full.Billing.Multiplier
		}
	}
	return out
}
