package sim

// Reply is Response's former name, kept only while packages edited on
// other branches (internal/cli, copilot's tests, internal/mcpserver,
// internal/bench, internal/soak) still spell it so; it goes once they say
// Response.
//
// Deprecated: use Response.
type Reply = Response
