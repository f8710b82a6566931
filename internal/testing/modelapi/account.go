package modelapi

import (
	"math"
	"net/http"
	"time"
)

// Quota is an account's premium-request allowance for the current period,
// as GitHub's API reports it in the user's quota_snapshots.
type Quota struct {
	// Entitlement is how many premium requests the period includes; it is
	// reported as -1 when Unlimited.
	Entitlement int
	// Used is how many have been used so far this period. The remaining
	// requests are Entitlement - Used, never below 0.
	Used float64
	// Unlimited is an entitlement without a bound.
	Unlimited bool
	// OveragePermitted lets requests go on, billed, once the entitlement
	// is used up.
	OveragePermitted bool
	// ResetDate is the day the allowance resets, "2026-12-01", served as
	// the user's quota_reset_date and quota_reset_date_utc (midnight UTC);
	// empty leaves them out.
	ResetDate string
}

func cloneQuota(q *Quota) *Quota {
	if q == nil {
		return nil
	}
	c := *q
	return &c
}

// quotaSnapshot is one entry of quota_snapshots, with the field names
// GitHub's API uses. The CLI 1.0.102 derives account.getQuota's
// usedRequests from entitlement and percent_remaining (not from remaining),
// and passes timestamp_utc, the time of the snapshot, on as its resetDate;
// the reset date itself is the user's quota_reset_date(_utc).
type quotaSnapshot struct {
	QuotaID          string  `json:"quota_id"`
	Entitlement      int     `json:"entitlement"`
	Remaining        int     `json:"remaining"`
	QuotaRemaining   float64 `json:"quota_remaining"`
	PercentRemaining float64 `json:"percent_remaining"`
	Unlimited        bool    `json:"unlimited"`
	OverageCount     float64 `json:"overage_count"`
	OveragePermitted bool    `json:"overage_permitted"`
	TimestampUTC     string  `json:"timestamp_utc"`
}

// snapshot is q as the premium_interactions entry of quota_snapshots.
func (q Quota) snapshot() quotaSnapshot {
	s := quotaSnapshot{QuotaID: "premium_interactions", Unlimited: q.Unlimited, OveragePermitted: q.OveragePermitted,
		TimestampUTC: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")}
	if q.Unlimited {
		s.Entitlement, s.PercentRemaining = -1, 100
		return s
	}
	s.Entitlement = q.Entitlement
	s.QuotaRemaining = max(float64(q.Entitlement)-q.Used, 0)
	s.Remaining = int(math.Floor(s.QuotaRemaining))
	s.OverageCount = max(q.Used-float64(q.Entitlement), 0)
	if q.Entitlement > 0 {
		s.PercentRemaining = 100 * s.QuotaRemaining / float64(q.Entitlement)
	}
	return s
}

// serveUser answers GET /copilot_internal/user: the account the CLI runs
// as, whose API and telemetry endpoints are this server, so that nothing is
// sent elsewhere, whose MCP policy is Config.MCPEnabled and whose
// premium-request allowance is Config.PremiumQuota.
func (s *Server) serveUser(w http.ResponseWriter) {
	user := map[string]any{
		"login":        "quorum-test",
		"copilot_plan": "individual_pro",
		"endpoints":    map[string]string{"api": s.url, "telemetry": s.url + "/telemetry"},
	}
	if s.mcpEnabled {
		user["is_mcp_enabled"] = true
	}
	if q := s.premiumQuota; q != nil {
		user["quota_snapshots"] = map[string]quotaSnapshot{"premium_interactions": q.snapshot()}
		if q.ResetDate != "" {
			user["quota_reset_date"] = q.ResetDate
			user["quota_reset_date_utc"] = q.ResetDate + "T00:00:00.000Z"
		}
	}
	writeJSON(w, http.StatusOK, user)
}
