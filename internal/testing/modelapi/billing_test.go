package modelapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// startConfigured starts a server with cfg and closes it with the test.
func startConfigured(t *testing.T, cfg Config) (*Server, *http.Client) {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, &http.Client{Transport: tr, Timeout: hangGuard}
}

// GET /models reports each model's billing as GitHub's API does: the
// configured multiplier, 1 for a model not named, and a model of
// multiplier 0 is not premium.
func TestModelsReportTheirMultipliers(t *testing.T) {
	s, c := startConfigured(t, Config{
		Models:      map[string]Responder{"cheap": Echo, "free": Echo, "plain": Echo},
		Multipliers: map[string]float64{"cheap": 0.33, "free": 0},
	})
	s.SetModel("later", Echo)
	var models struct {
		Data []struct {
			ID      string `json:"id"`
			Billing *struct {
				IsPremium  bool     `json:"is_premium"`
				Multiplier *float64 `json:"multiplier"`
			} `json:"billing"`
		} `json:"data"`
	}
	if code := getJSON(t, c, s.URL()+"/models", &models); code != http.StatusOK {
		t.Fatalf("GET /models: %d", code)
	}
	want := map[string]struct {
		premium bool
		mult    float64
	}{"cheap": {true, 0.33}, "free": {false, 0}, "plain": {true, 1}, "later": {true, 1}}
	if len(models.Data) != len(want) {
		t.Fatalf("%d models, want %d", len(models.Data), len(want))
	}
	for _, m := range models.Data {
		w := want[m.ID]
		if m.Billing == nil || m.Billing.Multiplier == nil || *m.Billing.Multiplier != w.mult || m.Billing.IsPremium != w.premium {
			t.Errorf("%s: billing %+v, want multiplier %v, premium %v", m.ID, m.Billing, w.mult, w.premium)
		}
	}
}

// The user's quota_snapshots.premium_interactions and reset dates, in
// GitHub's field names; none without Config.PremiumQuota.
func TestUserReportsThePremiumQuota(t *testing.T) {
	type snapshot struct {
		Entitlement      int     `json:"entitlement"`
		Remaining        int     `json:"remaining"`
		QuotaRemaining   float64 `json:"quota_remaining"`
		PercentRemaining float64 `json:"percent_remaining"`
		Unlimited        bool    `json:"unlimited"`
		OverageCount     float64 `json:"overage_count"`
		OveragePermitted bool    `json:"overage_permitted"`
		TimestampUTC     string  `json:"timestamp_utc"`
	}
	type user struct {
		ResetDate    string              `json:"quota_reset_date"`
		ResetDateUTC string              `json:"quota_reset_date_utc"`
		Snapshots    map[string]snapshot `json:"quota_snapshots"`
	}
	get := func(cfg Config) user {
		s, c := startConfigured(t, cfg)
		var u user
		if code := getJSON(t, c, s.URL()+"/copilot_internal/user", &u); code != http.StatusOK {
			t.Fatalf("GET user: %d", code)
		}
		return u
	}
	if u := get(Config{}); u.Snapshots != nil || u.ResetDate != "" {
		t.Errorf("without a quota: %+v", u)
	}

	u := get(Config{PremiumQuota: &Quota{Entitlement: 300, Used: 42, ResetDate: "2026-12-01"}})
	p, ok := u.Snapshots["premium_interactions"]
	switch {
	case !ok:
		t.Fatalf("no premium_interactions in %+v", u)
	case p.Entitlement != 300 || p.Remaining != 258 || p.QuotaRemaining != 258 || p.PercentRemaining != 86 || p.Unlimited || p.OverageCount != 0:
		t.Errorf("premium_interactions = %+v, want 300 with 258 left (86%%)", p)
	case !strings.HasSuffix(p.TimestampUTC, "Z"):
		t.Errorf("timestamp_utc = %q, want the time of the snapshot in UTC", p.TimestampUTC)
	case u.ResetDate != "2026-12-01" || u.ResetDateUTC != "2026-12-01T00:00:00.000Z":
		t.Errorf("reset dates %q, %q", u.ResetDate, u.ResetDateUTC)
	}

	over := get(Config{PremiumQuota: &Quota{Entitlement: 50, Used: 57.5, OveragePermitted: true}})
	if p := over.Snapshots["premium_interactions"]; p.Remaining != 0 || p.PercentRemaining != 0 || p.OverageCount != 7.5 || !p.OveragePermitted {
		t.Errorf("past the entitlement: %+v", p)
	}
	unl := get(Config{PremiumQuota: &Quota{Unlimited: true, Used: 12}})
	if p := unl.Snapshots["premium_interactions"]; !p.Unlimited || p.Entitlement != -1 || p.PercentRemaining != 100 {
		t.Errorf("unlimited: %+v", p)
	}
}

// With AICreditsPerRequest every answer, streamed or whole, says what it
// cost in nano AI credits; without it none does.
func TestResponsesReportAICredits(t *testing.T) {
	type billed struct {
		CopilotUsage *struct {
			TotalNanoAIU float64 `json:"total_nano_aiu"`
		} `json:"copilot_usage"`
	}
	for _, credits := range []float64{0, 2.5} {
		s, c := startConfigured(t, Config{Models: map[string]Responder{"m": Echo}, AICreditsPerRequest: credits})
		want := credits * 1e9

		resp := mustPost(t, c, s.URL(), chatBody("m", false, "hi"))
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var whole billed
		if err := json.Unmarshal(b, &whole); err != nil {
			t.Fatal(err)
		}
		if got := whole.CopilotUsage; (got == nil) != (credits == 0) || got != nil && got.TotalNanoAIU != want {
			t.Errorf("credits %v: whole answer copilot_usage %s", credits, b)
		}

		events, _ := readSSE(t, mustPost(t, c, s.URL(), chatBody("m", true, "hi")).Body)
		var last billed
		if err := json.Unmarshal([]byte(events[len(events)-1]), &last); err != nil {
			t.Fatal(err)
		}
		if got := last.CopilotUsage; (got == nil) != (credits == 0) || got != nil && got.TotalNanoAIU != want {
			t.Errorf("credits %v: finishing chunk %s", credits, events[len(events)-1])
		}
	}
}
