// Package session holds one Copilot CLI session's messages as the router
// delivers them and reads turns out of them; it is production code, the end
// of the router that package copilot reads every session through.
//
// # Terms
//
// The project's design names two roles that live here (the router's doc
// names the third, the message router):
//
//   - A session channel (SessionChannel) is a [Channel]: one session's
//     end of the router, a queue its router appends to and its consumer
//     drains, in the order the router read the messages.
//   - A routed message (RoutedMessage) is a [Message]: one notification
//     (almost always a session.event) or incoming request, as read, on its
//     way to the session it names; a request among them is answered
//     through it.
//
// # One session's queue
//
// A session's messages wait in one queue, which has three parts, each with
// one job; this is the one place that says which:
//
//   - The mailbox (unexported) is the queue itself: messages in arrival
//     order, the buffer bound and its stall policy (below), the failure
//     that ends it. It knows nothing of sessions, turns or routers.
//   - A [Channel] is the consumer's end: Receive (which also drops
//     repeated events), Next and ReadTurn, Close. [New] returns it to
//     whoever reads the session; package router hands it out from Open,
//     Create and CreateAssigned.
//   - A [Sink] is the router's end: Deliver, which never blocks, and Fail.
//     The router keeps it and never hands it out, so no consumer can
//     append to its own queue. The router's table of routes is a map from
//     session id to Sink: a registered Sink is what the router calls a
//     route, and has no type of its own.
//
// A router.Subscription reads through a Channel too, its Sink registered by
// method instead of by session id.
//
// # Contracts
//
// Numbered so the tests that prove each can cite it ("Contract 2: ..."):
//
//  1. A channel delivers its messages in the order its router read them; a
//     Receive cut short by its context loses nothing.
//  2. A consumer within Config.MaxBufferedBytes is never failed; past it,
//     one that has received nothing for Config.MaxStall is.
//  3. Every request a channel drops or refuses (closed, failed) is answered
//     with an error (CodeUnavailable): none is left pending.
//  4. Every blocking call honours its context: Receive, Next, ReadTurn and
//     Close (a second Close waits for the first or its own context).
//  5. A turn's accumulated text is bounded by Config.MaxTurnTextBytes
//     (16 MiB by default): past it the read fails with ErrTurnTooLarge.
//  6. Unread messages never pass four times Config.MaxBufferedBytes: at
//     exactly that they are kept, one more fails the channel.
//  7. A channel superseded by another of its session (Sink.Supersede)
//     hands it everything it had not received, and every later delivery:
//     each message is received by exactly one of the two, in order, and an
//     event the peer repeats is dropped on either side; the old channel's
//     Receive then returns ErrSuperseded.
//
// # Buffering and blocking
//
// A Channel's mailbox is a queue the router appends to (through the
// channel's Sink) without ever waiting. Its bound tells a stuck consumer from one that is merely
// waiting for a core, so that the second is never failed:
//
//   - Up to Config.MaxBufferedBytes (8 MiB by default) of unread messages,
//     every message is accepted.
//   - Past it, messages are still accepted while the consumer keeps
//     receiving. The channel fails once its consumer has received nothing
//     for Config.MaxStall (1 s by default) while past the bound; each
//     receive starts that wait anew.
//   - At four times the bound it fails whatever its consumer does, so
//     memory stays bounded for a consumer that reads, slowly, forever.
//
// A failed channel (ErrFellBehind) drops what it held and refuses further
// messages, so one slow consumer cannot hold back the connection. Every
// request the channel drops or refuses is answered with an error (code
// CodeUnavailable). The bound is checked as messages arrive; one message is
// always accepted into an empty channel, however large.
//
// Receive blocks until a message, the channel's end or the end of its
// context. A Receive cut short by its context loses nothing. Several
// goroutines may Receive at once; each message goes to one of them, and a
// turn should be read by one goroutine.
//
// # Turns
//
// A turn is the events that follow session.send up to session.idle. Next
// reads them and stops early for a tool or permission request so the caller
// can answer it, and hands other requests to its [RequestHandler]; ReadTurn
// reads a turn that needs no tools and answers nothing. Both stream text
// deltas to [TurnHandlers].OnDelta as they arrive. A session.error ends the
// turn with a *TurnError carrying the CLI's message; an abort with
// ErrAborted. Handlers run on the reading goroutine and may call the
// router.
//
// # Closing
//
// Close deregisters the channel from its router and answers the requests it
// still held. It does not end the session on the server: that is a call of
// its own, made by the session's owner (package copilot's Session.Destroy).
// It is idempotent. A channel's own goroutine count is zero: it costs
// memory only for what it buffers.
package session
