package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// pace is how fast simulated models stream.
type pace struct{ first, chunk time.Duration }

// defaultSimPace makes the simulated demo look live without being slow.
var defaultSimPace = pace{first: 150 * time.Millisecond, chunk: 25 * time.Millisecond}

// connect returns a client: the Copilot CLI started as a child, or with
// --sim the simulator in-process. close releases it.
func (inv *invocation) connect(ctx context.Context) (c *copilot.Client, close func(), err error) {
	if inv.o.sim {
		p := defaultSimPace
		if inv.e.simPace != nil {
			p = *inv.e.simPace
		}
		models := simModels(p)
		if inv.e.simModels != nil {
			models = inv.e.simModels(p)
		}
		srv := sim.NewServer(sim.Options{Models: models})
		c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{Logger: &inv.log})
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		return c, func() { c.Close(); srv.Close() }, nil
	}
	tr := copilot.Stdio
	if inv.cfg.str("transport") == "tcp" {
		tr = copilot.TCP
	}
	c, err = copilot.Start(ctx, copilot.Options{
		CLIPath:   inv.cfg.str("cli-path"),
		Args:      strings.Fields(inv.cfg.str("cli-args")),
		Transport: tr,
		Logger:    &inv.log,
	})
	if errors.Is(err, copilot.ErrCLINotFound) {
		return nil, nil, fmt.Errorf("%w\nTo try quorum without the Copilot CLI, add --sim.", err)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := c.RequireAuth(ctx); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// simulated says whether results come from the simulator, for labels.
func (inv *invocation) simulated() bool { return inv.o.sim }

// offeredModels lists the ids of the models the CLI offers, in its order.
func offeredModels(ctx context.Context, c *copilot.Client) ([]string, error) {
	offered, err := c.Models(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the CLI's models: %w", err)
	}
	ids := make([]string, len(offered))
	for i, m := range offered {
		ids[i] = m.ID
	}
	return ids, nil
}

// resolveModels returns the configured models, checked against what the CLI
// offers; with none configured, the first n it offers.
func (inv *invocation) resolveModels(ctx context.Context, c *copilot.Client, n int) ([]string, error) {
	ids, err := offeredModels(ctx, c)
	if err != nil {
		return nil, err
	}
	requested := inv.cfg.list("models")
	if len(requested) == 0 {
		if len(ids) == 0 {
			return nil, errors.New("the Copilot CLI offers no models")
		}
		return ids[:min(n, len(ids))], nil
	}
	if err := checkOffered(ids, requested...); err != nil {
		return nil, err
	}
	return requested, nil
}

// resolveQuorum returns the participants and the moderator of a discussion
// or plan, checked against what the CLI offers. With no models configured
// they are the first three the CLI offers, or on --sim simquorum's
// participants; with no moderator configured it is the first participant,
// or on --sim simquorum's moderator ("" leaves the choice to quorum).
func (inv *invocation) resolveQuorum(ctx context.Context, c *copilot.Client) (models []string, moderator string, err error) {
	ids, err := offeredModels(ctx, c)
	if err != nil {
		return nil, "", err
	}
	models, moderator = inv.cfg.list("models"), inv.cfg.str("moderator")
	if inv.o.sim {
		if parts, mod, ok := simDefaults(ids); ok {
			if len(models) == 0 {
				models = parts
			}
			if moderator == "" {
				moderator = mod
			}
		}
	}
	if len(models) == 0 {
		models = ids[:min(3, len(ids))]
	}
	check := models
	if moderator != "" {
		check = append(append([]string(nil), models...), moderator)
	}
	if err := checkOffered(ids, check...); err != nil {
		return nil, "", err
	}
	seen := map[string]bool{}
	for _, m := range models {
		if seen[m] {
			return nil, "", usagef("model %s is named twice; name each participant once", m)
		}
		seen[m] = true
	}
	if len(models) < quorum.DefaultMinModels {
		return nil, "", usagef("quorum %s needs at least %d participant models, got %d (%s); add some with -m (the CLI offers: %s)",
			inv.name, quorum.DefaultMinModels, len(models), strings.Join(models, ", "), strings.Join(ids, ", "))
	}
	return models, moderator, nil
}

// checkOffered reports the models that the CLI does not offer, with the
// list of those it does.
func checkOffered(ids []string, models ...string) error {
	var unknown []string
	for _, m := range models {
		if !slices.Contains(ids, m) && !slices.Contains(unknown, m) {
			unknown = append(unknown, m)
		}
	}
	if len(unknown) > 0 {
		return usagef("unknown model %s; the Copilot CLI offers: %s", strings.Join(unknown, ", "), strings.Join(ids, ", "))
	}
	return nil
}
