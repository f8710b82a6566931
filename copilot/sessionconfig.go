package copilot

import (
	"context"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// SessionConfig configures a new session. Only Model is usually needed;
// Validate says which values are refused.
type SessionConfig struct {
	// ID is the session id to use; default a new UUID. With AssignedID the
	// server picks it instead (creations are then serialised).
	ID         string
	AssignedID bool

	// Model is the model the session asks for. It may be empty with a
	// Provider whose ModelID names one: that is the model then.
	Model string
	// ReasoningEffort is how hard a model that supports it reasons:
	// "low", "medium", "high", "xhigh" or "max"; empty is the model's
	// default.
	ReasoningEffort string
	// ReasoningSummary asks a model that supports it for a summary of its
	// reasoning (protocol.ReasoningSummaryConcise or …Detailed), or for
	// none (…None); empty is the model's default.
	ReasoningSummary protocol.ReasoningSummary
	// ClientName names the application in the User-Agent of the CLI's
	// model requests.
	ClientName string

	// SystemMessage is added after the CLI's system prompt; SystemMode
	// SystemReplace makes it the whole prompt instead, and SystemCustomize
	// changes the CLI's prompt section by section (SystemSections, keyed
	// by Section… ids) before adding it.
	SystemMessage  string
	SystemMode     SystemMode
	SystemSections map[string]SectionOverride

	// WorkingDirectory is the session's working directory on the CLI side;
	// AdditionalDirectories are more directories the agent may use.
	WorkingDirectory      string
	AdditionalDirectories []string
	// ConfigDirectory is where the session keeps its configuration and
	// state, instead of the CLI's own.
	ConfigDirectory string
	// DisableStreaming asks for whole messages instead of text deltas.
	DisableStreaming bool
	// TurnInactivity, if positive, ends a turn with ErrTurnInactive (and
	// aborts it on the CLI) when no event comes from the CLI for that long
	// — not counting the time the client itself spends on a tool or a
	// permission. Zero: no limit.
	TurnInactivity time.Duration
	// StreamSubAgents streams sub-agents' text deltas too (to
	// TurnHandlers.OnAgentDelta); without it the CLI sends only their
	// whole messages. Either way their text is kept apart from the main
	// reply, in Reply.AgentText.
	StreamSubAgents bool

	// BuiltinTools names the CLI's own tools (bash, view, edit, ...) the
	// model may use. nil offers all of them; NoBuiltinTools() offers none.
	BuiltinTools []string
	// ExcludedTools names tools the model is not offered: built-in ones,
	// client Tools or MCP servers' tools. It applies besides BuiltinTools.
	ExcludedTools []string
	// Tools are client tools, run in this process by their Handler.
	Tools []Tool
	// MCPServers are MCP servers whose tools the model may use, by name.
	MCPServers map[string]MCPServer
	// CustomAgents are agents of the session's own, to which the main
	// agent may hand work; Agent, when set, names the one that runs the
	// session's turns.
	CustomAgents []CustomAgent
	Agent        string
	// SkillDirectories are directories of skills (SKILL.md files) the
	// agent may load, beside the CLI's own; DisabledSkills names skills it
	// may not. InstructionDirectories are more directories searched for
	// custom instruction files (AGENTS.md, copilot-instructions.md, …).
	SkillDirectories       []string
	DisabledSkills         []string
	InstructionDirectories []string
	// InfiniteSessions, when set, tunes or switches off the compaction
	// that keeps a long session within the model's context window.
	InfiniteSessions *InfiniteSessions

	// Provider, when set, is a model provider of your own (bring your own
	// key: OpenAI-compatible, Azure or Anthropic) that the session uses
	// instead of GitHub Copilot's; Model is then the provider's model
	// (Provider.ModelID when Model is empty).
	Provider *protocol.ProviderConfig
	// GitHubToken authenticates this session as the token's owner, instead
	// of the CLI's login.
	GitHubToken string

	// Sandbox, when set, confines the built-in tools' commands with the
	// CLI's own process sandbox (see Sandbox); nil leaves them unconfined,
	// as the CLI does for the sessions a client creates.
	Sandbox *Sandbox

	// Permissions decides the CLI's permission requests. Default DenyAll.
	Permissions PermissionPolicy
	// Hooks are Go functions the CLI calls before and after tool calls,
	// when a prompt is submitted, and at other points; see Hooks.
	Hooks *Hooks
	// OnElicitation fills in the forms the CLI asks the user for
	// (elicitation.requested: from an MCP server's tool, or another client
	// calling session.ui.elicitation); setting it tells the CLI at creation
	// that this client can. It runs on a goroutine of its own, since a
	// person may take a while; its context ends when the CLI no longer
	// waits (the request was answered elsewhere or the turn aborted), the
	// session ends or the client closes, and it must return then. An error
	// or a nil response cancels the form.
	OnElicitation func(ctx context.Context, req *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error)

	// OnEvent gets every event of the session, in order, at any time:
	// during turns (before the turn's own TurnHandlers.OnEvent) and between
	// them (background agents, title changes, the events of a turn started
	// with Send). It runs on one goroutine at a time and must return
	// promptly: while it runs the session reads nothing more, and a session
	// that falls behind by its buffer's bound fails alone.
	OnEvent func(Event)
	// Handlers answer the requests the CLI sends this session: the
	// schema's (Handlers.HooksInvoke, Handlers.SessionFSReadFile, …) and
	// the older ones (Handlers.UserInputRequest, …). Setting
	// UserInputRequest, ExitPlanModeRequest, AutoModeSwitchRequest or
	// HooksInvoke also tells the CLI, at creation, that it may send them.
	// A request without a handler is declined where the protocol has a
	// way to say no, and answered with an error naming the handler
	// otherwise: the CLI never waits on an unanswered request.
	Handlers protocol.Handlers

	// The tool pipeline, assembled in this order around every tool call:
	// Trace (records), MaxToolCalls (per-turn limit; for calls between
	// Stream turns — a Send's turn, a background agent — per run up to
	// session.idle), Profile (only the
	// profile's tools are declared and callable), Stages (yours),
	// MaxToolOutputBytes (truncation).
	Trace              *ToolTrace
	MaxToolCalls       int
	Profile            string
	Profiles           map[string][]string
	Stages             []ToolStage
	MaxToolOutputBytes int

	// ExtraParams are session.create (and session.resume) params that no
	// field above names, by their wire name, for what the CLI reads and
	// this type does not type yet: {"enableCitations": true},
	// {"sessionLimits": …}, {"organizationCustomInstructions": "…"}. Each
	// value is sent as encoding/json marshals it. A name a field above
	// sends (model, tools, systemMessage, …) is refused: those come from
	// the fields.
	ExtraParams map[string]any
}

// InfiniteSessions tunes how the CLI keeps a long session within the
// model's context window: it compacts the conversation in the background
// once the window is BackgroundCompactionThreshold full (a fraction) and
// makes the session wait for compaction at BufferExhaustionThreshold.
// Zero thresholds are the CLI's defaults (0.80 and 0.95).
type InfiniteSessions struct {
	// Disabled switches compaction off: a session that fills the window
	// fails.
	Disabled                      bool
	BackgroundCompactionThreshold float64
	BufferExhaustionThreshold     float64
}

// reasoningEfforts are the values ReasoningEffort takes besides empty.
var reasoningEfforts = []string{"low", "medium", "high", "xhigh", "max"}

// askUserTool is the CLI's tool through which the model asks the user,
// with a userInput.request to the client.
const askUserTool = "ask_user"

// NoBuiltinTools(), as SessionConfig.BuiltinTools, switches the CLI's own
// tools off: no shell, no file writes, no web access. A function, not a
// variable, so that no code can set it to nil and turn every tool back on
// in the sessions of code that trusts it.
func NoBuiltinTools() []string { return []string{} }
