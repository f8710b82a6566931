package sim

// Premium requests as CLI 1.0.102 reports them: each model's multiplier in
// models.list (billing.multiplier), the cost of every model call in
// assistant.usage (the multiplier, once per model request: a tool call's
// follow-up request counts again), and the account's allowance in
// account.getQuota and, with its reset date, account.getCurrentAuth.

import (
	"fmt"
	"math"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Quota is the account's premium-request allowance for the current period,
// as the simulator reports it.
type Quota struct {
	// Entitlement is how many premium requests the period includes
	// (ignored when Unlimited).
	Entitlement int64
	// Used is how many were used so far; the rest of the Entitlement is
	// left.
	Used float64
	// Unlimited is an allowance without a bound.
	Unlimited bool
	// OverageAllowed lets requests go on, billed apart, once the
	// entitlement is used up; Overage is how many did this period.
	OverageAllowed bool
	Overage        float64
	// ResetDate is the day the allowance resets. Zero means the first
	// day of the next month (UTC), as on GitHub's monthly plans.
	ResetDate time.Time
}

// DefaultQuota is the allowance a server reports unless Options say
// otherwise: a Copilot Pro account's 300 premium requests a month, none
// used yet, resetting on the first of next month.
func DefaultQuota() Quota { return Quota{Entitlement: 300} }

// premiumQuotaID names the premium-request snapshot, as GitHub and the CLI
// do.
const premiumQuotaID = "premium_interactions"

// WithMultiplier returns a copy of m that counts multiplier premium
// requests per model request (Model.Multiplier).
func (m Model) WithMultiplier(multiplier float64) Model {
	m.Multiplier = &multiplier
	return m
}

// multiplier is what one request to m counts: Model.Multiplier, else 1.
func (m *Model) multiplier() float64 {
	if m.Multiplier == nil {
		return 1
	}
	return *m.Multiplier
}

// billing is m's billing in models.list.
func (m *Model) billing() *protocol.ModelBilling {
	return &protocol.ModelBilling{Multiplier: ptr(m.multiplier())}
}

// validateMultiplier refuses a multiplier no model can have.
func validateMultiplier(m Model) error {
	if x := m.Multiplier; x != nil && (*x < 0 || math.IsNaN(*x) || math.IsInf(*x, 0)) {
		return fmt.Errorf("sim: model %q has multiplier %v; it must be a finite number, 0 or more", m.ID, *x)
	}
	return nil
}

// validate refuses an allowance no account can have.
func (q Quota) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"Entitlement", float64(q.Entitlement)}, {"Used", q.Used}, {"Overage", q.Overage}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("sim: Options.PremiumQuota.%s is %v; it must be a finite number, 0 or more", f.name, f.v)
		}
	}
	return nil
}

// withDefaults fills in the reset date.
func (q Quota) withDefaults(now time.Time) Quota {
	if q.ResetDate.IsZero() {
		y, m, _ := now.UTC().Date()
		q.ResetDate = time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
	}
	return q
}

// remainingPercentage is the share of the entitlement left, in percent.
func (q Quota) remainingPercentage() float64 {
	if q.Unlimited || q.Entitlement == 0 {
		return 100
	}
	left := max(float64(q.Entitlement)-q.Used, 0)
	return 100 * left / float64(q.Entitlement)
}

// snapshot is q as account.getQuota reports it. Like CLI 1.0.102, usedRequests
// is the used requests rounded and resetDate the time the snapshot was
// taken (the reset date is only in account.getCurrentAuth).
func (q Quota) snapshot(taken string) protocol.AccountQuotaSnapshot {
	s := protocol.AccountQuotaSnapshot{
		IsUnlimitedEntitlement:           q.Unlimited,
		EntitlementRequests:              q.Entitlement,
		UsedRequests:                     int64(math.Round(q.Used)),
		UsageAllowedWithExhaustedQuota:   q.OverageAllowed,
		RemainingPercentage:              q.remainingPercentage(),
		Overage:                          q.Overage,
		OverageAllowedWithExhaustedQuota: q.OverageAllowed,
		ResetDate:                        taken,
	}
	if q.Unlimited {
		s.EntitlementRequests, s.UsedRequests = -1, 0
	}
	return s
}

// userSnapshot is q as GitHub's API describes it in the user's
// quota_snapshots, which account.getCurrentAuth passes on verbatim.
func (q Quota) userSnapshot(taken string) map[string]any {
	entitlement, left := float64(q.Entitlement), max(float64(q.Entitlement)-q.Used, 0)
	if q.Unlimited {
		entitlement, left = -1, 0
	}
	return map[string]any{
		"quota_id": premiumQuotaID, "entitlement": entitlement, "remaining": math.Floor(left), "quota_remaining": left,
		"percent_remaining": q.remainingPercentage(), "unlimited": q.Unlimited,
		"overage_count": q.Overage, "overage_permitted": q.OverageAllowed, "timestamp_utc": taken,
	}
}

// premiumQuota is the allowance the server reports, false when it reports
// none (Options.NoPremiumQuota, or a CLI that is not logged in).
func (srv *Server) premiumQuota() (Quota, bool) {
	if srv.opts.NoPremiumQuota || srv.opts.Unauthenticated {
		return Quota{}, false
	}
	return *srv.opts.PremiumQuota, true
}

// handleGetQuota answers account.getQuota: the premium_interactions
// snapshot, or none.
func (c *Conn) handleGetQuota(r *request) (any, error) {
	var p protocol.AccountGetQuotaRequest
	if err := r.decode(&p); err != nil {
		return nil, err
	}
	out := protocol.AccountGetQuotaResult{QuotaSnapshots: map[string]protocol.AccountQuotaSnapshot{}}
	if q, ok := c.srv.premiumQuota(); ok {
		out.QuotaSnapshots[premiumQuotaID] = q.snapshot(now())
	}
	return out, nil
}

// simUser is the login the simulator's account reports, as auth.getStatus
// does.
const simUser = "sim"

// handleGetCurrentAuth answers account.getCurrentAuth: a user of
// github.com on a Copilot Pro plan, with the allowance's snapshot and reset
// date as GitHub's API gives them; nothing when not logged in. It is the
// schema's "user" kind: CLI 1.0.102 logged in by a token answers kind
// "token" without the token its schema requires.
func (c *Conn) handleGetCurrentAuth(r *request) (any, error) {
	if err := r.decode(&struct{}{}); err != nil {
		return nil, err
	}
	if c.srv.opts.Unauthenticated {
		return protocol.AccountGetCurrentAuthResult{}, nil
	}
	user := map[string]any{"login": simUser, "copilot_plan": "individual_pro"}
	if q, ok := c.srv.premiumQuota(); ok {
		user["quota_snapshots"] = map[string]any{premiumQuotaID: q.userSnapshot(now())}
		user["quota_reset_date"] = q.ResetDate.Format(time.DateOnly)
		user["quota_reset_date_utc"] = q.ResetDate.UTC().Format(timestampLayout)
	}
	return map[string]any{"authInfo": map[string]any{
		"type": "user", "host": "https://github.com", "login": simUser, "copilotUser": user,
	}}, nil
}
