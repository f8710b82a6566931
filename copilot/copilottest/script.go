package copilottest

import (
	"encoding/json"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
)

// A Model is a scripted model the server offers under ID; it is also an
// Option: pass it to NewServer to offer it.
type Model struct {
	// ID is what copilot.SessionConfig.Model names and Client.Models lists.
	ID string
	// Name is the display name Client.Models reports; empty means ID.
	Name string
	// Respond answers each model call (see Script).
	Respond Script
}

// A Script produces a model's reply to one model call: once per turn, and
// once more after each round of tool calls, question or form (Turn.Call
// counts them). Scripts of different sessions run at the same time, so a
// script must be safe for concurrent use; those of one session run one at a
// time. A script may block, but must return: the server cannot interrupt
// it (return Stall for a turn that never ends). A script that panics fails
// the turn with a session.error that names the panic.
type Script func(Turn) Reply

// Turn is what a script sees of one model call.
type Turn struct {
	// Model is the model id the call asks for (the session's model).
	Model     string
	SessionID string
	// Prompt is the prompt as the model gets it; SystemMessage what the
	// session's configuration added to the system prompt.
	Prompt        string
	SystemMessage string
	// Number counts the session's turns, from 1; Call counts the model
	// calls within the turn, from 0.
	Number int
	Call   int
	// Tools names the client tools the session registered
	// (copilot.SessionConfig.Tools), in order.
	Tools []string
	// WorkingDirectory is the session's working directory, where the
	// built-in tools (BuiltinView, …) act; empty when the session has
	// none, and they then fail.
	WorkingDirectory string
	// ToolResults are the results of the tool calls made so far in this
	// turn, in order: empty on the first call.
	ToolResults []ToolResult
	// Form is the client's answer to the turn's latest Reply.Form; nil
	// until one was answered.
	Form *FormAnswer
	// History holds the session's earlier completed turns, oldest first.
	History []Exchange
}

// UserAnswer returns the client's answer to the turn's latest
// Reply.Question, and false when none was answered: none was asked, the
// session has no user-input handler, or the handler failed.
func (t Turn) UserAnswer() (string, bool) {
	for i := len(t.ToolResults) - 1; i >= 0; i-- {
		if r := t.ToolResults[i]; r.Name == sim.AskUserTool {
			return r.Text, r.OK()
		}
	}
	return "", false
}

// Exchange is one completed turn: its prompt and the reply's final text.
type Exchange struct {
	Prompt string
	Reply  string
}

// ToolResult is the outcome of one tool call, as the model reads it.
type ToolResult struct {
	CallID    string
	Name      string
	Arguments json.RawMessage
	// Text is what the model reads: the tool's text, or on failure the
	// error's.
	Text string
	// ResultType is "success", "failure", "denied", or what the client's
	// tool reported.
	ResultType string
	// Error is set when the call failed: the handler's error, a refused
	// permission, a tool the session did not register.
	Error string
}

// OK reports whether the tool call succeeded.
func (r ToolResult) OK() bool { return r.Error == "" }

// Reply is a model's answer to one call. Fields combine in this order: the
// delay, then Text streams; then Error, Stall or Crash end the turn; else
// the message is sent and its Question, ToolCalls and Form run, in that
// order, after which the script is called again with their results.
type Reply struct {
	// Text is the assistant's message.
	Text string
	// Chunks streams Text in this many pieces; zero cuts pieces of about
	// 20 characters, as the CLI does.
	Chunks int
	// FirstTokenDelay passes before the first piece, ChunkDelay after
	// each one. They are the only waits the server adds.
	FirstTokenDelay time.Duration
	ChunkDelay      time.Duration

	// ToolCalls are the tools the model calls: the session's client tools
	// by name, or the CLI's built-in ones (BuiltinBash, …).
	ToolCalls []ToolCall
	// Question asks the user, as the CLI's ask_user tool does: the
	// client's copilot.SessionConfig.Handlers.UserInputRequest answers
	// it. A session without that handler has no ask_user tool, as on the
	// CLI: the call fails.
	Question *Question
	// Form asks the user to fill in a form (an elicitation), answered by
	// the session's copilot.SessionConfig.OnElicitation; the turn waits
	// for the answer. A session without OnElicitation is not asked: the
	// form is cancelled at once (Turn.Form.Action "cancel").
	Form *Form

	// Error fails the turn with session.error, which the client reports
	// as an error wrapping copilot.ErrTurnFailed.
	Error *SessionError
	// Stall keeps the turn running, after its text, until the client
	// aborts it, the session ends or the connection closes.
	Stall bool
	// Crash closes the connection abruptly once Text has streamed, as a
	// CLI that dies mid-turn: the client sees the connection end.
	Crash bool
}

// ToolCall asks for one call of a tool.
type ToolCall struct {
	// ID is the call's id; empty means one is made up.
	ID        string
	Name      string
	Arguments json.RawMessage
	// Permission plays a tool the CLI has and the server plays no other
	// way — an MCP server's, memory, … — by the permission it asks: this
	// request, of any kind, as the schema's permissionRequest object
	// (CallAsking builds it from a protocol.PermissionRequest… value).
	// Approved, the call succeeds with PermittedToolOutput; refused, it
	// fails as the refusal says. For the session's client tools and the
	// built-in ones it is ignored: they ask their own.
	Permission json.RawMessage
}

// PermittedToolOutput is what a ToolCall.Permission call gives the model
// once approved.
const PermittedToolOutput = "(simulated) the tool ran"

// CallAsking builds a call of a tool the server plays by the permission it
// asks (ToolCall.Permission): permission is the request, a
// protocol.PermissionRequestMCP{Kind: "mcp", …} or any value that marshals
// to one of the schema's kinds. Either argument that cannot be marshalled
// is sent as JSON null.
func CallAsking(name string, args, permission any) ToolCall {
	c := Call(name, args)
	c.Permission = sim.Call("", permission).Arguments
	return c
}

// Call builds a ToolCall whose arguments are args as JSON. Arguments that
// cannot be marshalled are sent as JSON null.
func Call(name string, args any) ToolCall {
	c := sim.Call(name, args)
	return ToolCall{Name: c.Name, Arguments: c.Arguments}
}

// The CLI's built-in tools the server plays, as CLI 1.0.102 runs them,
// inside the session's working directory only. Each asks a permission of
// its own kind before it runs: read for view, write for create and edit,
// shell for bash, url for web_fetch (a client tool asks one of kind
// custom-tool). bash runs only a few harmless commands (pwd, echo, ls, cat,
// git status, diff and log); web_fetch fetches nothing.
const (
	BuiltinView     = "view"      // {"path", "view_range"?: [first, last]}
	BuiltinCreate   = "create"    // {"path", "file_text"}
	BuiltinEdit     = "edit"      // {"path", "old_str", "new_str"}
	BuiltinBash     = "bash"      // {"command", "description"}
	BuiltinWebFetch = "web_fetch" // {"url"}
)

// Question is a question for the user.
type Question struct {
	Text string
	// Choices, if any, are the answers offered.
	Choices []string
	// AllowFreeform says whether an answer outside Choices is accepted;
	// nil leaves it to the client (the CLI's default is yes).
	AllowFreeform *bool
}

// Form is a form for the user to fill in: a message and its fields, each
// described by a JSON schema ({"type":"string"}, …).
type Form struct {
	Message  string
	Fields   map[string]json.RawMessage
	Required []string
}

// FormAnswer is the client's answer to a Form: "accept" with the fields'
// values, "decline" or "cancel".
type FormAnswer struct {
	Action  string
	Content map[string]json.RawMessage
}

// SessionError is a failed model call, reported as session.error.
type SessionError struct {
	// Type is the errorType: "query" (the default), "rate_limit",
	// "authentication", ….
	Type    string
	Message string
	// StatusCode, if set, is the model API's HTTP status.
	StatusCode int
}

// Echo answers "echo: " and the prompt.
func Echo(t Turn) Reply { return Reply{Text: "echo: " + t.Prompt} }

// Say answers every call with text.
func Say(text string) Script {
	return func(Turn) Reply { return Reply{Text: text} }
}

// Stream answers every call with text, streamed in chunks pieces with delay
// before each.
func Stream(text string, chunks int, delay time.Duration) Script {
	return func(Turn) Reply {
		return Reply{Text: text, Chunks: chunks, FirstTokenDelay: delay, ChunkDelay: delay}
	}
}

// UseTool calls tool name with args on a turn's first model call and hands
// every later call, which carries the result (Turn.ToolResults), to then.
func UseTool(name string, args any, then Script) Script {
	call := Call(name, args)
	return func(t Turn) Reply {
		if t.Call == 0 {
			return Reply{ToolCalls: []ToolCall{call}}
		}
		return then(t)
	}
}

// AskUser puts q to the user on a turn's first model call and hands every
// later call, which carries the answer (Turn.UserAnswer), to then.
func AskUser(q Question, then Script) Script {
	return func(t Turn) Reply {
		if t.Call == 0 {
			return Reply{Question: &q}
		}
		return then(t)
	}
}

// Elicit asks the user to fill in f on a turn's first model call and hands
// every later call, which carries the answer (Turn.Form), to then.
func Elicit(f Form, then Script) Script {
	return func(t Turn) Reply {
		if t.Call == 0 {
			return Reply{Form: &f}
		}
		return then(t)
	}
}

// Fail fails every turn with session.error of errorType and message.
func Fail(errorType, message string) Script {
	return func(Turn) Reply { return Reply{Error: &SessionError{Type: errorType, Message: message}} }
}

// Stall is a script whose turns never end on their own: the client must
// abort them (cancel the turn's context) or give up.
func Stall(Turn) Reply { return Reply{Stall: true} }

// Crash streams partial, then closes the connection, as a CLI that dies
// mid-turn.
func Crash(partial string) Script {
	return func(Turn) Reply { return Reply{Text: partial, Crash: true} }
}

// Delay makes s's replies wait d more before their first piece.
func Delay(d time.Duration, s Script) Script {
	return func(t Turn) Reply {
		r := s(t)
		r.FirstTokenDelay += d
		return r
	}
}

// toSim is m as the engine runs it.
func (m Model) toSim() sim.Model {
	respond := m.Respond
	return sim.Model{ID: m.ID, Name: m.Name, Respond: func(t sim.Turn) sim.Response { return respond(fromSimTurn(t)).toSim() }}
}

func fromSimTurn(t sim.Turn) Turn {
	out := Turn{
		Model: t.Model, SessionID: t.SessionID, Prompt: t.Prompt, SystemMessage: t.SystemMessage,
		Number: t.Number, Call: t.Call, Tools: t.Tools, WorkingDirectory: t.WorkingDirectory,
	}
	for _, r := range t.ToolResults {
		out.ToolResults = append(out.ToolResults, ToolResult{CallID: r.CallID, Name: r.Name, Arguments: r.Arguments,
			Text: r.Text, ResultType: r.ResultType, Error: r.Error})
	}
	for _, e := range t.History {
		out.History = append(out.History, Exchange{Prompt: e.Prompt, Reply: e.Response})
	}
	if a := t.Elicitation; a != nil {
		out.Form = &FormAnswer{Action: a.Action, Content: a.Content}
	}
	return out
}

func (r Reply) toSim() sim.Response {
	out := sim.Response{
		Text: r.Text, Chunks: r.Chunks, FirstTokenDelay: r.FirstTokenDelay, ChunkDelay: r.ChunkDelay,
		Hang: r.Stall, Crash: r.Crash,
	}
	for _, c := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, sim.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Permission: c.Permission})
	}
	if q := r.Question; q != nil {
		out.AskUser = &sim.UserQuestion{Question: q.Text, Choices: q.Choices, AllowFreeform: q.AllowFreeform}
	}
	if f := r.Form; f != nil {
		out.Elicit = &sim.Elicitation{Message: f.Message, Properties: f.Fields, Required: f.Required}
	}
	if e := r.Error; e != nil {
		out.Failure = &sim.Failure{Type: e.Type, Message: e.Message, StatusCode: e.StatusCode}
	}
	return out
}
