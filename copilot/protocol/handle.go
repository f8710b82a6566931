package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Errors of ClientHandlers.Handle, for the caller to turn into an answer
// the CLI understands (a decline where the schema has one, a JSON-RPC
// error otherwise).
var (
	// ErrNoHandler: the method is one the CLI sends, but no handler is set.
	ErrNoHandler = errors.New("protocol: no handler is set for this request")
	// ErrUnknownMethod: the schema has no such request from the CLI.
	ErrUnknownMethod = errors.New("protocol: the CLI's schema has no such request")
	// ErrInvalidParams: the request's params do not decode into their type.
	ErrInvalidParams = errors.New("protocol: invalid params")
)

// decodeParams decodes a request's params; absent params decode as the
// zero value, which is what the schema's optional params mean.
func decodeParams(method string, raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w of %s: %v", ErrInvalidParams, method, err)
	}
	return nil
}
