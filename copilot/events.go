package copilot

import (
	"github.com/quorum-go/quorum/copilot/protocol"
)

// Event is one session event: protocol.Event, whose Decode returns the
// typed data of every event type the CLI's schema defines (a
// *protocol.AssistantMessageDeltaData for protocol.EventAssistantMessageDelta,
// …) and the raw data of a type it does not know. The names of the event
// types are the protocol package's Event… constants.
type Event = protocol.Event

// TurnUsage is what one turn's model calls used, added up from their
// assistant.usage events (Reply.Usage). Token counts are zero when the
// model API did not report them. (quorum.Usage is a run's totals across
// turns and models, in quorum's JSON.)
type TurnUsage struct {
	Model              string  `json:"model,omitempty"`
	InputTokens        int     `json:"inputTokens,omitempty"`
	OutputTokens       int     `json:"outputTokens,omitempty"`
	CacheReadTokens    int     `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens   int     `json:"cacheWriteTokens,omitempty"`
	Cost               float64 `json:"cost,omitempty"`
	Duration           float64 `json:"duration,omitempty"`
	TimeToFirstTokenMs float64 `json:"timeToFirstTokenMs,omitempty"`
}

// Add accumulates another model call's usage.
func (u *TurnUsage) Add(o TurnUsage) {
	if o.Model != "" {
		u.Model = o.Model
	}
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.Cost += o.Cost
	u.Duration += o.Duration
}
