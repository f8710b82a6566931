// Package sim is a simulated GitHub Copilot CLI server, shipped in the quorum
// binary for its --sim demo and used by tests as a fast, scriptable peer: it
// speaks the JSON-RPC protocol of the real CLI 1.0.102 in headless mode, so
// that unit tests, fault injection, benchmarks with hundreds of sessions and
// an offline demo can run without the real CLI. Models are scripts
// (Model.Respond) that return a Response: streamed text, tool calls, failures,
// turns that never end.
//
// # Serving
//
// NewServer(Options) builds a server; Dial or DialConn serve one end of a
// net.Pipe and return the other; ServeConn serves any io.ReadWriteCloser;
// Serve accepts from a net.Listener. Close ends everything and waits for
// every goroutine the server started. The program cmd/copilot-sim
// serves the models of --sim (internal/simquorum's) over stdio or TCP with
// the real CLI's flags; package copilot/copilottest is the public face on
// the server, for other modules' tests.
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
// request's handling: what it emits before replying (session.start and its
// session.lifecycle notifications with StartBefore, abort's abort and
// session.idle, delete's two session.deleted, switchTo's
// session.model_change, resume's session.resume) precedes the response;
// what comes after (session.start with StartAfter, the turn started by
// session.send) follows it.
//
// Turns. Each session's turns run one at a time on a goroutine of their own,
// in send order, and emit events through the same queue; turns of different
// sessions run concurrently and their events interleave. A turn waits for
// room when more than Options.OutboxFrames frames are queued; replies never
// wait. A session's events are emitted under its lock, so none follows the
// answer to its destroy or its session.deleted, none of an aborted turn
// follows its abort event, and a send that arrives after session.idle
// always finds the session idle. A turn reads the session's settings
// (model, tools, permissions, the requests its client answers), which
// session.resume and model switches change, under that lock at each model
// call. A turn waiting for a server→client request (tool.call,
// userInput.request, hooks.invoke) waits on the turn's goroutine; one waiting
// for an autoModeSwitch.request and the event's answer at once has one
// helper goroutine, which ends with the turn.
//
// Events. Every event has a fresh UUID id, an RFC 3339 timestamp with
// milliseconds, and a parentId: the id of the session's previous
// non-ephemeral event (null for session.start). Ephemeral events (those the
// CLI's schema marks so, as protocol.IsEphemeral reports: of the simulator's,
// assistant.message_delta, assistant.streaming_delta, assistant.usage,
// assistant.idle, external_tool.completed, user_input.requested,
// user_input.completed, auto_mode_switch.requested and .completed, and
// session.idle; and session.warning, whose ephemerality the schema leaves
// open, as the CLI sends it) are not parents and are left out
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
//	assistant.usage {model, inputTokens, outputTokens, duration, cost}   (cost: the model's multiplier)
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
// skipPermission and was not approved for the session; when it would be
// needed but cannot be asked, the tool fails as on the real CLI
// ("Permission denied and could not request permission from user. …",
// code "denied"). A tool the session did not register, a refusal or a
// client error reach the script as a failed ToolResult. The CLI's built-in
// tools the simulator plays run the same way, with a permission request of
// their own kind and no external tool exchange (Built-in tools, below).
// ToolFlowLegacyRequest replaces the exchange with a tool.call request
// (and asks no permission). A failure is session.error {errorType, message,
// errorCode?, statusCode?} then session.idle; an abort is abort
// {reason:"user_initiated"} then session.idle {aborted:true}.
//
// Permission decisions (permission.go) are taken as CLI 1.0.102 takes the
// schema's kinds: approve-once and approve-permanently approve;
// approve-for-session and approve-for-location approve and are not asked
// again in the session; a plain reject fails the tool ("The user rejected
// this tool call.", code "rejected") and ends the turn like an abort
// (assistant.turn_end, abort, assistant.idle, session.idle); a reject with
// feedback fails it with "The user rejected this tool call. User feedback:
// …" and user-not-available with the could-not-request message (code
// "denied"), and the model goes on; denied-by-rules, cancelled and the
// other denials fail the tool with the CLI's words and the model goes on.
// permission.completed carries the schema's result kind (approved,
// approved-for-session, denied-interactively-by-user, …) and the
// toolCallId.
//
// A model the server does not serve — the session was switched to one —
// fails the turn: session.error {errorType:"query", statusCode:404}.
//
// Sub-agents. Response.SubAgents speak before the main agent's message: each
// sub-agent's assistant.message_delta events (streaming sessions; no
// streaming_delta) and its assistant.message, all with the envelope's
// agentId set, as the real CLI tags a sub-agent's events. Main-agent events
// carry no agentId. Their text stays out of the main message and of the
// session's history (Turn.History).
//
// Questions for the user. Response.AskUser requests the built-in ask_user tool
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
// # Built-in tools
//
// The simulator plays five of the CLI's built-in tools, as CLI 1.0.102 runs
// them (recorded from it): view, create, edit, bash and web_fetch
// (ToolView …; a script calls them with ViewCall, CreateCall, EditCall,
// BashCall and WebFetchCall, or Call with the CLI's argument names). A
// session offers them unless its availableTools leaves them out (absent or
// null: all, as on the real CLI; []: none) or its excludedTools takes them
// away; Turn.Builtins lists them and Turn.WorkingDirectory names the
// folder they act in. A client tool of the same name is the one called.
// The CLI's other built-ins (grep, glob, sql, task, …) are not played: a
// call fails as a tool that does not exist.
//
// Each runs as a client tool's call does, with the permission request of
// its kind in place of the external tool exchange:
//
//	tool.execution_start {toolCallId, toolName, arguments, toolTitle, shellToolInfo?}
//	permission.requested {requestId, permissionRequest, promptRequest}
//	  ← session.permissions.handlePendingPermissionRequest
//	permission.completed {requestId, toolCallId, result}
//	[tool.shell_output, tool.execution_partial_result …]   (bash)
//	tool.execution_complete {success, result:{content, detailedContent?, contents?}, fileEdits?, shellExecution?} or {error:{code, message}}
//
// with these requests (promptRequest is the same request, but kind
// "commands" with commandIdentifiers for shell):
//
//   - view {path, view_range?}: read {path, intention: "Read file: P" or
//     "List directory: P"}; the file's text as it is up to 20 KB (a larger
//     one: "File too large to read at once (N KB). …"), view_range [a, b]
//     (from 1; b -1 or left out for the end, cut short at it) those lines,
//     or a folder's entries, one level, sorted, hidden ones included, one a
//     line. A missing path or a range that cannot be read fails after the
//     question: "Path does not exist" (the model reads "Path P does not
//     exist. Please provide a valid path."), "view_range out of bounds",
//     "Invalid view_range".
//   - create {path, file_text}: write {fileName, intention: "Create file",
//     diff, newFileContents, fileEdits:[{after}], canOfferSessionApproval:
//     true}; "Created file P with N characters", fileEdits [{kind:
//     "create"}]. A path that exists, or whose folder does not, fails
//     before any question, in the CLI's words.
//   - edit {path, old_str, new_str}: write {…, intention: "Edit file",
//     fileEdits:[{before, after}]} with the CLI's whole-file diff; "File P
//     updated with changes.", fileEdits [{kind: "edit"}]. old_str found
//     nowhere ("No match found") or more than once ("Multiple matches
//     found"), or a file that cannot be read, fails before any question.
//   - bash {command, description}: shell {fullCommandText, intention (the
//     description, else "Running command"), commands:[{identifier: the
//     command, readOnly: false}], commandSegments, and — as 1.0.102 sends
//     them whatever the command — possiblePaths [], possibleUrls [],
//     hasWriteFileRedirection false, canOfferSessionApproval false}; the
//     paths a command may touch and its redirections are in
//     tool.execution_start's shellToolInfo. The result is the output
//     followed by "<shellId: N completed with exit code X>" (N counts the
//     session's commands from 0); a non-zero exit is still a success.
//   - web_fetch {url}: url {url, intention: "Fetch content from this
//     URL."}; "Contents of U:\n" and a fixed text saying nothing was
//     fetched.
//
// A call without a required argument (view, create: path; create:
// file_text; bash: command; web_fetch: url) fails before any question
// ("\"path\": Required"), as does an edit without old_str or new_str. A
// failed tool's Error is tool.execution_complete's terse message and its
// Text the CLI's longer words for the model. Permission is asked and
// decided as for client tools; an approval for the session (or a
// location) is remembered by what its approval covers, as CLI 1.0.102
// remembers it — {kind:"read"} every later view, {kind:"write"} every
// later create and edit, {kind:"commands", commandIdentifiers} later
// commands of exactly those texts — and one without an approval is asked
// again. Without requestPermission
// every built-in tool is denied without a question, as on the real CLI.
// Where the real CLI runs a reply's calls at once (every start, then the
// questions in any order), the simulator runs them one after another.
//
// Safety. The simulator ships in the quorum binary, so its tools act only
// inside the session's workingDirectory, whatever the client approves:
//
//   - A session created without workingDirectory has no folder: view,
//     create, edit and bash fail ("No working directory") before any
//     question. The server's own working directory is never used.
//   - A path (absolute, or relative to the folder) is resolved — the
//     longest prefix that exists through filepath.EvalSymlinks, the rest
//     appended — and must lie in the folder's resolved path; a dangling
//     symlink counts as outside. A path outside (by "..", absolutely, or
//     through a symlink) is asked about as the CLI would ask, from the
//     arguments alone, nothing outside being read, and once approved fails
//     with "Path is outside the working directory" (code "denied"). Files
//     are then reached only through an os.Root of the folder, which
//     refuses a path that leaves it, so a symlink swapped in after the
//     check leads nowhere.
//   - bash runs no command a model writes. It plays a single simple
//     command — no pipes, lists, redirections, variables, globs or
//     substitutions — of an allow-list: pwd, echo, ls [-a|-A|-1] [PATH…]
//     and cat FILE… (in Go, paths confined as above), and git status
//     [--short|--porcelain|-b], git diff [--stat|--cached|--name-only|…]
//     and git log --oneline [-N|-n N] (git run in the folder, with none of
//     the process's GIT_ variables, GIT_TERMINAL_PROMPT=0, no optional
//     locks, no pager, no fsmonitor, hooks, external diff or textconv, for
//     at most 30 s). Anything else is asked about and then fails, "Command
//     not run by the simulator", the model told what is played.
//   - web_fetch fetches nothing: the simulator uses no network.
//
// # Sessions on disk
//
// As on CLI 1.0.102, a session is written to disk — the server's store,
// shared by every connection as the real CLI's state directory is — with
// its first user.message, and stays there until session.delete:
//
//   - session.list lists the kept sessions, last modified first, as
//     protocol.SessionListEntry (summary and name: the first prompt's first
//     line; clientName "sdk" unless the session named one); a session with
//     no message yet is not listed, and session.getMetadata answers {} for
//     it (or any other unknown id), else {"session": entry}.
//   - session.getLastId answers the last modified kept session, or {};
//     session.getForeground {}; session.setForeground {success:false,
//     error:"Not running in TUI+server mode - …"}: the simulator is
//     headless.
//   - session.destroy stops the session's turn and forgets it on the
//     connection (no event, no lifecycle notification); it stays kept. A
//     session not live on the connection is answered {success:false}.
//   - session.delete stops a live session, of any connection, at once (no
//     event follows) and removes it from disk: session.lifecycle
//     session.deleted twice, then {success:true}. An id neither live nor
//     kept is answered {success:false, error:"Session file not found for
//     <id>"} — results, not JSON-RPC errors.
//   - session.resume re-attaches a session live on the connection with new
//     settings, or makes a kept one live on this connection again, with its
//     history and events, announced by session.resume {resumeTime,
//     eventCount, selectedModel, context}. A session live on another
//     connection is refused.
//
// # Lifecycle notifications
//
// session.lifecycle {type, sessionId, metadata:{startTime, modifiedTime}}
// goes to the connection that acts on the session: session.created twice
// (before session.start and after it), session.updated after every
// persisted (non-ephemeral) event, session.deleted twice — the pattern CLI
// 1.0.102 was seen to send.
//
// # Models
//
// session.model.switchTo {modelId} switches the session's model at once,
// taking any id as the real CLI does: session.model_change {previousModel,
// newModel, source:"sdk"}, then the schema's ModelSwitchToResult
// {status:"applied", deferred:false, modelId, message, modelState};
// session.model.getCurrent answers {modelId}. The next model call asks the
// new model (Turn.Model), and its prompt (Turn.Prompt) starts with the
// CLI's notice "<tools_changed_notice>\nThe model has been switched from X
// to Y.\n</tools_changed_notice>\n\n". AutoModel ("auto") is answered by
// Options.DefaultModel's script unless the server offers a model of that id.
//
// # Premium requests
//
// As CLI 1.0.102 reports them: models.list gives each model's billing
// {multiplier} (Model.Multiplier, 1 unless set), and every model call's
// assistant.usage costs that multiplier — a turn with a tool call makes
// two model calls and costs it twice. account.getQuota answers the
// account's allowance (Options.PremiumQuota, DefaultQuota unless set;
// none with NoPremiumQuota or Unauthenticated) as {quotaSnapshots:
// {premium_interactions: {entitlementRequests, usedRequests (rounded),
// remainingPercentage, overage, …, resetDate}}}, resetDate being, as on
// the CLI, the time of the snapshot; account.getCurrentAuth answers a
// github.com user whose copilotUser carries GitHub's quota_snapshots and
// quota_reset_date(_utc), the reset date. The allowance does not go down
// as turns run: the CLI reads it from GitHub once.
//
// # Rate limits
//
// RateLimited (Failure.AutoModeSwitch) fails a model call as CLI 1.0.102
// fails after a 429, without its retries:
//
//	assistant.turn_end
//	session.error {errorType:"rate_limit", errorCode:"rate_limited", statusCode:429, eligibleForAutoSwitch:true, message}
//	  [→ autoModeSwitch.request {sessionId, errorCode, retryAfterSeconds}]   (requestAutoModeSwitch only)
//	auto_mode_switch.requested {requestId, errorCode, retryAfterSeconds}
//	  … the turn waits, not idle, for the first answer: the request's, or
//	  ← session.ui.handlePendingAutoModeSwitch {requestId, response}
//	auto_mode_switch.completed {requestId, response}
//	[session.model_change {newModel:"auto", cause:"rate_limit_auto_switch", source:"automatic"}]   (yes, yes_always)
//	assistant.idle
//	session.idle
//
// The request's error answer is a "no"; an answer to a switch no longer
// pending is {success:false}. An abort ends the wait.
//
// # Hooks
//
// In a session created or resumed with hooks:true the simulator sends
// hooks.invoke {sessionId, hookType, input} where CLI 1.0.102 does, each
// between hook.start and hook.end: sessionStart at the first send,
// userPromptSubmitted (modifiedPrompt is what the model gets, user.message
// carrying it as transformedContent; decision "block" ends the turn with
// session.warning {warningType:"policy_blocked"} and no message) and
// userPromptTransformed before user.message; preToolUse after
// tool.execution_start ("deny" fails the tool, "allow" skips its
// permission, "ask" asks one of kind "hook", modifiedArgs change its
// arguments); postToolUse (modifiedResult is what the model gets) or
// postToolUseFailure after it; agentStop before assistant.idle. An error
// answer is no output. hooks.go has the inputs.
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
//
// Options.EventCopies loses or repeats session events on the wire (the
// session's chain and history stay whole); Response.Crash closes a connection
// abruptly mid-turn, as a CLI that dies; Response.Elicit asks the client a
// form (elicitation.requested, answered by
// session.ui.handlePendingElicitation, elicitation.completed), the answer
// reaching the script as Turn.Elicitation; a ToolCall.Permission asks a
// permission request of any kind for a tool the simulator does not
// otherwise play (an MCP server's). Options.RecordCalls keeps
// every request a client sent, with its params (Server.Received).
// Package copilot/copilottest is the public face on these.
package sim
