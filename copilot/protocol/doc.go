// Package protocol is the GitHub Copilot CLI's JSON-RPC protocol as Go
// types, in production: generated from the JSON schemas the pinned CLI
// ships (CLIVersion), so that it says what the CLI says and a CLI upgrade
// is a version bump plus `go generate ./copilot/protocol`.
//
// What is here, and where it comes from:
//
//   - Every method's params and result, every session event's data, and
//     every type they use (types_gen.go), with the schema's descriptions
//     as their docs. Optional scalars are pointers, so absent differs from
//     zero; what the schema leaves open is json.RawMessage.
//   - The name of every method (Method…) and event type (Event…)
//     (names_gen.go, events_gen.go): the project's one home for them.
//   - Typed calls (rpc_gen.go): NewServerRPC for the connection-wide
//     methods, NewSessionRPC for one session's, which fills in the
//     session id; their fields group the methods as the schema does
//     (rpc.Model.SwitchTo, rpc.Permissions.HandlePendingPermissionRequest).
//     package copilot hands them out as Client.RPC and Session.RPC.
//   - ClientHandlers (handlers_gen.go): a typed handler for each request
//     and notification the CLI sends its client, and Handle, which
//     decodes and dispatches one.
//   - Event, the envelope of a session event, whose Decode returns the
//     typed data of the 163 known types and the raw data of any other.
//   - By hand (offschema.go): the methods the CLI serves although its
//     schemas omit them (session.create and its kin), typed from what the
//     CLI answers; Decline, what a client without a handler answers.
//
// COVERAGE.md counts what is typed per area of the schema; PROTOCOL.md
// states what the rest of the project relies on. Nothing here does I/O:
// a Caller (a *router.Router) carries the calls.
package protocol
