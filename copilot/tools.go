package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// ToolCall is one call of a client tool by the model.
type ToolCall struct {
	SessionID string
	ID        string // the CLI's toolCallId
	Name      string
	Arguments json.RawMessage
}

// ToolHandler runs a tool. Its text goes back to the model. An error makes
// the call fail (the turn goes on): the model is told only that it failed,
// unless the error is a ToolError, whose ForModel it reads; the error's
// text stays with the program (the session's log, ToolTrace). Its ctx ends
// with the turn and with the session (its connection lost, its client
// closed, …; context.Cause says why): return then, or the turn waits for
// the handler.
type ToolHandler func(ctx context.Context, call ToolCall) (string, error)

// Tool is a client tool the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments.
	Parameters json.RawMessage
	// SkipPermission exempts the tool from the permission policy: the CLI
	// then calls it without asking.
	SkipPermission bool
	// OverridesBuiltInTool lets the tool take the place of the CLI's
	// built-in tool of the same name (grep, view, …): the model is offered
	// this one, and its calls run Handler. Without it, a client tool named
	// as a built-in one fails the session's turns, whether or not
	// BuiltinTools offers that built-in (CLI 1.0.102: "conflicts with a
	// built-in tool of the same name").
	OverridesBuiltInTool bool
	Handler              ToolHandler
}

// ToolStage wraps the handling of every tool call of a session: a
// middleware. Stages are assembled once, when the session is created. A
// stage that panics is logged and skipped for that call; it never breaks
// the turn.
type ToolStage struct {
	Name string
	Wrap func(next ToolHandler) ToolHandler
}

// LimitToolCalls allows at most n tool calls per turn. Past that, the call
// gets an error result and the turn is aborted with ErrToolLimit. Calls
// that come between Stream turns (of a turn started with Send, or of a
// background agent) are counted the same way, from one session.idle to the
// next; past n the session's work is aborted.
func LimitToolCalls(n int) ToolStage {
	return ToolStage{Name: "limit", Wrap: func(next ToolHandler) ToolHandler {
		return func(ctx context.Context, call ToolCall) (string, error) {
			if t := toolCountOf(ctx); t != nil {
				t.calls++
				if t.calls > n {
					return "", &ToolError{ForModel: fmt.Sprintf("tool-call limit reached (at most %d per turn); the turn is aborted", n),
						Err: fmt.Errorf("%w (at most %d per turn)", ErrToolLimit, n)}
				}
			}
			return next(ctx, call)
		}
	}}
}

// TruncateToolOutput cuts results longer than max bytes, at a character
// boundary, and says so in the text the model reads.
func TruncateToolOutput(max int) ToolStage {
	return ToolStage{Name: "truncate", Wrap: func(next ToolHandler) ToolHandler {
		return func(ctx context.Context, call ToolCall) (string, error) {
			out, err := next(ctx, call)
			if len(out) <= max {
				return out, err
			}
			cut := max
			for cut > 0 && !utf8.RuneStart(out[cut]) {
				cut--
			}
			return out[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", cut, len(out)), err
		}
	}}
}

// ProfileTools restricts a session to the named tools: only they are
// declared to the CLI (see SessionConfig.Profile) and a call to any other is
// refused.
func ProfileTools(profile string, allowed []string) ToolStage {
	return ToolStage{Name: "profile", Wrap: func(next ToolHandler) ToolHandler {
		return func(ctx context.Context, call ToolCall) (string, error) {
			if !slices.Contains(allowed, call.Name) {
				return "", forModel("tool %q is not in profile %q", call.Name, profile)
			}
			return next(ctx, call)
		}
	}}
}

// TraceEntry is one recorded tool call.
type TraceEntry struct {
	Session   string          `json:"session"`
	Tool      string          `json:"tool"`
	CallID    string          `json:"callId"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
	Start     time.Time       `json:"start"`
	Duration  time.Duration   `json:"duration"`
}

// ToolTrace records every tool call that passes its stage, for
// transcripts. Safe for concurrent use; one trace may serve many sessions.
type ToolTrace struct {
	mu      sync.Mutex
	entries []TraceEntry
	// OnEntry, if set, gets each entry as it is recorded.
	OnEntry func(TraceEntry)
}

// Entries returns a copy of what was recorded.
func (t *ToolTrace) Entries() []TraceEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.entries)
}

// Stage is the recording stage.
func (t *ToolTrace) Stage() ToolStage {
	return ToolStage{Name: "trace", Wrap: func(next ToolHandler) ToolHandler {
		return func(ctx context.Context, call ToolCall) (string, error) {
			start := time.Now()
			out, err := next(ctx, call)
			e := TraceEntry{Session: call.SessionID, Tool: call.Name, CallID: call.ID, Arguments: call.Arguments,
				Result: out, Start: start, Duration: time.Since(start)}
			if err != nil {
				e.Error = err.Error()
			}
			t.mu.Lock()
			t.entries = append(t.entries, e)
			onEntry := t.OnEntry
			t.mu.Unlock()
			if onEntry != nil {
				onEntry(e)
			}
			return out, err
		}
	}}
}

// buildPipeline composes stages around invoke, the innermost stage that
// runs the tool, outermost first.
func buildPipeline(stages []ToolStage, invoke ToolHandler, log zerolog.Logger) ToolHandler {
	h := invoke
	for i := len(stages) - 1; i >= 0; i-- {
		h = guardStage(stages[i], h, log)
	}
	return h
}

// guardStage skips a stage that panics, calling next directly (or keeping
// next's answer if the stage panicked after calling it).
func guardStage(s ToolStage, next ToolHandler, log zerolog.Logger) ToolHandler {
	type answer struct {
		out string
		err error
	}
	return func(ctx context.Context, call ToolCall) (out string, err error) {
		var got *answer
		inner := func(ctx context.Context, call ToolCall) (string, error) {
			o, e := next(ctx, call)
			got = &answer{o, e}
			return o, e
		}
		defer func() {
			if p := recover(); p != nil {
				log.Error().Str("session", call.SessionID).Str("stage", s.Name).Interface("panic", p).Str("stack", string(debug.Stack())).
					Msg("a tool stage panicked; skipping it")
				if got != nil {
					out, err = got.out, got.err
				} else {
					out, err = next(ctx, call)
				}
			}
		}()
		return s.Wrap(inner)(ctx, call)
	}
}

// safeHandler turns a handler's panic into an error for the model.
func safeHandler(h ToolHandler) ToolHandler {
	return func(ctx context.Context, call ToolCall) (out string, err error) {
		defer func() {
			if p := recover(); p != nil {
				out, err = "", fmt.Errorf("tool %s panicked: %v", call.Name, p)
			}
		}()
		return h(ctx, call)
	}
}

// toolCount is what LimitToolCalls counts, read from the context: the tool
// calls of one Stream turn, or of the work between turns up to its
// session.idle (turnState.betweenTurns).
type toolCount struct {
	calls int
	// aborted: the work was aborted for passing the limit (used between
	// turns, where no turn's error says so).
	aborted bool
}

type toolCountKey struct{}

func withToolCount(ctx context.Context, t *toolCount) context.Context {
	return context.WithValue(ctx, toolCountKey{}, t)
}

func toolCountOf(ctx context.Context) *toolCount {
	t, _ := ctx.Value(toolCountKey{}).(*toolCount)
	return t
}
