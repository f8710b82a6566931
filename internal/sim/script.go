package sim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// Model is a scripted model the server offers under ID.
type Model struct {
	// ID is what session.create's "model" names and models.list reports.
	ID string
	// Name is the display name in models.list; empty means ID.
	Name string
	// Multiplier is how many premium requests one request to the model
	// counts: models.list reports it as the model's billing.multiplier,
	// and each of its model calls' assistant.usage as its cost. Nil
	// means 1. WithMultiplier sets it.
	Multiplier *float64
	// Respond produces the model's reply to one model call. It runs on the
	// turn's own goroutine, so it may block (a test can use that to hold turns
	// open), but it should return: the simulator cannot interrupt it. For a
	// turn that never ends, return a Response with Hang set instead.
	Respond func(Turn) Response
}

// With returns a copy of m whose Respond tries rules in order and falls back
// to m's own Respond. It is the hook for layers that need participants with
// roles (answer, review with JSON verdicts, vote, synthesise): they add rules
// matching their prompts without rewriting the model.
func (m Model) With(rules ...Rule) Model {
	m.Respond = Rules(m.Respond, rules...)
	return m
}

// Turn is what a script sees for one model call.
type Turn struct {
	// Model is the model id the call asks for: the session's model, which
	// session.model.switchTo and the auto-mode switch change (AutoModel is
	// answered by Options.DefaultModel's script).
	Model     string
	SessionID string
	// Prompt is the prompt as the model gets it: rewritten by a
	// userPromptSubmitted hook, and after a model switch preceded by the
	// CLI's notice of it.
	Prompt        string
	SystemMessage string
	// Number counts the session's turns (one per session.send), from 1.
	Number int
	// Call counts model calls within the turn, from 0; it goes up each time
	// the script is called again with tool results.
	Call int
	// Tools names the client tools the session registered, in order.
	Tools []string
	// Builtins names the CLI's built-in tools the simulator plays that the
	// session offers (all of ToolBash, ToolView, ToolCreate, ToolEdit and
	// ToolWebFetch unless availableTools or excludedTools left some out);
	// a script calls one with ViewCall, CreateCall, EditCall, BashCall or
	// WebFetchCall.
	Builtins []string
	// WorkingDirectory is the session's workingDirectory, where the
	// built-in tools act (relative paths are taken from it); empty when
	// the session was created without one, and the file tools then fail.
	WorkingDirectory string
	// CanAskUser is true when the session was created (or resumed) with
	// requestUserInput, so that Response.AskUser reaches the client. The real
	// CLI offers its model the ask_user tool only then.
	CanAskUser bool
	// ToolResults holds the results of every tool call made so far in this
	// turn, in order. Empty on the first call.
	ToolResults []ToolCallResult
	// History holds the session's earlier completed turns, oldest first.
	History []Exchange
	// Elicitation is the client's answer to the turn's latest
	// Response.Elicit form; nil when none was answered yet.
	Elicitation *ElicitationAnswer
}

// Seed is a deterministic hash of the model and prompt: scripts that vary
// their replies use it so that a run is repeatable.
func (t Turn) Seed() uint64 {
	h := fnv.New64a()
	h.Write([]byte(t.Model))
	h.Write([]byte{0})
	h.Write([]byte(t.Prompt))
	return h.Sum64()
}

// Rand returns a generator seeded with Seed and the call number.
func (t Turn) Rand() *rand.Rand {
	return rand.New(rand.NewPCG(t.Seed(), uint64(t.Call)))
}

// Exchange is one completed turn of a session: its prompt and the final text
// of the reply.
type Exchange struct {
	Prompt   string
	Response string
}

// ToolCallResult is the outcome of one tool call, as given back to the model.
type ToolCallResult struct {
	CallID    string
	Name      string
	Arguments json.RawMessage
	// Text is what the model reads: textResultForLlm on success, or the
	// error text on failure — for a failed built-in tool the CLI's longer
	// wording for the model ("Path /x does not exist. Please provide a
	// valid path."), where Error has its terse one ("Path does not
	// exist").
	Text string
	// ResultType is the client's resultType ("success", "failure", ...), or
	// "failure" when the call failed before reaching the client.
	ResultType string
	// Error is non-empty when the call failed: "permission denied", an error
	// the client returned, or a tool the session did not register.
	Error string
}

// OK reports whether the tool call succeeded.
func (r ToolCallResult) OK() bool { return r.Error == "" }

// UserAnswer returns the client's answer to the turn's latest AskUser
// question (the Text of its AskUserTool result), and false when no question
// was answered: none was asked, the session cannot ask, or the client
// answered with an error.
func (t Turn) UserAnswer() (string, bool) {
	for i := len(t.ToolResults) - 1; i >= 0; i-- {
		if r := t.ToolResults[i]; r.Name == AskUserTool {
			return r.Text, r.OK()
		}
	}
	return "", false
}

// ToolCall asks for one tool call: of a client tool the session
// registered, or of a built-in tool the simulator plays (Turn.Builtins;
// ViewCall and its kin build those).
type ToolCall struct {
	// ID is the toolCallId; empty means one is generated.
	ID        string
	Name      string
	Arguments json.RawMessage
	// Permission, for a tool the session neither registered nor has
	// built in, plays a tool of the CLI's that the simulator has no other
	// way to play (an MCP server's, memory, …): the call asks this
	// permission request, any kind of the schema's permissionRequest
	// ({"kind":"mcp", "serverName", …}), as the client tool's are asked;
	// approved, it succeeds with PermittedToolOutput. Ignored for other
	// tools, which ask their own.
	Permission json.RawMessage
}

// PermittedToolOutput is the result of a ToolCall.Permission call once
// approved.
const PermittedToolOutput = "(simulated) the tool ran"

// Call builds a ToolCall whose arguments are args marshalled to JSON. An
// argument that cannot be marshalled becomes JSON null.
func Call(name string, args any) ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte("null")
	}
	return ToolCall{Name: name, Arguments: b}
}

// Response is the model's answer to one call. Fields combine: text is streamed
// first, then a Failure or Hang takes effect; ToolCalls send the turn back to
// the script with their results.
type Response struct {
	// Text is the assistant message.
	Text string
	// Chunks splits Text into this many streamed pieces (of about equal
	// length in runes). ChunkSize instead cuts pieces of that many runes.
	// Neither: pieces of 20 runes, about what the real CLI emits.
	Chunks    int
	ChunkSize int
	// FirstTokenDelay passes before the first piece; ChunkDelay after each.
	// Non-streaming sessions wait the same total before the message.
	FirstTokenDelay time.Duration
	ChunkDelay      time.Duration

	// ToolCalls are requested after the message; the script is then called
	// again with their results.
	ToolCalls []ToolCall
	// AskUser puts a question to the user, as the real CLI's ask_user tool
	// does: it is requested like a tool call (of AskUserTool, before the
	// ToolCalls) and, in a session created with requestUserInput, runs as
	// user_input.requested, a userInput.request to the client (waited for
	// until answered or the turn is stopped), user_input.completed. The
	// script is then called again and finds the answer in Turn.UserAnswer.
	// Without requestUserInput the tool does not exist, as on the real
	// CLI: the call fails and the script sees the failed ToolCallResult.
	AskUser *UserQuestion

	// SubAgents stream their text before the main agent's message: each as
	// assistant.message_delta events (streaming sessions) and an
	// assistant.message, all with the envelope's agentId set to AgentID.
	// Their text is not part of Text, of the turn's Exchange or of the main
	// message; it is chunked and paced as Text is.
	SubAgents []SubAgentText

	// Failure ends the turn with session.error (after Failure.AfterChunks
	// streamed pieces) and session.idle.
	Failure *Failure
	// Hang keeps the turn running, after any text has streamed, until it is
	// aborted, its session destroyed or the connection closed.
	Hang bool
	// Crash ends the connection abruptly once any text has streamed (with
	// no assistant.message), as when the CLI dies mid-turn: the frames
	// queued before go out, then the transport closes, with no error and
	// no goodbye. The server goes on serving other connections.
	Crash bool

	// Elicit asks the user to fill in a form, as the CLI does for an MCP
	// server's tool: after the message (and the ToolCalls) the round
	// emits elicitation.requested {requestId, message, mode:"form",
	// requestedSchema} and waits until the client answers with
	// session.ui.handlePendingElicitation (or the turn is stopped); then
	// elicitation.completed {requestId, action, content}. The script is
	// then called again and finds the answer in Turn.Elicitation. A
	// session created without requestElicitation is not asked: the form
	// is cancelled at once (action "cancel"), as no one could answer it.
	Elicit *Elicitation

	// Usage is what assistant.usage reports. Nil estimates four bytes a token.
	Usage *Usage
}

// SubAgentText is what one sub-agent says during a model call.
type SubAgentText struct {
	// AgentID is the agentId its events carry. It must not be empty: the
	// turn fails with session.error if it is.
	AgentID string
	Text    string
}

// Elicitation is a form for the user (Response.Elicit): a message and the
// JSON schema of its fields, an object schema's "properties" and
// "required".
type Elicitation struct {
	Message string
	// Properties describe the fields by name, each a JSON schema
	// ({"type":"string"}, …).
	Properties map[string]json.RawMessage
	Required   []string
}

// ElicitationAnswer is the client's answer to an Elicitation: its action
// ("accept", "decline" or "cancel") and, when accepted, the fields' values.
type ElicitationAnswer struct {
	Action  string
	Content map[string]json.RawMessage
}

// AskUserTool is the name of the built-in tool through which the model asks
// the user a question; Response.AskUser requests it.
const AskUserTool = "ask_user"

// UserQuestion is a question for the user: the params of the
// userInput.request the client receives, less the session id.
type UserQuestion struct {
	Question string
	// Choices, when given, are offered as the answers to pick from.
	Choices []string
	// AllowFreeform says whether an answer outside Choices is accepted;
	// nil leaves it out (the CLI's default is true).
	AllowFreeform *bool
}

// call is the ask_user tool call that asks q.
func (q UserQuestion) call() ToolCall {
	return Call(AskUserTool, askUserArgs(q))
}

// askUserArgs are the arguments of an ask_user call: the question, as
// userInput.request carries it.
type askUserArgs struct {
	Question      string   `json:"question"`
	Choices       []string `json:"choices,omitempty"`
	AllowFreeform *bool    `json:"allowFreeform,omitempty"`
}

// Failure describes a failed model call.
type Failure struct {
	// Type is session.error's errorType, e.g. "query", "rate_limit",
	// "authentication". Empty means "query".
	Type    string
	Message string
	// AfterChunks streamed pieces of Response.Text go out before the error.
	AfterChunks int
	// ErrorCode and StatusCode, when set, are session.error's errorCode
	// (e.g. "rate_limited") and statusCode (the model API's HTTP status).
	ErrorCode  string
	StatusCode int
	// AutoModeSwitch makes the failure one the CLI offers to get round by
	// switching the session to the auto model, as CLI 1.0.102 does after
	// a rate limit: the turn's round ends (assistant.turn_end), then
	// session.error (eligibleForAutoSwitch) and auto_mode_switch.requested
	// {requestId, errorCode, retryAfterSeconds}; the turn then waits until
	// the client answers — with session.ui.handlePendingAutoModeSwitch,
	// or, in a session created with requestAutoModeSwitch, with the answer
	// to the autoModeSwitch.request sent just before the event, whichever
	// comes first (a JSON-RPC error is a "no"). auto_mode_switch.completed
	// reports the answer; "yes" or "yes_always" switch the session's model
	// to AutoModel (session.model_change). The turn ends with
	// assistant.idle and session.idle.
	AutoModeSwitch bool
	// RetryAfterSeconds is auto_mode_switch.requested's retryAfterSeconds
	// (and the request's); zero leaves it out.
	RetryAfterSeconds int
}

// Usage is reported token counts.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// chunks splits text (Text, or a sub-agent's) as r asks; streaming sessions
// send one delta per piece.
func (r Response) chunks(text string) []string {
	runes := []rune(text)
	if len(runes) == 0 {
		return nil
	}
	size := r.ChunkSize
	if r.Chunks > 0 {
		n := min(r.Chunks, len(runes))
		out := make([]string, 0, n)
		for i := range n {
			lo, hi := i*len(runes)/n, (i+1)*len(runes)/n
			out = append(out, string(runes[lo:hi]))
		}
		return out
	}
	if size <= 0 {
		size = 20
	}
	out := make([]string, 0, (len(runes)+size-1)/size)
	for lo := 0; lo < len(runes); lo += size {
		out = append(out, string(runes[lo:min(lo+size, len(runes))]))
	}
	return out
}

// usage returns what assistant.usage reports for this call.
func (r Response) usage(t Turn) Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	in := len(t.SystemMessage) + len(t.Prompt)
	for _, res := range t.ToolResults {
		in += len(res.Text)
	}
	return Usage{InputTokens: in/4 + 1, OutputTokens: len(r.Text)/4 + 1}
}

// callScript runs respond, turning a panic, or a reply the simulator cannot
// play, into a failed reply so that a broken script fails its turn instead
// of the process.
func callScript(respond func(Turn) Response, t Turn) (r Response) {
	defer func() {
		if p := recover(); p != nil {
			r = Fail("query", fmt.Sprintf("simulated model %q panicked: %v", t.Model, p))
		}
	}()
	r = respond(t)
	for i, sub := range r.SubAgents {
		if sub.AgentID == "" {
			// Its events would pass for the main agent's.
			return Fail("query", fmt.Sprintf("simulated model %q: SubAgents[%d] has no AgentID", t.Model, i))
		}
	}
	return r
}
