package quorum

import (
	"context"
	"fmt"
	"strings"
)

// ToolAccess gives a conversation the provider's own tools (files, shell),
// for an agent's executor (OpenOptions.Tools). A Backend that cannot act
// returns an error from Open when it is set.
type ToolAccess struct {
	// Dir is the folder the tools work in.
	Dir string
	// Decide answers every permission request of the conversation. It may
	// be called from several goroutines at once and blocks while a person
	// or a vote decides; the provider must honour ctx.
	Decide func(ctx context.Context, a Action) ActionDecision
	// OnTool is told of each tool call as it starts (Done false) and as it
	// ends (Done true), from the goroutine reading the conversation.
	OnTool func(ToolUse)
	// Sandbox confines the tools' commands; nil runs them unconfined. A
	// Backend that cannot confine them as it says must fail Open: an
	// executor never runs with less confinement than asked for.
	Sandbox *ToolSandbox
	// OnSandbox is told of each record of the provider's sandbox (Round
	// and Step left for the caller), from the goroutine reading the
	// conversation.
	OnSandbox func(SandboxDecision)
}

// ToolUse is one tool call of the executor.
type ToolUse struct {
	// ID is the provider's id for the call.
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the call's arguments, as JSON text, cut to a few
	// hundred bytes.
	Arguments string `json:"arguments"`
	Done      bool   `json:"done"`
	// OK is true when the call succeeded; Result is the start of what it
	// returned, or of its error.
	OK     bool   `json:"ok"`
	Result string `json:"result,omitempty"`
}

// describe is one line for progress: "create {"path":…}" or "create: ok".
func (u ToolUse) describe() string {
	if !u.Done {
		return fmt.Sprintf("%s %s", u.Tool, oneLine(u.Arguments))
	}
	outcome := "ok"
	if !u.OK {
		outcome = "failed"
	}
	if r := oneLine(u.Result); r != "" {
		outcome += ": " + r
	}
	return fmt.Sprintf("%s → %s", u.Tool, cutRunes(outcome, 200))
}

// maxToolText bounds a ToolUse's Arguments and Result.
const maxToolText = 300

// cutToolText cuts a tool's arguments or result for a ToolUse.
func cutToolText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxToolText {
		return s
	}
	return cutUTF8(s, maxToolText) + "…"
}

// cutUTF8 returns s cut to at most n bytes, never inside a character: a
// reply clipped for parsing, a tool's text for the result.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
