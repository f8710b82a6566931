package copilottest

import (
	"errors"
	"fmt"
	"math"

	"github.com/quorum-go/quorum/internal/sim"
)

// Premium requests, as the pinned CLI reports them: each model's
// multiplier in Client.Models (billing.multiplier), a turn's cost in
// assistant.usage (the multiplier for every model call: a turn with a tool
// call costs it twice), and the account's allowance in
// copilot.Client.PremiumQuota. By default every model counts 1 and the
// account is a Copilot Pro one with 300 premium requests a month, none
// used, resetting on the first of next month.

// ErrInvalidQuota is wrapped by the error of a Server built with a
// PremiumQuota no account can have (a negative or non-finite number), or
// with both PremiumQuota and NoPremiumQuota.
var ErrInvalidQuota = errors.New("copilottest: invalid premium quota")

// Quota is the account's premium-request allowance for PremiumQuota: the
// simulator's own type (Entitlement, Used, Unlimited, OverageAllowed,
// Overage, ResetDate; a zero ResetDate means the first day of next month,
// UTC).
type Quota = sim.Quota

// PremiumMultiplier makes one request to model count multiplier premium
// requests (default 1): Client.Models reports it as the model's
// billing.multiplier and each of its model calls' assistant.usage as its
// cost. The model must be among the Server's Models.
func PremiumMultiplier(model string, multiplier float64) Option {
	return optionFunc(func(c *config) {
		if c.multipliers == nil {
			c.multipliers = map[string]float64{}
		}
		c.multipliers[model] = multiplier
	})
}

// PremiumQuota makes the server report q as the account's allowance.
func PremiumQuota(q Quota) Option {
	return optionFunc(func(c *config) { c.quota = &q })
}

// NoPremiumQuota makes the server report no allowance, as the CLI does for
// an account whose plan it knows none of: copilot.Client.PremiumQuota
// then fails with copilot.ErrNoPremiumQuota.
func NoPremiumQuota() Option {
	return optionFunc(func(c *config) { c.noQuota = true })
}

// applyMultipliers sets the configured multipliers on the engine's models.
func (c *config) applyMultipliers(models []sim.Model) error {
	for id, x := range c.multipliers {
		i := indexOf(models, id)
		switch {
		case i < 0:
			return fmt.Errorf("%w: PremiumMultiplier names model %q, which no Model offers", ErrInvalidModel, id)
		case x < 0 || math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("%w: model %q has multiplier %v; it must be a finite number, 0 or more", ErrInvalidModel, id, x)
		}
		models[i] = models[i].WithMultiplier(x)
	}
	return nil
}

func indexOf(models []sim.Model, id string) int {
	for i, m := range models {
		if m.ID == id {
			return i
		}
	}
	return -1
}

// engineQuota is the configured allowance as the engine takes it: nil for
// the default.
func (c *config) engineQuota() (*sim.Quota, error) {
	q := c.quota
	if q == nil {
		return nil, nil
	}
	if c.noQuota {
		return nil, fmt.Errorf("%w: both PremiumQuota and NoPremiumQuota are given; give one", ErrInvalidQuota)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Entitlement", float64(q.Entitlement)}, {"Used", q.Used}, {"Overage", q.Overage}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return nil, fmt.Errorf("%w: its %s is %v; it must be a finite number, 0 or more", ErrInvalidQuota, f.name, f.v)
		}
	}
	out := *q
	return &out, nil
}
