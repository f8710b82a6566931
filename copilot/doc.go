// Package copilot runs many model sessions at once on the GitHub Copilot
// CLI (npm @github/copilot), which it drives as a headless JSON-RPC server;
// it is production code, and what most users of this module import.
//
//	c, err := copilot.Start(ctx, copilot.Options{})   // finds `copilot`, starts it over stdio
//	defer c.Close()
//	s, err := c.NewSession(ctx, copilot.SessionConfig{Model: "claude-sonnet-4.5"})
//	answer, err := s.Ask(ctx, "Why is the sky blue?")
//
// # The child process
//
// Start first checks its [Options] with [Options.Validate]: a value out of
// range (an unknown Transport, a negative time limit) is refused, before
// anything starts, with an error wrapping [ErrInvalidOptions] that names the
// field; zero always means the field's default. It then finds the binary
// (Options.CLIPath, then $COPILOT_CLI_PATH, then `copilot` on PATH;
// otherwise an error wrapping ErrCLINotFound that says how to install it),
// starts it in its own process group over stdio or TCP, keeps draining its
// output (the end of stderr is kept for error messages), and checks the
// protocol version with the connect handshake (ping for servers without
// it). Start-up is bounded by Options.StartTimeout, which fires even while
// the child prints nothing. Close asks the child to exit (stdin closed,
// then SIGTERM), kills its process group after Options.ShutdownTimeout, and
// returns once every goroutine it started has ended. Connect runs the same
// client, its Options checked the same way, over a connection you already
// have (a simulator, a CLI started elsewhere).
//
// # Sessions and turns
//
// NewSession checks its [SessionConfig] with [SessionConfig.Validate] the
// same way (its errors wrap [ErrInvalidSessionConfig]). Sessions run
// concurrently over the one connection; the router below delivers each
// session's events to its own channel, so a slow session never holds up
// another (see package router). A session runs one turn at a time: Stream
// sends a prompt and reads the turn to session.idle, passing text deltas
// and events to its handlers as they arrive; Ask waits for the final
// answer. A session.error ends the turn with an error wrapping
// ErrTurnFailed that carries the CLI's message (errors.As into a
// *TurnError reads its kind). Cancelling a turn's context aborts the turn
// on the CLI: Stream returns once the CLI has answered the abort (or after
// a second without an answer), and the next turn first reads what is left
// of the old one (Session.Stream says how long that can take). Text of
// sub-agents (events with an agentId)
// is kept apart from the main reply (Reply.AgentText).
//
// ResumeSession takes up a session the CLI keeps, with a new configuration
// the CLI applies from the next turn. There is one owner per session id: a
// session this client has open can be resumed too, and the new *Session
// then takes it over once the CLI has accepted the resume. It receives
// every event and request of the session from then on, those the old one
// had not read first, in order — none lost, none delivered twice — and the
// old one is ended: its turn in flight, and anything it is asked to do
// after, fails with an error wrapping ErrSuperseded (router contract 11).
// Session.Capabilities says what the CLI said the session can do (forms:
// Session.Elicit refuses with ErrNoElicitation where no client can show
// one). Destroy and Delete of a session with Hooks read on until the CLI
// answers, so that the hook it runs as the session ends
// (Hooks.OnSessionEnd) is answered.
//
// # Events and requests, any time
//
// A session's channel has one reader at a time: the turn while Stream
// runs, and between turns a dispatcher that runs only while something
// waits (an idle session holds no goroutine), so the events the CLI sends
// then (background agents, title changes, the turn a Send started) and its
// requests are not left waiting for the next turn.
// SessionConfig.OnEvent gets every event of the session, in order, from
// session.start on, on one goroutine at a time; it must return promptly,
// because while it runs the session reads nothing more, and a session that
// falls behind by its buffer's bound fails alone. Every event decodes into
// its type from package protocol (Event.Decode).
//
// Every request the CLI sends a session is answered: by its handler in
// SessionConfig.Handlers (the schema's and the older userInput,
// exitPlanMode, autoModeSwitch and systemMessage.transform requests),
// else by the protocol's decline where it has one (a hook that does
// nothing, a plan not approved), else by a JSON-RPC error naming the
// handler to set. Setting a handler for an optional request (user input,
// hooks, …) also tells the CLI at creation that the client answers it.
//
// # The whole protocol, typed
//
// Client.RPC makes every connection-wide method of the CLI's schema with
// typed params and results, on the current connection; Session.RPC every
// method of one session, its id filled in:
//
//	l, err := c.RPC().Models.List(ctx, protocol.ModelsListRequest{})
//	m, err := s.RPC().Model.SwitchTo(ctx, protocol.SessionModelSwitchToParams{ModelID: "gpt-5"})
//
// Package protocol is generated from the pinned CLI's schemas; its
// COVERAGE.md counts what is typed per area.
//
// # Prompts, configuration and hooks
//
// StreamPrompt and SendPrompt take a Prompt: text with attachments (files,
// directories, selections, images), a send mode (enqueue, or immediate
// steering of the running turn) and request headers. SessionConfig covers
// what the CLI can be configured with at creation — reasoning effort, the
// system prompt (append, replace, or customize its sections), available
// and excluded tools, MCP servers, custom agents, skill and instruction
// directories, infinite sessions, a bring-your-own-key provider, a GitHub
// token — and Hooks, typed callbacks around tool use, prompts and the
// session's life, built on the CLI's hooks.invoke request.
//
// # Tools and permissions
//
// Client tools (SessionConfig.Tools) are Go functions the model may call;
// DefineTool builds one from a typed function, its JSON schema derived
// from the argument type, and a handler may return a rich ToolResult. A
// tool with OverridesBuiltInTool takes the place of the CLI's built-in
// tool of its name.
// Calls arrive as protocol-3 external_tool.requested events or as the older
// tool.call request, and are answered automatically. Each call passes the
// session's tool pipeline, a chain of stages assembled at creation: a trace
// recorder, a per-turn call limit (past it the turn is aborted with
// ErrToolLimit), a tool profile, your own stages, and output truncation. A
// handler's error or panic fails the call, and the turn goes on; the model
// is told only that the tool failed (the error's text, which may hold
// paths, hosts or secrets, stays in the log and the ToolTrace), unless the
// error is a ToolError, whose ForModel it reads. A stage that panics is
// logged and skipped. A call of a tool this session did not declare is left
// to the client of the session that did (several clients may share one).
//
// Permission requests go to SessionConfig.Permissions, which denies
// everything by default: choose ApproveAll or your own policy explicitly,
// or mark trusted tools SkipPermission. A policy sees the request typed by
// kind (shell, write, read, url, mcp, …) and returns a decision: approve
// once, for the session or for a location, or reject, with feedback the
// model reads; NoResult leaves the request to another client of the
// session. Each request's policy runs on a goroutine of its own (at most 16
// at once per session), so a policy that waits for a person holds up
// neither the other requests nor the events, which reach OnEvent in the
// CLI's order; each answer is sent as its policy returns. A policy that
// fails or panics is logged and answered UserNotAvailable: the turn goes
// on, the model told that permission could not be had. SessionConfig.BuiltinTools set to NoBuiltinTools() switches
// the CLI's own tools (shell, files, web) off.
//
// # Managing sessions
//
// The CLI keeps sessions on disk. Session.Destroy only disconnects one (it
// stays listed and can be resumed); Session.Delete and Client.DeleteSession
// remove it. Client.ListSessions, SessionMetadata, LastSessionID and the
// foreground session calls read them; Client.OnLifecycle reports sessions
// created, updated and deleted; Session.SetModel switches the model for
// the next request.
//
// # Failure and restart
//
// When the child dies, every waiter gets an error wrapping
// ErrStopped and ErrCLIExited with the exit status and the end of
// stderr. When a connection ends from the CLI's side without an exit
// status to tell (over Connect: the other end closed it), every waiter
// gets an error wrapping ErrStopped and ErrConnectionClosed ("router
// stopped: connection closed by the peer: EOF"; a turn's error says which
// session, prefixed "copilot:"). Client.Close gives ErrStopped and
// ErrClosed. With Options.Restart, the client then starts a new child with
// exponential backoff, and new sessions work again; sessions of the dead
// child stay failed.
//
// Every handler the SDK calls — client tools, Handlers (user input,
// hooks, …), the permission policy, OnElicitation — gets a context that
// ends with its turn and with its session: the session closed, destroyed
// or superseded, its connection lost, its child dead, its client closed.
// Its cause (context.Cause) is the error above. A turn blocked on a
// handler that honours its context returns that error at once, whatever
// the caller's own context; a handler that ignores its context holds its
// turn until it returns.
//
// The default permission policy, DenyAll, ends a turn at its first
// permission request with ErrPermissionDenied; see DenyAll.
//
// All methods are safe for concurrent use.
package copilot
