package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// connect serves opts and returns a client connected to the server.
func connect(t *testing.T, opts sim.Options) (*copilot.Client, context.Context) {
	t.Helper()
	srv := sim.NewServer(opts)
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	c, err := copilot.Connect(ctx, srv.Dial(), copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ctx
}

// models.list reports each model's multiplier, 1 unless the model says.
func TestModelsListReportsMultipliers(t *testing.T) {
	echo := func(id string) sim.Model { return sim.Model{ID: id, Respond: sim.Echo} }
	c, ctx := connect(t, sim.Options{Models: []sim.Model{echo("plain"), echo("cheap").WithMultiplier(0.25), echo("free").WithMultiplier(0)}})
	ms, err := c.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := copilot.Multipliers(ms), map[string]float64{"plain": 1, "cheap": 0.25, "free": 0}; !maps.Equal(got, want) {
		t.Errorf("multipliers %v, want %v", got, want)
	}
}

// Every model call's assistant.usage costs the model's multiplier, as on
// CLI 1.0.102: a turn with a tool call makes two calls, and costs twice.
func TestUsageCostIsTheMultiplierPerModelCall(t *testing.T) {
	tooly := sim.Model{ID: "tooly", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call == 0 {
			return sim.Response{ToolCalls: []sim.ToolCall{sim.Call("lookup", map[string]string{"q": "x"})}}
		}
		return sim.Text("found it")
	}}.WithMultiplier(3)
	c, ctx := connect(t, sim.Options{Models: []sim.Model{{ID: "plain", Respond: sim.Echo}, tooly}})
	lookup := copilot.Tool{Name: "lookup", Handler: func(context.Context, copilot.ToolCall) (string, error) { return "x", nil }}
	for _, tc := range []struct {
		model string
		costs []float64
	}{{"plain", []float64{1}}, {"tooly", []float64{3, 3}}} {
		var mu sync.Mutex
		var costs []float64
		s, err := c.NewSession(ctx, copilot.SessionConfig{Model: tc.model, Tools: []copilot.Tool{lookup}, Permissions: copilot.ApproveAll,
			OnEvent: func(ev copilot.Event) {
				var u protocol.AssistantUsageData
				if ev.Type == protocol.EventAssistantUsage && json.Unmarshal(ev.Data, &u) == nil && u.Cost != nil {
					mu.Lock()
					costs = append(costs, *u.Cost)
					mu.Unlock()
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Stream(ctx, "hi", copilot.TurnHandlers{})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := slices.Clone(costs)
		mu.Unlock()
		var sum float64
		for _, x := range tc.costs {
			sum += x
		}
		if !slices.Equal(got, tc.costs) || r.Usage.Cost != sum {
			t.Errorf("%s: calls cost %v, the turn %v; want %v, %v", tc.model, got, r.Usage.Cost, tc.costs, sum)
		}
	}
}

// The account's allowance, as account.getQuota reports it (usedRequests
// rounded, resetDate the snapshot's time) and, with its reset date, as
// Client.PremiumQuota reads it; the default is a fresh Copilot Pro
// account's, resetting on the first of next month.
func TestPremiumQuota(t *testing.T) {
	reset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	t.Run("configured", func(t *testing.T) {
		c, ctx := connect(t, sim.Options{PremiumQuota: &sim.Quota{Entitlement: 300, Used: 42.5, ResetDate: reset}})
		r, err := c.RPC().Account.GetQuota(ctx, protocol.AccountGetQuotaRequest{})
		if err != nil {
			t.Fatal(err)
		}
		p := r.QuotaSnapshots["premium_interactions"]
		if p.EntitlementRequests != 300 || p.UsedRequests != 43 || math.Abs(p.RemainingPercentage-85.8333) > 0.001 || p.IsUnlimitedEntitlement {
			t.Errorf("account.getQuota = %+v", p)
		}
		if taken, err := time.Parse(time.RFC3339, p.ResetDate); err != nil || taken.Equal(reset) {
			t.Errorf("resetDate %q, want the snapshot's time, as the CLI reports it (%v)", p.ResetDate, err)
		}
		q, err := c.PremiumQuota(ctx)
		if err != nil || !q.ResetDate.Equal(reset) {
			t.Fatalf("PremiumQuota = %+v, %v; want it to reset on %v", q, err, reset)
		}
		q.ResetDate = time.Time{}
		if want := (copilot.Quota{Entitlement: 300, Used: 42.5, Remaining: 257.5}); q != want {
			t.Errorf("PremiumQuota = %+v, want %+v", q, want)
		}
	})
	t.Run("default", func(t *testing.T) {
		c, ctx := connect(t, sim.Options{})
		before := time.Now().UTC()
		q, err := c.PremiumQuota(ctx)
		if err != nil {
			t.Fatal(err)
		}
		first := q.ResetDate
		if first.Day() != 1 || !first.After(before) || first.After(before.AddDate(0, 1, 1)) {
			t.Errorf("the default resets on %v, want the first of next month", first)
		}
		q.ResetDate = time.Time{}
		if want := (copilot.Quota{Entitlement: 300, Remaining: 300}); q != want {
			t.Errorf("default PremiumQuota = %+v, want %+v", q, want)
		}
	})
	t.Run("unlimited with overage", func(t *testing.T) {
		c, ctx := connect(t, sim.Options{PremiumQuota: &sim.Quota{Unlimited: true, Used: 12, OverageAllowed: true, Overage: 2}})
		q, err := c.PremiumQuota(ctx)
		if err != nil || !q.Unlimited || !q.OverageAllowed || q.Overage != 2 || q.Entitlement != 0 {
			t.Errorf("PremiumQuota = %+v, %v", q, err)
		}
	})
	for name, opts := range map[string]sim.Options{"none": {NoPremiumQuota: true}, "logged out": {Unauthenticated: true}} {
		t.Run(name, func(t *testing.T) {
			c, ctx := connect(t, opts)
			if q, err := c.PremiumQuota(ctx); !errors.Is(err, copilot.ErrNoPremiumQuota) {
				t.Errorf("PremiumQuota = %+v, %v; want ErrNoPremiumQuota", q, err)
			}
		})
	}
}

// NewServer refuses a multiplier or an allowance no account can have.
func TestPremiumOptionsAreChecked(t *testing.T) {
	for name, opts := range map[string]sim.Options{
		"negative multiplier": {Models: []sim.Model{sim.Model{ID: "m", Respond: sim.Echo}.WithMultiplier(-1)}},
		"NaN multiplier":      {Models: []sim.Model{sim.Model{ID: "m", Respond: sim.Echo}.WithMultiplier(math.NaN())}},
		"negative use":        {PremiumQuota: &sim.Quota{Entitlement: 300, Used: -1}},
		"negative allowance":  {PremiumQuota: &sim.Quota{Entitlement: -300}},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "0 or more") {
					t.Errorf("%s: NewServer did not refuse it (%v)", name, r)
				}
			}()
			sim.NewServer(opts).Close()
		}()
	}
}
