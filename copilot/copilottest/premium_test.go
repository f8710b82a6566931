package copilottest_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
)

// PremiumMultiplier reaches Client.Models and every model call's cost;
// a model not set counts 1.
func TestPremiumMultiplier(t *testing.T) {
	srv := copilottest.NewServer(t,
		copilottest.Model{ID: "plain", Respond: copilottest.Echo},
		copilottest.Model{ID: "tooly", Respond: copilottest.UseTool("lookup", map[string]string{"q": "x"}, copilottest.Say("done"))},
		copilottest.PremiumMultiplier("tooly", 0.25))
	ms, err := srv.Client().Models(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := copilot.Multipliers(ms), map[string]float64{"plain": 1, "tooly": 0.25}; !maps.Equal(got, want) {
		t.Errorf("multipliers %v, want %v", got, want)
	}
	lookup := copilot.Tool{Name: "lookup", Handler: func(context.Context, copilot.ToolCall) (string, error) { return "found", nil }}
	s := session(t, srv, copilot.SessionConfig{Model: "tooly", Tools: []copilot.Tool{lookup}, Permissions: copilot.ApproveAll})
	r, err := s.Stream(ctxFor(t), "look it up", copilot.TurnHandlers{})
	if err != nil || r.Usage.Cost != 0.5 {
		t.Errorf("a turn with a tool call: cost %v (%v), want 0.5: two model calls at 0.25", r.Usage.Cost, err)
	}
}

// PremiumQuota is what Client.PremiumQuota reads; by default a Copilot Pro
// account's 300; NoPremiumQuota reports none.
func TestPremiumQuota(t *testing.T) {
	reset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	echo := copilottest.Model{ID: "m", Respond: copilottest.Echo}
	srv := copilottest.NewServer(t, echo, copilottest.PremiumQuota(copilottest.Quota{Entitlement: 300, Used: 42, ResetDate: reset}))
	q, err := srv.Client().PremiumQuota(ctxFor(t))
	if err != nil || q.Entitlement != 300 || q.Used != 42 || q.Remaining != 258 || !q.ResetDate.Equal(reset) {
		t.Errorf("PremiumQuota = %+v, %v", q, err)
	}
	def := copilottest.NewServer(t, echo)
	if q, err := def.Client().PremiumQuota(ctxFor(t)); err != nil || q.Entitlement != 300 || q.Remaining != 300 || q.ResetDate.IsZero() {
		t.Errorf("the default PremiumQuota = %+v, %v", q, err)
	}
	none := copilottest.NewServer(t, echo, copilottest.NoPremiumQuota())
	if q, err := none.Client().PremiumQuota(ctxFor(t)); !errors.Is(err, copilot.ErrNoPremiumQuota) {
		t.Errorf("with NoPremiumQuota: %+v, %v", q, err)
	}
}

// A multiplier or an allowance no model or account can have is refused
// before anything starts.
func TestInvalidPremiumOptions(t *testing.T) {
	echo := copilottest.Model{ID: "m", Respond: copilottest.Echo}
	for name, tc := range map[string]struct {
		opts []copilottest.Option
		want error
	}{
		"multiplier of no model": {[]copilottest.Option{echo, copilottest.PremiumMultiplier("other", 1)}, copilottest.ErrInvalidModel},
		"negative multiplier":    {[]copilottest.Option{echo, copilottest.PremiumMultiplier("m", -1)}, copilottest.ErrInvalidModel},
		"negative use":           {[]copilottest.Option{echo, copilottest.PremiumQuota(copilottest.Quota{Entitlement: 1, Used: -1})}, copilottest.ErrInvalidQuota},
		"quota and none": {[]copilottest.Option{echo, copilottest.PremiumQuota(copilottest.Quota{Entitlement: 1}), copilottest.NoPremiumQuota()},
			copilottest.ErrInvalidQuota},
	} {
		if _, err := copilottest.Start(ctxFor(t), tc.opts...); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
}
