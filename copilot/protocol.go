package copilot

import (
	"encoding/json"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// ProtocolVersion is the protocol version this package speaks.
const ProtocolVersion = protocol.ProtocolVersion

// The answers of the handshake and of the status calls, as the protocol
// package types them.
type (
	// ConnectResult is the answer to the connect handshake.
	ConnectResult = protocol.ConnectResult
	// PingResult is the answer to ping; its Timestamp is ISO 8601.
	PingResult = protocol.PingResult
	// AuthStatus is the answer to auth.getStatus.
	AuthStatus = protocol.AuthStatus
)

// Model is one model the CLI offers.
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Raw is the model's whole entry, capabilities and billing included;
	// protocol.Model decodes all of it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw entry beside the fields.
func (m *Model) UnmarshalJSON(b []byte) error {
	type plain Model
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}
