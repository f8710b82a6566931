package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// TurnHandlers observe a turn while it is read: its text as it streams
// and its events. Each field may be nil. They run on the goroutine reading
// the turn, so they may make calls on the router (answer a permission
// request, say) without any risk of deadlock: the router's reader never
// waits for this goroutine. Package copilot's TurnHandlers is this type.
type TurnHandlers struct {
	// OnDelta gets each streamed piece of the main agent's text.
	OnDelta func(text string)
	// OnAgentDelta gets each streamed piece of a sub-agent's text, with the
	// agentId the CLI gave it. A sub-agent's text is never passed to
	// OnDelta nor counted in Step.Text.
	OnAgentDelta func(agentID, text string)
	// OnEvent gets every session event of the turn, in order, deltas
	// included.
	OnEvent func(Event)
}

// RequestHandler answers an incoming request read mid-turn that is not a
// tool call (userInput.request, say): it must answer it (Message.Respond or
// RespondError), on the reading goroutine or later. It answers rather than
// observes, so it is given to Next beside the TurnHandlers, not among them.
type RequestHandler func(context.Context, Message)

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

// ParseToolCall reads a protocol-2 tool.call request; the error says what
// is wrong with one that cannot be run, for the answer.
func ParseToolCall(m Message) (*ToolRequest, error) {
	var t ToolRequest
	if err := json.Unmarshal(m.Params, &t); err != nil {
		return nil, fmt.Errorf("tool.call params not understood: %v", err)
	}
	if t.ToolName == "" {
		return nil, errors.New("tool.call params not understood: no toolName")
	}
	t.Request = &m
	return &t, nil
}

// ToolRequestOf reads an external_tool.requested event; ok is false for
// one that names no request to answer.
func ToolRequestOf(ev Event) (*ToolRequest, bool) {
	var t ToolRequest
	if ev.UnmarshalData(&t) != nil || t.RequestID == "" {
		return nil, false
	}
	return &t, true
}

// Step is what Next read: a finished turn, or a request the caller must
// answer before the turn can go on.
type Step struct {
	// Text is the main agent's text read in this step.
	Text string
	// AgentText is what sub-agents said in this step, by agentId, kept
	// apart from the main agent's Text; nil when none spoke.
	AgentText  map[string]string
	Tool       *ToolRequest
	Permission *PermissionRequest
}

// Done reports whether the turn ended (session.idle) in this step.
func (s Step) Done() bool { return s.Tool == nil && s.Permission == nil }

// agentText is what one agent said in a step: its complete messages and,
// when the step ends mid-message (a lost connection, an abort), the
// streamed part of the next.
type agentText struct {
	messages []string
	partial  strings.Builder
}

// delta adds streamed text and returns how many bytes it added.
func (a *agentText) delta(s string) int { a.partial.WriteString(s); return len(s) }

// message records a complete message, which supersedes the deltas that
// streamed it, and returns how many bytes the text grew by (negative when
// the message is shorter than what streamed).
func (a *agentText) message(content string) int {
	grew := len(content) - a.partial.Len()
	a.partial.Reset()
	if content != "" {
		a.messages = append(a.messages, content)
	}
	return grew
}

func (a *agentText) String() string {
	if a.partial.Len() == 0 {
		return strings.Join(a.messages, "\n\n")
	}
	return strings.Join(append(a.messages[:len(a.messages):len(a.messages)], a.partial.String()), "\n\n")
}

// stepText is everything a step read, the main agent's text and each
// sub-agent's, by agentId ("" is the main agent).
type stepText map[string]*agentText

func (t stepText) of(agentID string) *agentText {
	a := t[agentID]
	if a == nil {
		a = &agentText{}
		t[agentID] = a
	}
	return a
}

// step returns a Step carrying the text read so far.
func (t stepText) step() Step {
	var s Step
	for id, a := range t {
		if id == "" {
			s.Text = a.String()
			continue
		}
		if s.AgentText == nil {
			s.AgentText = map[string]string{}
		}
		s.AgentText[id] = a.String()
	}
	return s
}

// Next reads the current turn until it ends or until the model needs the
// caller: a tool call (protocol-3 event or protocol-2 request) or a
// permission request. After answering, call Next again to read on. h (may
// be nil) observes the turn; onRequest answers the other requests read
// meanwhile, and when nil they are answered with a method-not-found error,
// so that the CLI does not wait forever.
//
// A turn that ends after session.error returns a *TurnError; one that ends
// after an abort returns ErrAborted. Both wait for the closing session.idle
// so the next turn starts clean. A step whose text passes
// Config.MaxTurnTextBytes stops there with an error wrapping
// ErrTurnTooLarge (contract 5 of the package doc): the turn goes on on the
// server, and the caller should abort it.
func (c *Channel) Next(ctx context.Context, h *TurnHandlers, onRequest RequestHandler) (Step, error) {
	if h == nil {
		h = &TurnHandlers{}
	}
	text := stepText{}
	size := 0 // bytes of text held, bounded by c.maxTurnText
	var failure error
	for {
		if size > c.maxTurnText {
			return text.step(), fmt.Errorf("%w: session %s read %d bytes of text in one step, over %d", ErrTurnTooLarge, c.id, size, c.maxTurnText)
		}
		m, err := c.Receive(ctx)
		if err != nil {
			return text.step(), err
		}
		if m.IsRequest() {
			if m.Method == protocol.MethodToolCall {
				t, err := ParseToolCall(m)
				if err != nil {
					_ = m.RespondError(ctx, jsonrpc2.CodeInvalidParams, err.Error())
					continue
				}
				s := text.step()
				s.Tool = t
				return s, nil
			}
			if onRequest != nil {
				onRequest(ctx, m)
			} else {
				_ = m.RespondError(ctx, jsonrpc2.CodeMethodNotFound, "method "+m.Method+" is not handled by this client")
			}
			continue
		}
		if m.Method != protocol.NotificationSessionEvent {
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
		case protocol.EventAssistantMessageDelta:
			if delta, ok := m.deltaText(); ok && delta != "" {
				size += text.of(ev.AgentID).delta(delta)
				switch {
				case ev.AgentID == "" && h.OnDelta != nil:
					h.OnDelta(delta)
				case ev.AgentID != "" && h.OnAgentDelta != nil:
					h.OnAgentDelta(ev.AgentID, delta)
				}
			}
		case protocol.EventAssistantMessage:
			// Only the content: the rest of the message (tool requests,
			// reasoning) is the caller's to decode from OnEvent.
			var d struct {
				Content string `json:"content"`
			}
			if ev.UnmarshalData(&d) == nil {
				size += text.of(ev.AgentID).message(d.Content)
			}
		case protocol.EventExternalToolRequested:
			if t, ok := ToolRequestOf(ev); ok {
				s := text.step()
				s.Tool = t
				return s, nil
			}
		case protocol.EventPermissionRequested:
			if p, ok := PermissionRequestOf(ev); ok {
				p.SessionID = c.id
				s := text.step()
				s.Permission = p
				return s, nil
			}
		case protocol.EventSessionError:
			var d protocol.ErrorData
			_ = ev.UnmarshalData(&d)
			if failure == nil {
				failure = &TurnError{Type: d.ErrorType, Message: d.Message}
			}
		case protocol.EventAbort:
			if failure == nil {
				failure = ErrAborted
			}
		case protocol.EventSessionIdle:
			return text.step(), failure
		}
	}
}

// ReadTurn reads the current turn to its end and returns the assistant's
// text. It answers nothing: a tool or permission request ends it with
// ErrUnexpectedTool (a protocol-2 tool.call is answered with an error
// first), and any other request is answered with a method-not-found error.
// Use Next to run tools or answer requests.
func (c *Channel) ReadTurn(ctx context.Context, h *TurnHandlers) (string, error) {
	step, err := c.Next(ctx, h, nil)
	if err != nil {
		return step.Text, err
	}
	if step.Tool != nil {
		if step.Tool.Request != nil {
			_ = step.Tool.Request.RespondError(ctx, jsonrpc2.CodeMethodNotFound, "no handler for tool "+step.Tool.ToolName)
		}
		return step.Text, fmt.Errorf("%w (%s)", ErrUnexpectedTool, step.Tool.ToolName)
	}
	if step.Permission != nil {
		return step.Text, fmt.Errorf("%w (permission for %s)", ErrUnexpectedTool, step.Permission.Kind)
	}
	return step.Text, nil
}
