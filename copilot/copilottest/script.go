package copilottest

import (
	"github.com/quorum-go/quorum/internal/sim"
)

// The script's types are the server's own: each below is an alias of the
// simulator's type, so what a script returns is what the server plays,
// with nothing converted on the way. Their fields are listed in each
// type's comment here, as go doc shows an alias's comment but not the
// fields behind it.

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

// A Script produces a model's Response to one model call: once per turn,
// and once more after each round of tool calls, question or form
// (Turn.Call counts them). Scripts of different sessions run at the same
// time, so a script must be safe for concurrent use; those of one session
// run one at a time. A script may block, but must return: the server
// cannot interrupt it (return a Response with Hang for a turn that never
// ends). A script that panics fails the turn with a session.error that
// names the panic.
type Script func(Turn) Response

// Turn is what a script sees of one model call:
//
//	Model            string             // the model id the call asks for (the session's model)
//	SessionID        string
//	Prompt           string             // the prompt as the model gets it
//	SystemMessage    string             // what the session's configuration added to the system prompt
//	Number           int                // the session's turns, from 1
//	Call             int                // the model calls within the turn, from 0
//	Tools            []string           // the client tools the session registered (copilot.SessionConfig.Tools), in order
//	Builtins         []string           // the built-in tools the session offers (BuiltinView, …)
//	WorkingDirectory string             // where the built-in tools act; empty: the session has none, and they fail
//	CanAskUser       bool               // the session answers questions (copilot.SessionConfig.Handlers.UserInputRequest)
//	ToolResults      []ToolCallResult   // the tool calls made so far in this turn, in order; empty on the first call
//	History          []Exchange         // the session's earlier completed turns, oldest first
//	Elicitation      *ElicitationAnswer // the client's answer to the turn's latest Response.Elicit; nil until one was answered
//
// Its methods: UserAnswer returns the client's answer to the turn's latest
// Response.AskUser question, and false when none was answered (none was
// asked, the session has no user-input handler, or the handler failed).
// Seed is a hash of the model and the prompt, and Rand a generator seeded
// with it and Call, for scripts whose responses vary yet repeat from run
// to run.
type Turn = sim.Turn

// Exchange is one completed turn of a session: its Prompt and the final
// Text of its Response.
//
//	Prompt   string
//	Response string
type Exchange = sim.Exchange

// ToolCallResult is the outcome of one tool call a script asked for, as
// the model reads it (copilot.ToolResult is something else: what a
// client tool's handler gives back).
//
//	CallID     string
//	Name       string
//	Arguments  json.RawMessage
//	Text       string // what the model reads: the tool's text, or on failure the error's
//	ResultType string // "success", "failure", "denied", or what the client's tool reported
//	Error      string // set when the call failed: the handler's error, a refused permission, an unknown tool
//
// Its OK method reports whether the call succeeded (Error is empty).
type ToolCallResult = sim.ToolCallResult

// Response is a model's answer to one model call:
//
//	Text            string        // the assistant's message
//	Chunks          int           // stream Text in this many pieces; zero: pieces of about 20 characters, as the CLI
//	ChunkSize       int           // or in pieces of this many characters
//	FirstTokenDelay time.Duration // waits before the first piece
//	ChunkDelay      time.Duration // and after each one: the only waits the server adds
//
//	ToolCalls []ToolCall     // tools the model calls: the session's client tools by name, or the built-in ones
//	AskUser   *UserQuestion  // asks the user, as the CLI's ask_user tool (copilot.SessionConfig.Handlers.UserInputRequest answers)
//	Elicit    *Elicitation   // asks the user to fill in a form (copilot.SessionConfig.OnElicitation answers)
//	SubAgents []SubAgentText // sub-agents' messages, streamed before the main agent's
//
//	Failure *Failure // fails the turn with session.error: the client's error wraps copilot.ErrTurnFailed
//	Hang    bool     // keeps the turn running, after its text, until the client aborts it, the session ends or the connection closes
//	Crash   bool     // closes the connection abruptly once Text has streamed, as a CLI that dies mid-turn
//	Usage   *Usage   // the tokens assistant.usage reports; nil estimates four bytes a token
//
// Fields combine in this order: the delay, then Text streams; then
// Failure, Hang or Crash end the turn; else the message is sent and its
// question, tool calls and form run, in that order, after which the script
// is called again with their results (Turn.UserAnswer, Turn.ToolResults,
// Turn.Elicitation). A session without a user-input handler has no
// ask_user tool, as on the CLI: the question's call fails. A session
// without OnElicitation is not asked: the form is cancelled at once
// (Turn.Elicitation.Action "cancel").
type Response = sim.Response

// ToolCall asks for one call of a tool:
//
//	ID         string          // the call's id; empty means one is made up
//	Name       string
//	Arguments  json.RawMessage
//	Permission json.RawMessage // see below
//
// Permission plays a tool the CLI has and the server plays no other way —
// an MCP server's, memory, … — by the permission it asks: this request, of
// any kind, as the schema's permissionRequest object (CallAsking builds
// it). Approved, the call succeeds with PermittedToolOutput; refused, it
// fails as the refusal says. For the session's client tools and the
// built-in ones it is ignored: they ask their own.
type ToolCall = sim.ToolCall

// UserQuestion is a question for the user (Response.AskUser):
//
//	Question      string
//	Choices       []string // the answers offered, if any
//	AllowFreeform *bool    // whether an answer outside Choices is accepted; nil leaves it to the client (the CLI's default is yes)
type UserQuestion = sim.UserQuestion

// Elicitation is a form for the user to fill in (Response.Elicit): a
// message and its fields, each described by a JSON schema
// ({"type":"string"}, …).
//
//	Message    string
//	Properties map[string]json.RawMessage
//	Required   []string
type Elicitation = sim.Elicitation

// ElicitationAnswer is the client's answer to an Elicitation: Action
// "accept" with the fields' values in Content, "decline" or "cancel".
//
//	Action  string
//	Content map[string]json.RawMessage
type ElicitationAnswer = sim.ElicitationAnswer

// Failure is a failed model call (Response.Failure), reported as
// session.error:
//
//	Type        string // the errorType: "query" (the default), "rate_limit", "authentication", …
//	Message     string
//	AfterChunks int    // pieces of Response.Text streamed before the error
//	ErrorCode   string // session.error's errorCode, if set ("rate_limited", …)
//	StatusCode  int    // the model API's HTTP status, if set
//
//	AutoModeSwitch    bool // offer the switch to the auto model, as CLI 1.0.102 does after a rate limit
//	RetryAfterSeconds int  // what that offer says to wait; zero leaves it out
//
// With AutoModeSwitch the turn waits for the client's answer to the offer
// (copilot.SessionConfig.Handlers.AutoModeSwitchRequest; without it the
// client says no); yes switches the session's model to "auto", whose calls
// the server's first model answers.
type Failure = sim.Failure

// SubAgentText is what one sub-agent says during a model call
// (Response.SubAgents): its events carry AgentID, which must not be empty
// (the turn fails if it is).
//
//	AgentID string
//	Text    string
type SubAgentText = sim.SubAgentText

// Usage is the tokens one model call reports in assistant.usage
// (Response.Usage), which copilot.TurnUsage adds up over a turn.
//
//	InputTokens  int
//	OutputTokens int
type Usage = sim.Usage

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
func Call(name string, args any) ToolCall { return sim.Call(name, args) }

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

// toSim is m as the engine runs it: the script is the engine's own
// function type.
func (m Model) toSim() sim.Model {
	return sim.Model{ID: m.ID, Name: m.Name, Respond: m.Respond}
}
