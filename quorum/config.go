package quorum

import (
	"math"
	"strings"
	"time"
)

// Defaults of Config, used where a field is zero.
const (
	DefaultPhaseTimeout   = 5 * time.Minute
	DefaultTimeout        = 15 * time.Minute
	DefaultCloseTimeout   = 10 * time.Second
	DefaultMaxConcurrency = 8
	DefaultMinModels      = 2
	DefaultRounds         = 2
	// MaxRounds bounds Config.Rounds: every round costs a turn of every
	// debater, and a debate that has not settled in ten rounds will not.
	MaxRounds = 10
)

// Config configures Discuss, Plan, Debate and Review. The zero value of
// every field but Models means its documented default.
type Config struct {
	// Models are the participants, by model id, in order of preference:
	// the last tie-break of every ranking is this order. At least MinModels
	// distinct ids.
	Models []string

	// Moderator writes the discussion's synthesis (Discuss) or the
	// debate's verdict (Debate). It need not be a participant. Default: the
	// first of Models. If it fails, the best-ranked participant (in a
	// debate, the first debater still in it) takes its place and the result
	// says so.
	Moderator string
	// NoReview skips peer review (Discuss only): the synthesis then works
	// from the answers alone and the ranking is Models' order.
	NoReview bool
	// AnswersPerReviewer limits how many answers each reviewer sees
	// (Discuss only): with k, N participants make N·k reviews instead of
	// N·(N−1), each answer getting k of them. 0, or k ≥ N−1, means every
	// other answer.
	AnswersPerReviewer int

	// Rounds is how many rounds a debate may have after its opening
	// (Debate only); it ends sooner when no blocking objection stands.
	// Default 2, at most MaxRounds.
	Rounds int

	// Prompts are the system messages and prompt templates. Empty fields
	// mean DefaultPrompts.
	Prompts Prompts

	// PhaseTimeout bounds each phase; a model still running when it passes
	// is dropped from the run (its turn aborted, its session destroyed). In
	// the synthesis it bounds each moderator attempt. Default 5m.
	PhaseTimeout time.Duration
	// Timeout bounds the whole run. Default 15m.
	Timeout time.Duration
	// CloseTimeout bounds the abort and destruction of a session after its
	// turn, including after the run's context was cancelled, and how long a
	// cancelled run waits for a busy Progress. Default 10s.
	CloseTimeout time.Duration
	// MaxConcurrency bounds the sessions open at once. Default 8.
	MaxConcurrency int
	// MinModels is how many models must be left after each phase for the
	// run to go on (one suffices for the synthesis). Default 2.
	MinModels int

	// Multipliers are the premium requests a turn of each model costs
	// (CopilotMultipliers reads them from the Copilot CLI); a model not in
	// it counts 1. They price the run's Estimate and its cap.
	Multipliers Multipliers
	// MaxPremium caps the premium requests the run may spend: before it
	// starts, the run shrinks where the strategy allows it (fewer
	// reviewers, rounds or models, no fix round, fewer attempts) until its estimate fits,
	// and Premium.LeftOut says what it left out; as it goes, it never starts
	// a turn that would pass the cap, and stops with ErrPremiumCap and what
	// it has. 0 means no cap.
	MaxPremium float64
	// NoEarlyStop starts every review of Discuss and every vote of Plan,
	// even once they can no longer change the winner (see Premium.Skipped).
	NoEarlyStop bool

	// Progress, if set, receives the run's events. It is called from one
	// goroutine at a time, never concurrently, in the order events
	// happened, so a UI can draw without locks. The run never waits for it:
	// events queue while it is busy (deltas of one turn merge while queued).
	// Every run returns only after the last event was delivered,
	// except when the run's context has ended and Progress is still busy
	// CloseTimeout later: the events not yet delivered are then dropped.
	// Progress must not call back into the run.
	Progress func(Progress)
	// Transcript, if set, records every prompt, reply and event as JSON
	// lines (see NewTranscript).
	Transcript *Transcript
}

// settings is a validated Config with its defaults filled in.
type settings struct {
	Config
	t *templates
	// estimate is the run's Estimate, once fit has shrunk it to the cap.
	estimate Estimate
}

// settleFor checks the arguments every run shares, then settles c.
func (c Config) settleFor(b Backend, text, what string) (*settings, error) {
	if b == nil {
		return nil, invalid("the Backend is nil; pass quorum.Copilot(client) or another Backend")
	}
	if strings.TrimSpace(text) == "" {
		return nil, invalid("the %s is empty", what)
	}
	return c.settle()
}

func (c Config) settle() (*settings, error) {
	if len(c.Models) == 0 {
		return nil, invalid("Config.Models is empty; name the participant models (for example claude-sonnet-4.5, gpt-5)")
	}
	seen := make(map[string]bool, len(c.Models))
	for i, m := range c.Models {
		if strings.TrimSpace(m) == "" {
			return nil, invalid("Config.Models[%d] is empty; give a model id", i)
		}
		if seen[m] {
			return nil, invalid("model %q is listed twice in Config.Models; list each participant once", m)
		}
		seen[m] = true
	}
	switch {
	case c.MinModels < 0:
		return nil, invalid("Config.MinModels is negative (%d); use 0 for the default of %d", c.MinModels, DefaultMinModels)
	case c.MinModels == 0:
		c.MinModels = DefaultMinModels
	}
	if c.MinModels > len(c.Models) {
		return nil, invalid("Config.MinModels is %d but only %d models are configured; add models or lower MinModels", c.MinModels, len(c.Models))
	}
	if c.AnswersPerReviewer < 0 {
		return nil, invalid("Config.AnswersPerReviewer is negative (%d); use 0 for every other answer", c.AnswersPerReviewer)
	}
	if c.Rounds < 0 || c.Rounds > MaxRounds {
		return nil, invalid("Config.Rounds is %d; use 1 to %d, or 0 for the default of %d", c.Rounds, MaxRounds, DefaultRounds)
	}
	if c.Rounds == 0 {
		c.Rounds = DefaultRounds
	}
	if !(c.MaxPremium >= 0) || math.IsInf(c.MaxPremium, 1) {
		return nil, invalid("Config.MaxPremium is %v; give the most premium requests the run may spend, or 0 for no cap", c.MaxPremium)
	}
	for m, v := range c.Multipliers {
		if !(v >= 0) || math.IsInf(v, 1) {
			return nil, invalid("Config.Multipliers[%q] is %v; a multiplier is 0 or more premium requests per turn", m, v)
		}
	}
	if c.MaxConcurrency < 0 {
		return nil, invalid("Config.MaxConcurrency is negative (%d); use 0 for the default of %d", c.MaxConcurrency, DefaultMaxConcurrency)
	}
	if c.PhaseTimeout < 0 || c.Timeout < 0 || c.CloseTimeout < 0 {
		return nil, invalid("a Config timeout is negative; use 0 for the defaults")
	}
	if c.Moderator == "" {
		c.Moderator = c.Models[0]
	}
	if c.PhaseTimeout == 0 {
		c.PhaseTimeout = DefaultPhaseTimeout
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.CloseTimeout == 0 {
		c.CloseTimeout = DefaultCloseTimeout
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	c.Models = append([]string(nil), c.Models...)
	t, err := c.Prompts.compile()
	if err != nil {
		return nil, err
	}
	c.Prompts = t.p
	return &settings{Config: c, t: t}, nil
}
