package quorum

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// This file is a run's account of premium requests, GitHub Copilot's
// billing unit: what each model's turn costs (Multipliers), the cap a run
// never passes (Config.MaxPremium), and what the result says about both
// (Premium).

// ErrPremiumCap reports a run that stopped because its next turn would
// have taken its premium requests past Config.MaxPremium. The result keeps
// everything done before; raise the cap (quorum --max-premium) or ask
// fewer models.
var ErrPremiumCap = errors.New("quorum: the premium-request cap was reached")

// Multipliers are the premium requests one turn of each model costs, by
// model id: the billing multiplier the provider reports (the Copilot CLI's
// models.list, see CopilotMultipliers). A model missing from the map is
// counted at 1, the multiplier of most premium models, so that an
// estimate errs on the side of spending.
type Multipliers map[string]float64

// Of returns model's multiplier, 1 when it is not known.
func (m Multipliers) Of(model string) float64 {
	if v, ok := m[model]; ok && v >= 0 {
		return v
	}
	return 1
}

// Known reports whether model's multiplier is known.
func (m Multipliers) Known(model string) bool {
	_, ok := m[model]
	return ok
}

// Premium is a result's account of premium requests: what the run was
// expected to cost, what it cost, and what the cap and early stop changed.
type Premium struct {
	// Estimate is what the run was expected to cost before it started,
	// after the cap's shrinking.
	Estimate Estimate `json:"estimate"`
	// Cap is Config.MaxPremium; 0 means none.
	Cap float64 `json:"cap,omitempty"`
	// Used are the premium requests the run's turns cost: each turn's cost
	// as the provider reported it, or its model's multiplier when the
	// provider reported none.
	Used float64 `json:"used"`
	// LeftOut says what the cap made the run leave out before it started
	// (the peer review, a debate's last rounds, the fix round, …).
	LeftOut []string `json:"leftOut,omitempty"`
	// Refused counts the turns the cap did not start; the run stopped
	// there with ErrPremiumCap.
	Refused int `json:"refused,omitempty"`
	// Skipped counts the reviews or votes early stop did not start, once
	// they could no longer change the winner; SkippedWhy says so in words.
	Skipped    int    `json:"skipped,omitempty"`
	SkippedWhy string `json:"skippedWhy,omitempty"`
}

// budget counts a run's premium requests against its cap. Turns run on
// many goroutines: a turn reserves its model's multiplier before it
// starts and settles at its real cost when it ends, so that turns in
// flight together can never pass the cap.
type budget struct {
	mu       sync.Mutex
	cap      float64 // 0: no cap
	mult     Multipliers
	used     float64 // settled turns
	reserved float64 // turns in flight
	refused  int
}

func newBudget(cap float64, m Multipliers) *budget { return &budget{cap: cap, mult: m} }

// reserve holds model's multiplier for a turn about to start, or returns
// an error wrapping ErrPremiumCap when the turn would pass the cap. A nil
// error comes with settle, which the caller calls once the turn has ended
// with what the provider reported it cost (0: not reported).
func (b *budget) reserve(model string) (settle func(reported float64), err error) {
	price := b.mult.Of(model)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cap > 0 && b.used+b.reserved+price > b.cap+tieEpsilon {
		b.refused++
		return nil, fmt.Errorf("%w: a turn of %s costs %s premium requests and the run has %s of its %s left; raise --max-premium or ask fewer models",
			ErrPremiumCap, model, premiumNum(price), premiumNum(max(0, b.cap-b.used-b.reserved)), premiumNum(b.cap))
	}
	b.reserved += price
	var once sync.Once
	return func(reported float64) {
		once.Do(func() {
			cost := price
			if reported > 0 {
				cost = reported
			}
			b.mu.Lock()
			b.reserved -= price
			b.used += cost
			b.mu.Unlock()
		})
	}, nil
}

// spent returns the premium requests used and the turns refused so far.
func (b *budget) spent() (used float64, refused int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.refused
}

// premiumNum formats premium requests as people write them: 3, 0.33, 7.5.
func premiumNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
