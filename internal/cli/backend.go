package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
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
		srv := sim.NewServer(sim.Options{Models: simModels(p)})
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
	c, err = copilot.Start(ctx, copilot.Options{CLIPath: inv.cfg.str("cli-path"), Transport: tr, Logger: &inv.log})
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

// resolveModels returns the configured models, checked against what the CLI
// offers; with none configured, the first n it offers.
func (inv *invocation) resolveModels(ctx context.Context, c *copilot.Client, n int) ([]string, error) {
	offered, err := c.Models(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the CLI's models: %w", err)
	}
	ids := make([]string, len(offered))
	for i, m := range offered {
		ids[i] = m.ID
	}
	requested := inv.cfg.list("models")
	if len(requested) == 0 {
		if len(ids) == 0 {
			return nil, errors.New("the Copilot CLI offers no models")
		}
		return ids[:min(n, len(ids))], nil
	}
	var unknown []string
	for _, m := range requested {
		if !contains(ids, m) {
			unknown = append(unknown, m)
		}
	}
	if mod := inv.cfg.str("moderator"); mod != "" && !contains(ids, mod) && inv.name != "ask" {
		unknown = append(unknown, mod)
	}
	if len(unknown) > 0 {
		return nil, usagef("unknown model %s; the Copilot CLI offers: %s", strings.Join(unknown, ", "), strings.Join(ids, ", "))
	}
	return requested, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
