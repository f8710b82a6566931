// Package sim is a simulated GitHub Copilot CLI server, shipped in the quorum
// binary for its --sim demo and used by tests as a fast, scriptable peer: it
// speaks the JSON-RPC protocol of the real CLI 1.0.102 in headless mode, so
// that unit tests, fault injection, benchmarks with hundreds of sessions and
// an offline demo can run without the real CLI. Models are scripts
// (Model.Respond) that return a Reply: streamed text, tool calls, failures,
// turns that never end.
//
// # Serving
//
// NewServer(Options) builds a server; Dial or DialConn serve one end of a
// net.Pipe and return the other; ServeConn serves any io.ReadWriteCloser;
// Serve accepts from a net.Listener. Close ends everything and waits for
// every goroutine the server started. The program internal/cmd/copilot-sim
// serves DefaultModels over stdio or TCP with the real CLI's flags.
//
// # Ordering and concurrency contract
//
// Reading. jsonrpc2 reads one connection on one goroutine and calls the
// server's handler for each message in arrival order. The handler never
// blocks and never writes: it changes state (sessions, turns, pending tool
// requests) and queues what must be sent. So requests take effect in the
// order they arrive, and the server keeps reading however slowly the client
// reads — a client on a synchronous pipe cannot deadlock it.
//
// Writing. Everything sent on a connection — responses, notifications,
// server→client requests, injected faults — goes through one queue drained by
// one writer goroutine, so the wire order is the queue order. Within one
// request's handling: events it emits before replying (session.start with
// StartBefore, abort's abort and session.idle, destroy's session.lifecycle
// session.deleted) precede the response; events after (session.start with
// StartAfter, the turn started by session.send) follow it.
//
// Turns. Each session's turns run one at a time on a goroutine of their own,
// in send order, and emit events through the same queue; turns of different
// sessions run concurrently and their events interleave. A turn waits for
// room when more than Options.OutboxFrames frames are queued; replies never
// wait. A session's events are emitted under its lock, so none follows
// session.deleted, none of an aborted turn follows its abort event, and a
// send that arrives after session.idle always finds the session idle.
//
// Events. Every event has a fresh UUID id, an RFC 3339 timestamp with
// milliseconds, and a parentId: the id of the session's previous
// non-ephemeral event (null for session.start). Ephemeral events (those the
// CLI's schema marks so, as protocol.IsEphemeral reports: of the simulator's,
// assistant.message_delta, assistant.streaming_delta, assistant.usage,
// assistant.idle, external_tool.completed, user_input.requested,
// user_input.completed and session.idle) are not parents and are left out
// of session.getMessages.
//
// Names and payloads. Every method, notification and event type is named by
// its copilot/protocol constant, and requests, results and event data are
// the protocol package's types wherever one says exactly what the simulator
// sends (a few stay local: Event, whose parentId the schema requires even
// when null; assistant.message, which always carries toolRequests; the
// params the simulator reads more leniently than the types would).
//
// # Turn shapes
//
// A successful turn, streaming:
//
//	user.message {content}
//	assistant.turn_start {turnId:"0"}
//	  assistant.message_delta {messageId, deltaContent}   ┐ per piece
//	  assistant.streaming_delta {totalResponseSizeBytes}   ┘ (streaming only)
//	assistant.message {messageId, content, toolRequests:[]}
//	assistant.usage {model, inputTokens, outputTokens, duration, cost}
//	assistant.turn_end {turnId:"0"}
//	assistant.idle {}
//	session.idle {}
//
// With tool calls, assistant.message lists them in toolRequests and, before
// that round's assistant.turn_end, each runs as tool.execution_start,
// [permission.requested, permission.completed], external_tool.requested,
// external_tool.completed, tool.execution_complete; the script is then
// called again and a new round starts with turnId "1". Permission is asked
// only when the session has requestPermission:true and the tool lacks
// skipPermission; when it would be needed but cannot be asked, the tool is
// denied, as PROTOCOL.md reports of the real CLI. A tool the session did not
// register, a rejection or a client error reach the script as a failed
// ToolResult. ToolFlowLegacyRequest replaces the exchange with a tool.call
// request. A failure is
// session.error {errorType, message} then session.idle; an abort is
// abort {reason:"user_initiated"} then session.idle {aborted:true}.
//
// Sub-agents. Reply.SubAgents speak before the main agent's message: each
// sub-agent's assistant.message_delta events (streaming sessions; no
// streaming_delta) and its assistant.message, all with the envelope's
// agentId set, as the real CLI tags a sub-agent's events. Main-agent events
// carry no agentId. Their text stays out of the main message and of the
// session's history (Turn.History).
//
// Questions for the user. Reply.AskUser requests the built-in ask_user tool
// (AskUserTool) before any ToolCalls. In a session created or resumed with
// requestUserInput:true it runs as
//
//	tool.execution_start {toolName:"ask_user"}
//	user_input.requested {requestId, question, choices, allowFreeform, toolCallId}
//	  → userInput.request {sessionId, question, choices, allowFreeform}
//	  ← {answer, wasFreeform}
//	user_input.completed {requestId, answer, wasFreeform}
//	tool.execution_complete {result:{content: answer}}
//
// and the script's next call finds the answer in Turn.UserAnswer. The wait
// ends with the answer, an abort, the session's end or the connection's;
// a JSON-RPC error from the client fails the tool. Without requestUserInput
// the tool does not exist, as on the real CLI, whose model is offered
// ask_user only then: the call fails with "Tool 'ask_user' does not exist."
// and no request reaches the client.
//
// # Fault injection
//
// A Conn (from DialConn, or Server.Conns) writes broken frames, responses
// to unknown ids, duplicate responses, events and requests for unknown
// sessions, raw bytes and abrupt closes in order with the normal traffic;
// see faults.go. EmitEvent injects any event, EmitAgentEvent one of a
// sub-agent (agentId set). Call and CallSession send any server→client
// method, every one of protocol.ClientMethods included, and return the
// client's answer; the methods the CLI sends as notifications
// (protocol.IsNotification) go out as notifications, with no answer to
// wait for.
package sim
