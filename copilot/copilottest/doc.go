// Package copilottest runs a simulated GitHub Copilot CLI in your tests, as
// net/http/httptest runs an HTTP server: no CLI, no login, no network.
// NewServer starts it in the test's process with a *copilot.Client already
// connected, and the test's cleanup closes both:
//
//	func TestWeatherTool(t *testing.T) {
//		srv := copilottest.NewServer(t, copilottest.Model{
//			ID:      "m",
//			Respond: copilottest.UseTool("weather", map[string]string{"city": "Oslo"}, copilottest.Say("Take an umbrella.")),
//		})
//		s, err := srv.Client().NewSession(t.Context(), copilot.SessionConfig{
//			Model:       "m",
//			Tools:       []copilot.Tool{weatherTool},
//			Permissions: copilot.ApproveAll,
//		})
//		if err != nil {
//			t.Fatal(err)
//		}
//		answer, err := s.Ask(t.Context(), "Do I need an umbrella?")
//		// answer is "Take an umbrella."; weatherTool ran with {"city":"Oslo"}.
//	}
//
// A Model is a script: a function from the Turn it sees (the prompt, the
// tools, the results of its tool calls) to the Response it gives. Echo,
// Say, Stream, UseTool, AskUser, Elicit, Fail, Stall, Crash and Delay
// build the usual ones; write your own for anything else. A Response
// streams text in chunks, calls tools (your client tools by name, the
// CLI's built-in ones, BuiltinView to BuiltinWebFetch, each asking a
// permission of its own kind, or with CallAsking any tool by the
// permission request it asks, of any kind), asks the user a question
// (AskUser), asks for a form (Elicit), fails the turn (Failure), hangs it
// (Hang), or crashes the connection mid-turn (Crash).
//
// Package quorum's strategies need models that answer its prompts:
// package quorum/quorumtest offers them on a server of this package's.
//
// What a test asserts on: Requests, every request the client sent with its
// params; Sessions, the sessions alive; Events, the events sent for a
// session. Faults: Delay and Stall slow or stop a model, Crash kills the
// connection mid-turn, DropEvents and DuplicateEvents lose or repeat
// events on the wire, CloseConnections ends every connection at once,
// LoggedOut plays a CLI with no login. Dial opens another connection, for
// copilot.Connect with options of your own.
//
// Premium requests are reported as the CLI reports them: each model's
// multiplier in Client.Models (PremiumMultiplier sets one; 1 otherwise),
// each model call's cost in assistant.usage (the multiplier, once per
// model request), and the account's allowance in Client.PremiumQuota
// (PremiumQuota sets it, NoPremiumQuota reports none; a Copilot Pro
// account's 300 a month otherwise).
//
// # Sandbox
//
// A session created with copilot.SessionConfig.Sandbox is confined as the
// CLI 1.0.102 confines its built-in tools, within what the simulator
// plays (it never touches anything outside the session's working
// directory, and opens no connection):
//
//   - view, create and edit of a path the Sandbox does not allow are
//     refused before any permission request: the call fails with "Is a
//     sandbox denied path.", "Outside the sandbox's writable paths." or
//     "Outside the sandbox's readable paths.", the model reads that the
//     sandbox blocked it, and a sandbox.decision event (kind
//     access_denied) records it. With AllowBypass the call asks instead:
//     a permission request with RequestSandboxBypass set, then a
//     sandbox.decision bypass_decided.
//   - a bash command, once allowed, is recorded as confined
//     (sandbox.decision policy_resolved, spawn_completed,
//     enforcement_state). Inside it a denied folder looks empty and a
//     denied file unreadable ("Permission denied", with an access_denied
//     record). A detached command (mode "async", detach true) is refused
//     before asking, or with AllowBypass asked as a bypass request; an
//     approved one is reported started, unconfined, and nothing runs.
//   - every built-in tool's tool.execution_complete says Sandboxed.
//
// Client.SandboxHostSupport answers that the host can run every feature
// of the sandbox.
//
// # Fidelity
//
// The server is the project's own simulator (the one its tests, the
// quorum command's --sim and copilot-sim use): it speaks the protocol of the pinned Copilot
// CLI (1.0.102) — the same methods, events and their order, the same
// permission and tool flows, the CLI's own wording of its failures — and
// its traffic is checked against that CLI's JSON schemas by this package's
// tests. It plays no model: a reply is exactly what the script says.
//
// # Concurrency
//
// Every method of Server is safe for concurrent use, and so is the Client.
// Each session's turns run one at a time, in the order sent, on a
// goroutine of the server's; different sessions' turns run at the same
// time, so a Script shared by sessions must be safe for concurrent use. A
// script may block, but must return: the server cannot interrupt it.
// Delays, Stall and the waits for the client's answers end when the turn
// is aborted, its session destroyed or the connection closed. Close
// returns once every goroutine the server and its client started has
// ended, so goleak finds none.
//
// Requests and Events are records of what already happened: to wait for
// something, wait on the client (Ask, Stream, a handler that signals a
// channel), then assert on the records. They keep everything, so a server
// is for one test, not for a long benchmark.
//
// # Compatibility
//
// While this module is v0, names exported here keep their meaning; new
// fields, options and scripts may be added. What may change, following
// the pinned CLI version: the exact sequence and content of the events
// of a turn, the CLI's wording of its errors, the built-in tools' output.
// Test what your code does with a response, not the simulator's exact
// bytes, except for the text your own scripts give.
//
// The script's types are the simulator's own (Turn, Response and the
// types they hold are aliases of them): a script's Response is played as
// it is, nothing converted on the way.
//
// Moved and renamed since the first release, so that one idea has one
// name; a test follows in one edit:
//
//   - QuorumModels, QuorumParticipants and QuorumModerator moved to
//     package quorum/quorumtest: quorumtest.NewServer(t) (or
//     quorumtest.Models) for NewServer(t, QuorumModels()),
//     quorumtest.Participants, quorumtest.Moderator; quorumtest.Config
//     is the quorum.Config over them. A server given no Model no longer
//     offers them: NewServer with no Model fails with ErrInvalidModel.
//   - Reply is Response (copilot.Reply is a turn's outcome); Exchange's
//     Reply field is Response.
//   - ToolResult is ToolCallResult (copilot.ToolResult is what a tool's
//     handler returns); Turn.ToolResults keeps its name.
//   - Response.Stall is Response.Hang (the Stall script stays: it gives
//     responses that hang).
//   - Response.Question is Response.AskUser, of type UserQuestion, whose
//     Text field is Question (the Question type is UserQuestion).
//   - Response.Form is Response.Elicit, of type Elicitation, whose Fields
//     are Properties; Turn.Form is Turn.Elicitation, of type
//     ElicitationAnswer (Form and FormAnswer are those types).
//   - Response.Error is Response.Failure, of type Failure (was
//     SessionError).
//   - New, as the simulator has them: Response.ChunkSize, SubAgents and
//     Usage; Failure.AfterChunks, ErrorCode, AutoModeSwitch and
//     RetryAfterSeconds; Turn.Builtins, CanAskUser, Seed and Rand.
package copilottest
