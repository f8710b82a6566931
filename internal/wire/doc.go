// Package wire frames JSON-RPC messages on a byte stream, in production:
// Content-Length headers in both directions, as the Copilot CLI speaks on
// stdio and TCP.
//
// It supplies the jsonrpc2.ObjectStream that the router hands to
// github.com/sourcegraph/jsonrpc2. Three things differ from that library's
// own buffered stream with its VSCodeObjectCodec:
//
//   - Reading is bounded. VSCodeObjectCodec accepts a header line of any
//     length and a Content-Length up to 4 GiB, so a broken or hostile peer
//     can make it buffer without bound. Codec enforces Limits and turns a
//     frame whose framing is intact but whose body is not a JSON-RPC message
//     into a counted, skipped frame instead of a dead connection.
//   - Reading parses each frame once. With Hooks.DetachParams, a scanner of
//     our own (scan.go) validates a request or notification as strictly as
//     encoding/json, finds its method, id, params and the route key in
//     params (Hooks.RouteKey: the router's session id) in one pass, and
//     fills jsonrpc2's message itself; the params are kept, copied once, for
//     TakeDetached. Anything else is decoded by jsonrpc2 as before
//     (detach.go says why, with the figures).
//   - Writing never blocks the writer's caller on the peer. Frames go to an
//     in-memory queue drained by one goroutine, so a peer that stops reading
//     cannot wedge the reader (which answers unknown requests) or a caller
//     whose context has ended. The queue is bounded, counting the bytes
//     being written as well as those waiting; past the bound a write fails
//     with ErrWriteBacklog rather than waiting. A frame is queued whole or
//     not at all, so a refused write never leaves part of a frame on the
//     wire.
//
// Writes still use VSCodeObjectCodec.WriteObject for the bytes on the wire.
package wire
