package copilot

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// A model's multiplier is its entry's billing.multiplier; an entry without
// one (the CLI's auto model) has none, and Multipliers leaves it out.
func TestModelMultiplier(t *testing.T) {
	var ms []Model
	if err := json.Unmarshal([]byte(`[
		{"id":"auto","name":"Auto","capabilities":{}},
		{"id":"cheap","billing":{"multiplier":0.33}},
		{"id":"free","billing":{"multiplier":0}},
		{"id":"promo","billing":{"discountPercent":10}}
	]`), &ms); err != nil {
		t.Fatal(err)
	}
	if x, ok := ms[1].Multiplier(); !ok || x != 0.33 {
		t.Errorf("cheap: %v %v", x, ok)
	}
	if x, ok := ms[2].Multiplier(); !ok || x != 0 {
		t.Errorf("free: %v %v, want 0 reported", x, ok)
	}
	for _, m := range []Model{ms[0], ms[3], {ID: "bare"}} {
		if x, ok := m.Multiplier(); ok {
			t.Errorf("%s: multiplier %v reported from %s", m.ID, x, m.Raw)
		}
	}
	if got, want := Multipliers(ms), map[string]float64{"cheap": 0.33, "free": 0}; !maps.Equal(got, want) {
		t.Errorf("Multipliers = %v, want %v", got, want)
	}
}

// The allowance from a premium_interactions snapshot: remaining from the
// share remaining, used the rest of the entitlement; unlimited has no
// bound; values out of range are clamped rather than trusted.
func TestQuotaOfSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name string
		snap protocol.AccountQuotaSnapshot
		want Quota
	}{
		{"fresh", protocol.AccountQuotaSnapshot{EntitlementRequests: 300, RemainingPercentage: 100}, Quota{Entitlement: 300, Remaining: 300}},
		{"fractional", protocol.AccountQuotaSnapshot{EntitlementRequests: 300, UsedRequests: 43, RemainingPercentage: 85.83333333333333},
			Quota{Entitlement: 300, Used: 42.5, Remaining: 257.5}},
		{"exhausted with overage", protocol.AccountQuotaSnapshot{EntitlementRequests: 50, UsedRequests: 50, Overage: 7.5,
			OverageAllowedWithExhaustedQuota: true}, Quota{Entitlement: 50, Used: 50, OverageAllowed: true, Overage: 7.5}},
		{"unlimited", protocol.AccountQuotaSnapshot{IsUnlimitedEntitlement: true, EntitlementRequests: -1, UsedRequests: 12, RemainingPercentage: 100},
			Quota{Unlimited: true, Used: 12}},
		{"out of range", protocol.AccountQuotaSnapshot{EntitlementRequests: -5, RemainingPercentage: 250}, Quota{}},
		{"over 100%", protocol.AccountQuotaSnapshot{EntitlementRequests: 10, RemainingPercentage: 250}, Quota{Entitlement: 10, Remaining: 10}},
	} {
		if got := quotaOf(tc.snap); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The reset date is quota_reset_date_utc, else the day of
// quota_reset_date; neither, or text that is no date, is none.
func TestResetDate(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		user protocol.CopilotUserResponse
		want time.Time
	}{
		{protocol.CopilotUserResponse{QuotaResetDateUtc: "2026-12-01T00:00:00.000Z", QuotaResetDate: "2027-01-01"}, day},
		{protocol.CopilotUserResponse{QuotaResetDate: "2026-12-01"}, day},
		{protocol.CopilotUserResponse{QuotaResetDateUtc: "soon", QuotaResetDate: "\x1b[31m"}, time.Time{}},
		{protocol.CopilotUserResponse{}, time.Time{}},
	} {
		if got := resetDate(&tc.user); !got.Equal(tc.want) {
			t.Errorf("%+v: %v, want %v", tc.user, got, tc.want)
		}
	}
}

// Quota's JSON: a reset date only when known.
func TestQuotaJSON(t *testing.T) {
	b, _ := json.Marshal(Quota{Entitlement: 300, Used: 42, Remaining: 258})
	if want := `{"entitlement":300,"used":42,"remaining":258}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
	b, _ = json.Marshal(Quota{Unlimited: true, ResetDate: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if want := `{"entitlement":0,"used":0,"remaining":0,"unlimited":true,"resetDate":"2026-12-01T00:00:00Z"}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
}

// A Quota says itself in one line.
func TestQuotaString(t *testing.T) {
	reset := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		q    Quota
		want string
	}{
		{Quota{Entitlement: 300, Used: 42, Remaining: 258, ResetDate: reset}, "42 of 300 used, 258 left, resets 2026-12-01"},
		{Quota{Entitlement: 300, Used: 42.5, Remaining: 257.5}, "42.5 of 300 used, 257.5 left"},
		{Quota{Entitlement: 50, Used: 50, OverageAllowed: true}, "50 of 50 used, 0 left; more are billed beyond it"},
		{Quota{Entitlement: 50, Used: 50, OverageAllowed: true, Overage: 7.5, ResetDate: reset}, "50 of 50 used, 0 left, resets 2026-12-01; 7.5 more billed beyond it"},
		{Quota{Unlimited: true}, "unlimited"},
		{Quota{Unlimited: true, Used: 12, OverageAllowed: true}, "unlimited, 12 used"},
	} {
		if got := tc.q.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.q, got, tc.want)
		}
	}
}
