package quorum

import "context"

// Backend opens conversations with models. It is all quorum needs from a
// model provider: Copilot adapts a *copilot.Client, and tests or other
// providers can implement it directly. Open may be called from many
// goroutines at once.
type Backend interface {
	// Open starts a fresh conversation with one model. It must honour ctx.
	// On error it returns no conversation: nothing is left to close.
	Open(ctx context.Context, o OpenOptions) (Conversation, error)
}

// OpenOptions describe the conversation to open.
type OpenOptions struct {
	// Model is the model id, as the provider names it.
	Model string
	// SystemMessage is added to the provider's system prompt.
	SystemMessage string
	// Tools, when set, gives the conversation the provider's own tools to
	// act with, in a folder, every action asked of Tools.Decide: an
	// agent's executor (Agent). Nil: the conversation only talks, as in
	// every other strategy. A Backend that cannot act fails Open.
	Tools *ToolAccess
}

// Conversation is one model session. quorum sends one prompt at a time to a
// conversation and closes it when its phase no longer needs it.
type Conversation interface {
	// Send sends prompt and waits for the whole reply, passing each piece of
	// streamed text to onDelta (which may be nil) as it arrives. When ctx
	// ends, Send must stop the turn on the provider's side and return
	// ctx.Err() (or an error wrapping it) promptly.
	Send(ctx context.Context, prompt string, onDelta func(string)) (Reply, error)
	// Close ends the conversation on the provider's side, so that nothing is
	// left running there. quorum calls it exactly once, with a context that
	// stays valid for Config.CloseTimeout even after the run was cancelled.
	Close(ctx context.Context) error
}

// Reply is a model's whole reply to one prompt.
type Reply struct {
	Text  string
	Usage Usage
}

// Usage is what a provider reported about the cost of model calls. Fields
// stay zero when the provider did not report them.
type Usage struct {
	// Calls counts the model calls that reported usage.
	Calls            int     `json:"calls"`
	InputTokens      int     `json:"inputTokens"`
	OutputTokens     int     `json:"outputTokens"`
	CacheReadTokens  int     `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int     `json:"cacheWriteTokens,omitempty"`
	Cost             float64 `json:"cost,omitempty"`
	// ContextTokens and ContextLimit are the largest context fill and window
	// reported (the CLI's session.usage_info); they are maxima, not sums,
	// because adding context windows together means nothing.
	ContextTokens int `json:"contextTokens,omitempty"`
	ContextLimit  int `json:"contextLimit,omitempty"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.Calls += o.Calls
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.Cost += o.Cost
	u.ContextTokens = max(u.ContextTokens, o.ContextTokens)
	u.ContextLimit = max(u.ContextLimit, o.ContextLimit)
}
