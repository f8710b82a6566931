package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// Handlers observe a turn while it is read. Each field may be nil. They run
// on the goroutine reading the turn, so they may make calls on the router
// (answer a permission request, say) without any risk of deadlock: the
// router's reader never waits for this goroutine.
type Handlers struct {
	// OnDelta gets each streamed piece of assistant text.
	OnDelta func(text string)
	// OnEvent gets every session event of the turn, in order, deltas included.
	OnEvent func(Event)
	// OnRequest gets incoming requests other than tool.call (for example
	// userInput.request) and must answer them. When nil, they are answered
	// with a method-not-found error so the CLI does not wait forever.
	OnRequest func(context.Context, Message)
}

// ToolRequest is the model asking the client to run one of its tools.
type ToolRequest struct {
	// RequestID is set for the protocol-3 external_tool.requested event; the
	// answer is a session.tools.handlePendingToolCall call naming it.
	RequestID  string          `json:"requestId,omitempty"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	// Request is set for the protocol-2 tool.call request, answered by
	// replying to it.
	Request *Message `json:"-"`
}

// PermissionRequest is the CLI asking whether an action may go ahead; the
// answer is a session.permissions.handlePendingPermissionRequest call.
type PermissionRequest struct {
	RequestID string `json:"requestId"`
	// Kind and ToolName are lifted from the request for convenience; Details
	// holds it whole.
	Kind     string          `json:"-"`
	ToolName string          `json:"-"`
	Details  json.RawMessage `json:"permissionRequest"`
}

// Step is what Next read: a finished turn, or a request the caller must
// answer before the turn can go on.
type Step struct {
	// Text is the assistant text read in this step.
	Text       string
	Tool       *ToolRequest
	Permission *PermissionRequest
}

// Done reports whether the turn ended (session.idle) in this step.
func (s Step) Done() bool { return s.Tool == nil && s.Permission == nil }

// Next reads the current turn until it ends or until the model needs the
// caller: a tool call (protocol-3 event or protocol-2 request) or a
// permission request. After answering, call Next again to read on.
//
// A turn that ends after session.error returns a *TurnError; one that ends
// after an abort returns ErrAborted. Both wait for the closing session.idle
// so the next turn starts clean.
func (c *Channel) Next(ctx context.Context, h *Handlers) (Step, error) {
	if h == nil {
		h = &Handlers{}
	}
	var (
		messages []string        // complete assistant messages
		partial  strings.Builder // deltas of a message not yet complete
		failure  error
	)
	// text is everything read: the complete messages and, when the step
	// ends mid-message (a lost connection, an abort), the streamed part.
	text := func() string {
		if partial.Len() == 0 {
			return strings.Join(messages, "\n\n")
		}
		return strings.Join(append(messages[:len(messages):len(messages)], partial.String()), "\n\n")
	}
	for {
		m, err := c.Receive(ctx)
		if err != nil {
			return Step{Text: text()}, err
		}
		if m.IsRequest() {
			if m.Method == MethodToolCall {
				var t ToolRequest
				if err := json.Unmarshal(m.Params, &t); err != nil || t.ToolName == "" {
					why := "no toolName"
					if err != nil {
						why = err.Error()
					}
					_ = m.ReplyError(ctx, jsonrpc2.CodeInvalidParams, "tool.call params not understood: "+why)
					continue
				}
				t.Request = &m
				return Step{Text: text(), Tool: &t}, nil
			}
			if h.OnRequest != nil {
				h.OnRequest(ctx, m)
			} else {
				_ = m.ReplyError(ctx, jsonrpc2.CodeMethodNotFound, "method "+m.Method+" is not handled by this client")
			}
			continue
		}
		if m.Method != MethodEvent {
			continue
		}
		ev, err := m.Event()
		if err != nil {
			continue // not ours to judge; the router counted it as routed
		}
		if h.OnEvent != nil {
			h.OnEvent(ev)
		}
		switch ev.Type {
		case EventMessageDelta:
			var d struct {
				DeltaContent string `json:"deltaContent"`
			}
			if ev.Decode(&d) == nil && d.DeltaContent != "" {
				partial.WriteString(d.DeltaContent)
				if h.OnDelta != nil {
					h.OnDelta(d.DeltaContent)
				}
			}
		case EventMessage:
			var d struct {
				Content string `json:"content"`
			}
			if ev.Decode(&d) == nil {
				// The message supersedes the deltas that streamed it.
				partial.Reset()
				if d.Content != "" {
					messages = append(messages, d.Content)
				}
			}
		case EventToolRequested:
			var t ToolRequest
			if err := ev.Decode(&t); err == nil && t.RequestID != "" {
				return Step{Text: text(), Tool: &t}, nil
			}
		case EventPermissionRequest:
			var p PermissionRequest
			if err := ev.Decode(&p); err == nil && p.RequestID != "" {
				var d struct {
					Kind     string `json:"kind"`
					ToolName string `json:"toolName"`
				}
				_ = json.Unmarshal(p.Details, &d)
				p.Kind, p.ToolName = d.Kind, d.ToolName
				return Step{Text: text(), Permission: &p}, nil
			}
		case EventError:
			var d struct {
				ErrorType string `json:"errorType"`
				Message   string `json:"message"`
			}
			_ = ev.Decode(&d)
			if failure == nil {
				failure = &TurnError{Type: d.ErrorType, Message: d.Message}
			}
		case EventAbort:
			if failure == nil {
				failure = ErrAborted
			}
		case EventIdle:
			return Step{Text: text()}, failure
		}
	}
}

// ReadTurn reads the current turn to its end and returns the assistant's
// text. It has no tool handler: a tool or permission request ends it with
// ErrUnexpectedTool (a protocol-2 tool.call is answered with an error
// first). Use Next to run tools.
func (c *Channel) ReadTurn(ctx context.Context, h *Handlers) (string, error) {
	step, err := c.Next(ctx, h)
	if err != nil {
		return step.Text, err
	}
	if step.Tool != nil {
		if step.Tool.Request != nil {
			_ = step.Tool.Request.ReplyError(ctx, jsonrpc2.CodeMethodNotFound, "no handler for tool "+step.Tool.ToolName)
		}
		return step.Text, fmt.Errorf("%w (%s)", ErrUnexpectedTool, step.Tool.ToolName)
	}
	if step.Permission != nil {
		return step.Text, fmt.Errorf("%w (permission for %s)", ErrUnexpectedTool, step.Permission.Kind)
	}
	return step.Text, nil
}
