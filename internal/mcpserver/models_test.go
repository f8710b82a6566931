package mcpserver

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// onSim makes a fixture's server connect to a simulator of opts (with
// simquorum's models) instead of the fixture's own.
func onSim(t *testing.T, opts sim.Options) func(*Options) {
	srv := sim.NewServer(opts)
	t.Cleanup(func() { srv.Close() })
	return func(o *Options) {
		o.Connect = func(ctx context.Context) (*copilot.Client, func(), error) {
			c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
			if err != nil {
				return nil, nil, err
			}
			return c, func() { c.Close() }, nil
		}
	}
}

// The models tool gives each model's multiplier and the account's
// allowance as the CLI reports them, in its structured content and its
// text; an account without one has neither, and no complaint.
func TestModelsToolShowsMultipliersAndAllowance(t *testing.T) {
	ctx := testutil.Context(t, guard)
	reset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		opts sim.Options
		want *copilot.Quota
		line string
	}{
		{"allowance", sim.Options{PremiumQuota: &sim.Quota{Entitlement: 50, Used: 12.5, ResetDate: reset}},
			&copilot.Quota{Entitlement: 50, Used: 12.5, Remaining: 37.5, ResetDate: reset},
			"\n\nPremium requests this month: 12.5 of 50 used, 37.5 left, resets 2026-12-01.\n"},
		{"none", sim.Options{NoPremiumQuota: true}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Models = simquorum.Models()
			f := start(t, nil, onSim(t, tc.opts), nil)
			res := f.call(t, ctx, "models", map[string]any{})
			if res.IsError || res.Meta["status"] != "ok" {
				t.Fatalf("isError %v, meta %v: %s", res.IsError, res.Meta, text(res))
			}
			var m ModelsResult
			decode(t, res, &m)
			got := map[string]float64{}
			for _, x := range m.Models {
				if x.Multiplier != nil {
					got[x.ID] = *x.Multiplier
				}
			}
			if want := map[string]float64{"sim-alpha": 1, "sim-beta": 1, "sim-gamma": 0.25, "sim-moderator": 1}; !maps.Equal(got, want) {
				t.Errorf("multipliers %v, want %v", got, want)
			}
			if !strings.Contains(text(res), "| sim-gamma | Simulated sim-gamma | 0.25 |\n") {
				t.Errorf("text:\n%s", text(res))
			}
			a, _ := json.Marshal(m.Allowance)
			w, _ := json.Marshal(tc.want)
			if string(a) != string(w) {
				t.Errorf("allowance %s, want %s", a, w)
			}
			switch body := text(res); {
			case tc.line != "" && !strings.HasSuffix(body, tc.line):
				t.Errorf("text does not end with %q:\n%s", tc.line, body)
			case tc.line == "" && (strings.Contains(body, "this month") || strings.Contains(body, "allowance")):
				t.Errorf("text speaks of an allowance the CLI does not report:\n%s", body)
			}
		})
	}
}
