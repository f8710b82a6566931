package quorum

import (
	"context"
	"errors"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// Copilot adapts a Copilot CLI client to Backend. Every conversation is a
// new streaming session with the CLI's built-in tools switched off (no
// shell, no file access, no web) and every permission request denied:
// quorum's models only talk. The exception is an agent's executor
// (OpenOptions.Tools): its session has the file, search, shell and fetch
// tools in Tools.Dir, confined by the CLI's own sandbox as Tools.Sandbox
// says (sandboxConfig; CheckSandbox asks the CLI whether the host can),
// and every permission request goes to Tools.Decide. Close deletes the
// session from the CLI (stops
// it and removes it from disk), so that a run leaves nothing in the user's
// session history: a discussion opens seven sessions, each for one turn.
// Token usage comes from the CLI's assistant.usage and session.usage_info
// events.
func Copilot(c *copilot.Client) Backend { return copilotBackend{c: c} }

type copilotBackend struct{ c *copilot.Client }

func (b copilotBackend) Open(ctx context.Context, o OpenOptions) (Conversation, error) {
	if b.c == nil {
		return nil, errors.New("quorum: Copilot was given a nil *copilot.Client; start one with copilot.Start or copilot.Connect")
	}
	cfg := copilot.SessionConfig{
		Model:         o.Model,
		SystemMessage: o.SystemMessage,
		BuiltinTools:  copilot.NoBuiltinTools(),
		Permissions:   copilot.DenyAll,
	}
	var onTool func(ToolUse)
	var onSandbox func(SandboxDecision)
	if o.Tools != nil {
		cfg, onTool, onSandbox = actingConfig(o), o.Tools.OnTool, o.Tools.OnSandbox
	}
	s, err := b.c.NewSession(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &copilotConversation{s: s, onTool: onTool, onSandbox: onSandbox}, nil
}

// CheckSandbox asks the CLI whether this host can run its sandbox
// (sandbox.getHostSupport) with what an executor needs: commands in it,
// and its denied paths.
func (b copilotBackend) CheckSandbox(ctx context.Context) error {
	if b.c == nil {
		return errors.New("quorum: Copilot was given a nil *copilot.Client; start one with copilot.Start or copilot.Connect")
	}
	h, err := b.c.SandboxHostSupport(ctx)
	if err != nil {
		return err
	}
	if err := h.Err("shell", "denied_paths"); err != nil {
		return sandboxUnavailable(err)
	}
	return nil
}

type copilotConversation struct {
	s         *copilot.Session
	onTool    func(ToolUse)         // nil unless the conversation acts (OpenOptions.Tools)
	onSandbox func(SandboxDecision) // likewise
}

// usageInfo is the data of session.usage_info: how full the context is.
type usageInfo struct {
	TokenLimit    float64 `json:"tokenLimit"`
	CurrentTokens float64 `json:"currentTokens"`
}

func (c *copilotConversation) Send(ctx context.Context, prompt string, onDelta func(string)) (Reply, error) {
	var u Usage
	// OnEvent runs on the goroutine reading the turn, the same one Stream
	// runs on, so u needs no lock.
	r, err := c.s.Stream(ctx, prompt, copilot.TurnHandlers{
		OnDelta: onDelta,
		OnEvent: func(ev copilot.Event) {
			if c.onTool != nil {
				if u, ok := toolUse(ev); ok {
					c.onTool(u)
				}
			}
			if c.onSandbox != nil {
				if d, ok := sandboxDecision(ev); ok {
					c.onSandbox(d)
				}
			}
			switch ev.Type {
			case protocol.EventAssistantUsage:
				u.Calls++
			case protocol.EventSessionUsageInfo:
				var info usageInfo
				if ev.UnmarshalData(&info) == nil {
					u.ContextTokens = max(u.ContextTokens, int(info.CurrentTokens))
					u.ContextLimit = max(u.ContextLimit, int(info.TokenLimit))
				}
			}
		},
	})
	u.InputTokens = r.Usage.InputTokens
	u.OutputTokens = r.Usage.OutputTokens
	u.CacheReadTokens = r.Usage.CacheReadTokens
	u.CacheWriteTokens = r.Usage.CacheWriteTokens
	u.Cost = r.Usage.Cost
	return Reply{Text: r.Text, Usage: u}, err
}

func (c *copilotConversation) Close(ctx context.Context) error { return c.s.Delete(ctx) }
