// Package router multiplexes many Copilot CLI sessions over one JSON-RPC
// 2.0 connection; it is the production core every other package builds on.
//
// # Terms
//
// The project's design names three roles, and these types play them:
//
//   - The message router (MessageRouter) is [Router]: it owns the
//     connection's one reader, the table of routes keyed by session id (each
//     route is the session's [session.Sink], the queue's appending end), and
//     the calls waiting for their responses.
//   - A session channel (SessionChannel) is a [session.Channel]: one
//     session's end of the router, a queue the reader appends to and the
//     consumer drains. Package session's doc ("One session's queue") says
//     what each part of that queue is for.
//   - A routed message (RoutedMessage) is a [session.Message]: one
//     notification or incoming request, as read, on its way to the session
//     it names.
//
// # Contracts
//
// What the router guarantees, numbered so the tests that prove each can cite
// it ("Contract 3: ..."); the sections below say how.
//
//  1. Three goroutines run per router, whatever the number of sessions,
//     calls and messages: the reader, the writer and a watcher.
//  2. The reader never waits for a consumer and never writes to the
//     connection: a slow or stuck session delays no other session and no
//     response, and code reacting to a message may call the router.
//  3. Messages of one session are delivered in the order they were read.
//  4. No request is left unanswered: each is delivered to the one session
//     or subscription that answers it, or answered with an error. An answer
//     that cannot be queued (the peer does not read) stops the router with
//     an error wrapping ErrWriteBacklog, so the peer sees the
//     connection end instead of waiting; Stats counts both outcomes. The
//     counters add up: once no creation is in flight, every message read
//     lands in exactly one of those Stats.Read sums.
//  5. A slow consumer fails alone (session.ErrFellBehind); every other
//     session goes on.
//  6. Writes never block on the peer; past Config.MaxWriteBacklogBytes they
//     fail with ErrWriteBacklog.
//  7. Creation loses no event of the new session, whichever side of the
//     create response it arrives on; a create response naming an id that is
//     already routed fails with ErrSessionExists; a creation given up while
//     the server may have started the session names it (AbandonedError).
//  8. When the router stops, every pending call, channel and subscription
//     gets the same error, wrapping ErrStopped and the cause; what a channel
//     had buffered is received first.
//  9. Call returns at its response, the end of its context or the router's
//     stop, whichever comes first, and leaves nothing pending behind.
//  10. Every limit (Config.MaxFrameBytes, MaxSessionBufferBytes,
//     MaxWriteBacklogBytes, MaxSessions, MaxTurnTextBytes, MaxHeldBytes) has
//     a documented default, refuses a negative value, and is enforced at
//     exactly its value: at the limit accepted, past it refused with an
//     error naming it (SECURITY.md lists them). Input that is not JSON-RPC
//     is counted and skipped; input that cannot be framed ends the
//     connection with an error saying so; none panics.
//  11. One owner per session id: a route is one channel's. Supersede hands
//     a routed session to a new channel (a client resuming a session it
//     has open): the old channel's unread messages move to the new one,
//     a delivery under way is forwarded, the old channel ends with
//     session.ErrSuperseded, and every message is received by exactly one
//     of the two, in order.
//
// # The reader
//
// One goroutine reads the connection: github.com/sourcegraph/jsonrpc2's read
// loop, over Content-Length frames bounded by Config.MaxFrameBytes. It
// classifies every message:
//
//   - A response completes the one call waiting for its id. A response to
//     no waiting call (unknown id, duplicate, or a caller that gave up) is
//     counted and dropped.
//   - A session.event notification goes to the channel named by its
//     params.sessionId (the member of exactly that name, a string; the
//     stream finds it in the same pass that reads the frame). One for an
//     unknown or closed session is counted and dropped.
//   - An incoming request that names a session goes to that session's
//     channel; its consumer answers it (Message.Respond). A request that
//     names no session goes to the Subscription that named its method,
//     which answers it. One for an unknown, closed or failed session, or
//     with no session and no subscription for it, is answered at once with
//     a JSON-RPC error. No request is left unanswered by the router.
//   - Any other notification (session.lifecycle, ...) goes to every
//     Subscription that asked for its method.
//   - A frame whose body is not a JSON-RPC message is counted, logged and
//     skipped. A frame that cannot be framed (bad header, over the size
//     limit) stops the router with an error saying so.
//
// # What blocks, and what never does
//
// The reader never waits for a consumer and never writes to the
// connection itself. Delivery appends to the session's mailbox and returns;
// replies the router must send are queued for a writer goroutine. So a slow
// or stuck session never delays another session or any response, and code
// reacting to a message may call back into the router (answer a tool call,
// make a request) from any goroutine without risk of deadlock.
//
// Each channel buffers its session's unread messages, within a bound that
// tells a stuck consumer from one merely waiting for a core. Up to
// Config.MaxSessionBufferBytes (8 MiB by default) all are accepted. Past
// it they are still accepted while the session's consumer keeps receiving;
// the session fails once its consumer has received nothing for
// Config.MaxSessionStall (1 s by default) while past the bound, and at four
// times the bound whatever its consumer does, so memory stays bounded. A
// session that fails fails alone: its buffered messages are dropped
// (requests among them answered with an error), its next Receive returns an
// error wrapping session.ErrFellBehind, and further messages for it are
// counted and dropped until it is closed. Every other session goes on.
//
// Writes (calls, notifications, replies) are queued in order and return
// without waiting for the peer; a peer that stops reading makes them fail
// with ErrWriteBacklog once Config.MaxWriteBacklogBytes are queued,
// rather than block.
//
// Call blocks until its response, the end of its context, or the router's
// stop. All methods of Router, Channel and Subscription are safe for
// concurrent use.
//
// # Ordering
//
// Messages of one session are delivered in the order they were read.
// Nothing is promised about the order across sessions, or between a
// response and the events of its session: they travel different paths.
// Create and CreateAssigned make sure a new session's events are not lost
// whichever side of the create response they arrive on.
//
// # Goroutines
//
// A router runs three goroutines whatever the number of sessions: the
// reader, the writer and a watcher. There is none per session, per call or
// per message. Close returns after they have ended.
//
// # Failure
//
// When the connection ends (the peer exits or closes, a read or write
// fails, a frame cannot be read, or Close or CloseWithError is called) the
// router stops once, and every pending call, channel and subscription gets
// the same error, wrapping ErrStopped and the cause. Messages a channel had
// buffered before the stop are still received first.
//
// # Logging
//
// The router is silent unless Config.Logger is set (zerolog).
package router
