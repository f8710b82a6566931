package copilot

// Conformance: premium requests as the real CLI 1.0.102 reports them,
// offline, from what the test's stand-in for GitHub's API serves — each
// model's billing multiplier (GET /models), the account's allowance
// (quota_snapshots in GET /copilot_internal/user) — and what a turn costs.

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// models.list carries each model's multiplier as the model API reported it
// (billing.multiplier), 1 where it reported the default.
func TestRealCLIModelsListCarriesMultipliers(t *testing.T) {
	c, _ := startRealAPI(t, modelapi.Config{
		Models:      map[string]modelapi.Responder{"cheap": modelapi.Echo, "plain": modelapi.Echo, "pricey": modelapi.Echo},
		Multipliers: map[string]float64{"cheap": 0.33, "pricey": 3},
	}, Options{})
	ms, err := c.Models(testutil.Context(t, hangGuard))
	if err != nil {
		t.Fatal(err)
	}
	got := Multipliers(ms)
	want := map[string]float64{"cheap": 0.33, "plain": 1, "pricey": 3}
	if !maps.Equal(got, want) {
		t.Errorf("Multipliers = %v, want %v (the CLI's auto model has none)", got, want)
	}
}

// account.getQuota reports the account's premium_interactions snapshot
// (which Client.PremiumQuota returns, with the reset date),
// read from GET /copilot_internal/user: the entitlement, and the used
// requests and remaining percentage the CLI derives from
// percent_remaining (42.5 used of 300 is 43 in usedRequests, rounded).
// Its resetDate is the snapshot's timestamp_utc, not the reset date: that
// is only in account.getCurrentAuth's copilotUser (quota_reset_date). An
// account without snapshots has none; an unlimited one is -1 of -1.
func TestRealCLIAccountQuota(t *testing.T) {
	quota := func(t *testing.T, q *modelapi.Quota) (*protocol.AccountGetQuotaResult, *Client, *modelapi.Server) {
		c, api := startRealAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{"m": modelapi.Echo}, PremiumQuota: q}, Options{})
		r, err := c.RPC().Account.GetQuota(testutil.Context(t, hangGuard), protocol.AccountGetQuotaRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return r, c, api
	}
	t.Run("none", func(t *testing.T) {
		r, c, _ := quota(t, nil)
		if len(r.QuotaSnapshots) != 0 {
			t.Errorf("snapshots %+v for an account without any", r.QuotaSnapshots)
		}
		if q, err := c.PremiumQuota(testutil.Context(t, hangGuard)); !errors.Is(err, ErrNoPremiumQuota) {
			t.Errorf("PremiumQuota = %+v, %v; want ErrNoPremiumQuota", q, err)
		}
	})
	t.Run("limited", func(t *testing.T) {
		r, c, api := quota(t, &modelapi.Quota{Entitlement: 300, Used: 42.5, ResetDate: "2026-12-01"})
		p, ok := r.QuotaSnapshots["premium_interactions"]
		switch {
		case !ok:
			t.Fatalf("no premium_interactions in %+v", r.QuotaSnapshots)
		case p.IsUnlimitedEntitlement || p.EntitlementRequests != 300 || p.UsedRequests != 43 || p.Overage != 0:
			t.Errorf("snapshot %+v, want 43 of 300 used", p)
		case p.RemainingPercentage < 85.83 || p.RemainingPercentage > 85.84:
			t.Errorf("remainingPercentage %v, want 85.83 (257.5 of 300)", p.RemainingPercentage)
		case p.ResetDate == "" || p.ResetDate[:10] == "2026-12-01":
			t.Errorf("resetDate %q: the CLI 1.0.102 reports the snapshot's time here, not the reset date", p.ResetDate)
		}
		if !slices.Contains(api.Calls(), "GET /copilot_internal/user") {
			t.Errorf("the CLI did not read the account from the API: %v", api.Calls())
		}
		auth, err := c.RPC().Account.GetCurrentAuth(testutil.Context(t, hangGuard))
		if err != nil {
			t.Fatal(err)
		}
		if u := auth.AuthInfo; u == nil || u.CopilotUser == nil || u.CopilotUser.QuotaResetDate != "2026-12-01" || u.CopilotUser.QuotaResetDateUtc != "2026-12-01T00:00:00.000Z" {
			b, _ := json.Marshal(auth)
			t.Errorf("account.getCurrentAuth lacks the reset date: %s", b)
		}
		reset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		q, err := c.PremiumQuota(testutil.Context(t, hangGuard))
		if err != nil || !q.ResetDate.Equal(reset) {
			t.Fatalf("PremiumQuota = %+v, %v; want it to reset on %v", q, err, reset)
		}
		q.ResetDate = time.Time{}
		if want := (Quota{Entitlement: 300, Used: 42.5, Remaining: 257.5}); q != want {
			t.Errorf("PremiumQuota = %+v, want %+v", q, want)
		}
	})
	t.Run("unlimited", func(t *testing.T) {
		r, c, _ := quota(t, &modelapi.Quota{Unlimited: true})
		if p := r.QuotaSnapshots["premium_interactions"]; !p.IsUnlimitedEntitlement || p.EntitlementRequests != -1 || p.RemainingPercentage != 100 {
			t.Errorf("snapshot %+v, want unlimited", p)
		}
		if q, err := c.PremiumQuota(testutil.Context(t, hangGuard)); err != nil || q != (Quota{Unlimited: true}) {
			t.Errorf("PremiumQuota = %+v, %v; want unlimited, with no reset date (none served)", q, err)
		}
	})
}

// usageLog records a session's assistant.usage events.
type usageLog struct {
	mu     sync.Mutex
	events []protocol.AssistantUsageData
}

func (l *usageLog) on(ev Event) {
	if ev.Type != protocol.EventAssistantUsage {
		return
	}
	var u protocol.AssistantUsageData
	if json.Unmarshal(ev.Data, &u) == nil {
		l.mu.Lock()
		l.events = append(l.events, u)
		l.mu.Unlock()
	}
}

// costs returns the cost and initiator of every model call so far.
func (l *usageLog) costs() (costs []float64, initiators []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.events {
		c := -1.0
		if u.Cost != nil {
			c = *u.Cost
		}
		costs = append(costs, c)
		initiators = append(initiators, u.Initiator)
	}
	return costs, initiators
}

// A turn costs the model's multiplier for every model request it makes,
// in assistant.usage's cost, whoever made the request: a plain turn one
// multiplier, a turn with a tool call two (the second request, with the
// tool's result, is the agent's, and counted all the same). A model of
// multiplier 0 costs 0. Reply.Usage.Cost adds them up.
func TestRealCLICostIsTheMultiplierPerModelRequest(t *testing.T) {
	after := func(req modelapi.Request) modelapi.Reply {
		return modelapi.Text("the tool said " + req.ToolResults()[0].Content)
	}
	c, _ := startRealAPI(t, modelapi.Config{
		Models: map[string]modelapi.Responder{
			"cheap": modelapi.Fixed(modelapi.Text("hello")), "free": modelapi.Fixed(modelapi.Text("hello")),
			"pricey": modelapi.ToolThenText("lookup", `{"q":"x"}`, after),
		},
		Multipliers: map[string]float64{"cheap": 0.33, "free": 0, "pricey": 3},
	}, Options{})
	ctx := testutil.Context(t, 2*hangGuard)
	lookup := Tool{Name: "lookup", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Handler: func(context.Context, ToolCall) (string, error) { return "found", nil }}
	for _, tc := range []struct {
		model      string
		costs      []float64
		initiators []string
	}{
		{"cheap", []float64{0.33}, []string{"user"}},
		{"free", []float64{0}, []string{"user"}},
		{"pricey", []float64{3, 3}, []string{"user", "agent"}},
	} {
		var log usageLog
		s, err := c.NewSession(ctx, SessionConfig{Model: tc.model, BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup},
			Permissions: ApproveAll, OnEvent: log.on})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Stream(ctx, "hi", TurnHandlers{})
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		costs, initiators := log.costs()
		var sum float64
		for _, c := range tc.costs {
			sum += c
		}
		if !slices.Equal(costs, tc.costs) || !slices.Equal(initiators, tc.initiators) || r.Usage.Cost != sum {
			t.Errorf("%s: model calls cost %v (initiators %v), the turn %v; want %v (%v), %v",
				tc.model, costs, initiators, r.Usage.Cost, tc.costs, tc.initiators, sum)
		}
		if err := s.Destroy(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// The simulator answers as the real CLI does for the same account and
// models: the same multipliers, the same account.getQuota snapshot (but
// for resetDate, each the time its snapshot was taken), the same
// allowance from PremiumQuota, and the same cost for every model call of
// a plain turn and of one with a tool call.
func TestSimulatorReportsPremiumRequestsAsTheRealCLI(t *testing.T) {
	reset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	after := func(req modelapi.Request) modelapi.Reply { return modelapi.Text("done") }
	real, _ := startRealAPI(t, modelapi.Config{
		Models:       map[string]modelapi.Responder{"plain": modelapi.Fixed(modelapi.Text("hello")), "tooly": modelapi.ToolThenText("lookup", `{}`, after)},
		Multipliers:  map[string]float64{"tooly": 0.25},
		PremiumQuota: &modelapi.Quota{Entitlement: 300, Used: 42.5, ResetDate: reset.Format(time.DateOnly)},
	}, Options{})
	simulated, _ := simClient(t, sim.Options{
		Models: []sim.Model{model("plain", func(sim.Turn) sim.Response { return sim.Text("hello") }), model("tooly", func(turn sim.Turn) sim.Response {
			if turn.Call == 0 {
				return sim.Response{ToolCalls: []sim.ToolCall{sim.Call("lookup", map[string]string{})}}
			}
			return sim.Text("done")
		}).WithMultiplier(0.25)},
		PremiumQuota: &sim.Quota{Entitlement: 300, Used: 42.5, ResetDate: reset},
	})
	ctx := testutil.Context(t, 2*hangGuard)
	type seen struct {
		multipliers map[string]float64
		snapshot    protocol.AccountQuotaSnapshot
		quota       Quota
		costs       map[string][]float64
	}
	observe := func(c *Client) seen {
		var s seen
		ms, err := c.Models(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s.multipliers = Multipliers(ms)
		r, err := c.RPC().Account.GetQuota(ctx, protocol.AccountGetQuotaRequest{})
		if err != nil {
			t.Fatal(err)
		}
		s.snapshot = r.QuotaSnapshots["premium_interactions"]
		s.snapshot.ResetDate = ""
		if s.quota, err = c.PremiumQuota(ctx); err != nil {
			t.Fatal(err)
		}
		s.costs = map[string][]float64{}
		lookup := Tool{Name: "lookup", Handler: func(context.Context, ToolCall) (string, error) { return "found", nil }}
		for _, m := range []string{"plain", "tooly"} {
			var log usageLog
			session, err := c.NewSession(ctx, SessionConfig{Model: m, BuiltinTools: NoBuiltinTools(), Tools: []Tool{lookup},
				Permissions: ApproveAll, OnEvent: log.on})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := session.Ask(ctx, "hi"); err != nil {
				t.Fatal(err)
			}
			s.costs[m], _ = log.costs()
			if err := session.Destroy(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	want, got := observe(real), observe(simulated)
	if !maps.Equal(got.multipliers, want.multipliers) {
		t.Errorf("multipliers: simulator %v, CLI %v", got.multipliers, want.multipliers)
	}
	if got.snapshot != want.snapshot {
		t.Errorf("account.getQuota: simulator %+v, CLI %+v", got.snapshot, want.snapshot)
	}
	if !got.quota.ResetDate.Equal(want.quota.ResetDate) || got.quota.String() != want.quota.String() {
		t.Errorf("PremiumQuota: simulator %+v, CLI %+v", got.quota, want.quota)
	}
	if !maps.EqualFunc(got.costs, want.costs, slices.Equal) {
		t.Errorf("costs per model call: simulator %v, CLI %v", got.costs, want.costs)
	}
}
