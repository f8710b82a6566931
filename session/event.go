package session

import "github.com/quorum-go/quorum/copilot/protocol"

// Event is the envelope of one session event, as the protocol package
// defines it: its data stays raw until asked for (Event.Decode for the
// typed value, Event.UnmarshalData into a struct of one's own), so routing
// never pays for it and unknown types pass through untouched.
type Event = protocol.Event
