// Package mcpserver is `quorum mcp`, in production: the quorum as a Model
// Context Protocol server (github.com/modelcontextprotocol/go-sdk), so that
// other agents (the Copilot CLI, VS Code, Claude Code) can consult it. Its
// tools are the strategies: discuss, plan, debate and review, each mapped
// onto the quorum package's call and returning that call's result type as
// its structured content — the same JSON as `quorum … -o json`'s result —
// with a Markdown report beside it; ask (one model) and models.
//
// # One CLI for the server's life
//
// The server starts one Copilot CLI (or, for --sim, the simulator) on the
// first call that needs it and multiplexes every call's sessions over that
// one connection. When the CLI dies, the calls that were on it fail with a
// tool error that says so, and the next call starts a new one.
//
// # Concurrency contract
//
//  1. Tool calls run concurrently, each on the SDK's goroutine for its
//     request; at most Options.MaxCalls run their models at once, the
//     others wait for a slot (cancellable, and counted in their timeout).
//  2. Every call's context ends when the client cancels it
//     (notifications/cancelled), when the client disconnects, when its
//     timeout passes, or when the server closes. The quorum run then aborts
//     its turns and deletes its sessions before the call returns.
//  3. A call never returns a protocol error for a bad argument or a failed
//     run: both are tool results with isError set and a message that says
//     what to do. A panic in a call is recovered into such a result.
//  4. Progress notifications of one call are sent from one goroutine at a
//     time, in the order the run's events happened, with progress values
//     that only grow; a call without a progress token gets none.
//  5. Close cancels every call, waits for each to return and stops the CLI;
//     no goroutine of the server outlives it.
//
// The server writes nothing but the protocol to its stdout; logs go to the
// slog.Logger it is given (stderr for `quorum mcp`), with model and CLI
// text made safe for a terminal.
package mcpserver
