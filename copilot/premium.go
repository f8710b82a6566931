package copilot

// Premium requests, GitHub Copilot's billing unit, as the CLI reports them:
// what one request to each model counts (models.list's billing
// multiplier) and the account's allowance this period (account.getQuota).
// A turn costs its model's multiplier for every model request it makes —
// a tool call's follow-up request too — in assistant.usage's cost, which
// TurnUsage.Cost adds up (CLI 1.0.102).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// ErrNoPremiumQuota reports an account for which the CLI has no
// premium-request allowance to tell (account.getQuota without a
// premium_interactions snapshot): a plan that does not meter premium
// requests, or a CLI that could not read the account from GitHub.
var ErrNoPremiumQuota = errors.New("copilot: the Copilot CLI reports no premium-request allowance for this account; check its plan at https://github.com/settings/copilot, or the CLI's login and network")

// premiumQuotaID is the quota snapshot of premium requests, as GitHub's
// API and the CLI name it.
const premiumQuotaID = "premium_interactions"

// Quota is the account's premium-request allowance for the current period.
type Quota struct {
	// Entitlement is how many premium requests the period includes; 0
	// when Unlimited.
	Entitlement int64 `json:"entitlement"`
	// Used is how many of them were used so far, Remaining how many are
	// left: together the Entitlement. They come from the share remaining
	// that the CLI reports, so they can be fractional (a model of
	// multiplier 0.33 uses a third of a request); the CLI's own
	// usedRequests is Used rounded.
	Used      float64 `json:"used"`
	Remaining float64 `json:"remaining"`
	// Unlimited is an allowance without a bound: Entitlement and
	// Remaining mean nothing then.
	Unlimited bool `json:"unlimited,omitempty"`
	// OverageAllowed says whether requests go on, billed apart, once the
	// entitlement is used up; Overage is how many did so this period.
	OverageAllowed bool    `json:"overageAllowed,omitempty"`
	Overage        float64 `json:"overage,omitempty"`
	// ResetDate is when the allowance resets (midnight UTC of the day,
	// as GitHub reports it); zero when the CLI does not say.
	ResetDate time.Time `json:"resetDate,omitzero"`
}

// PremiumQuota returns the account's premium-request allowance as the CLI
// reports it, or an error wrapping ErrNoPremiumQuota when it reports none.
// The reset date comes from account.getCurrentAuth's account details:
// account.getQuota's own resetDate is the time GitHub took the snapshot
// (CLI 1.0.102), not the reset.
func (c *Client) PremiumQuota(ctx context.Context) (Quota, error) {
	r, err := c.RPC().Account.GetQuota(ctx, protocol.AccountGetQuotaRequest{})
	if err != nil {
		return Quota{}, fmt.Errorf("copilot: reading the premium-request allowance: %w", err)
	}
	snap, ok := r.QuotaSnapshots[premiumQuotaID]
	if !ok {
		return Quota{}, ErrNoPremiumQuota
	}
	q := quotaOf(snap)
	auth, err := c.RPC().Account.GetCurrentAuth(ctx)
	switch {
	case ctx.Err() != nil:
		return Quota{}, fmt.Errorf("copilot: reading the premium-request allowance's reset date: %w", ctx.Err())
	case err == nil && auth.AuthInfo != nil && auth.AuthInfo.CopilotUser != nil:
		q.ResetDate = resetDate(auth.AuthInfo.CopilotUser)
	}
	// Without the account's details (a CLI that does not answer
	// account.getCurrentAuth) the allowance stands without its date.
	return q, nil
}

// quotaOf is the allowance a premium_interactions snapshot describes.
func quotaOf(s protocol.AccountQuotaSnapshot) Quota {
	q := Quota{
		Unlimited:      s.IsUnlimitedEntitlement,
		OverageAllowed: s.OverageAllowedWithExhaustedQuota,
		Overage:        s.Overage,
	}
	if q.Unlimited {
		q.Used = float64(max(s.UsedRequests, 0))
		return q
	}
	q.Entitlement = max(s.EntitlementRequests, 0)
	share := min(max(s.RemainingPercentage, 0), 100) / 100
	// Rounded to a millionth, so that 300 × 85.8333…% is 257.5, not
	// 257.49999999999997.
	q.Remaining = roundMillionth(float64(q.Entitlement) * share)
	q.Used = roundMillionth(float64(q.Entitlement) - q.Remaining)
	return q
}

func roundMillionth(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// String says the allowance in a line: "42 of 300 used, 258 left, resets
// 2026-12-01", "unlimited", with what overage there is.
func (q Quota) String() string {
	var b strings.Builder
	if q.Unlimited {
		b.WriteString("unlimited")
		if q.Used > 0 {
			fmt.Fprintf(&b, ", %s used", number(q.Used))
		}
	} else {
		fmt.Fprintf(&b, "%s of %d used, %s left", number(q.Used), q.Entitlement, number(q.Remaining))
	}
	if !q.ResetDate.IsZero() {
		fmt.Fprintf(&b, ", resets %s", q.ResetDate.UTC().Format(time.DateOnly))
	}
	switch {
	case q.Overage > 0:
		fmt.Fprintf(&b, "; %s more billed beyond it", number(q.Overage))
	case q.OverageAllowed && !q.Unlimited:
		b.WriteString("; more are billed beyond it")
	}
	return b.String()
}

// number is x as short as it reads exactly: 42, 257.5.
func number(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// resetDate is the account's quota reset date: quota_reset_date_utc, else
// quota_reset_date (a day); zero when neither parses.
func resetDate(u *protocol.CopilotUserResponse) time.Time {
	if t, err := time.Parse(time.RFC3339, u.QuotaResetDateUtc); err == nil {
		return t.UTC()
	}
	if t, err := time.Parse(time.DateOnly, u.QuotaResetDate); err == nil {
		return t
	}
	return time.Time{}
}

// Multiplier is how many premium requests one request to the model counts,
// as models.list reports it (billing.multiplier); ok is false when the CLI
// gave none (its "auto" model, a provider's own models).
func (m Model) Multiplier() (multiplier float64, ok bool) {
	var entry struct {
		Billing *struct {
			Multiplier *float64 `json:"multiplier"`
		} `json:"billing"`
	}
	if json.Unmarshal(m.Raw, &entry) != nil || entry.Billing == nil || entry.Billing.Multiplier == nil {
		return 0, false
	}
	return *entry.Billing.Multiplier, true
}

// Multipliers maps the id of each model whose multiplier the CLI reports
// to it (Model.Multiplier); models without one are left out.
func Multipliers(models []Model) map[string]float64 {
	out := make(map[string]float64, len(models))
	for _, m := range models {
		if x, ok := m.Multiplier(); ok {
			out[m.ID] = x
		}
	}
	return out
}
