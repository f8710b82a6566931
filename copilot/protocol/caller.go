package protocol

import (
	"context"
	"errors"
	"fmt"
)

// Caller makes one JSON-RPC call and decodes its result into result (nil
// to discard it). *router.Router is the Caller the copilot package uses;
// anything with the same method will do, a test double included.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// rpcConn is what every generated group of calls shares: the caller, and
// for a session's calls the session id they fill in.
type rpcConn struct {
	caller    Caller
	sessionID string
}

// ErrNoCaller reports a typed call made on an RPC value built without a
// Caller (the zero value of a generated group).
var ErrNoCaller = errors.New("protocol: no Caller: build RPC values with NewServerRPC or NewSessionRPC")

func (c *rpcConn) call(ctx context.Context, method string, params, result any) error {
	if c == nil || c.caller == nil {
		return fmt.Errorf("%s: %w", method, ErrNoCaller)
	}
	return c.caller.Call(ctx, method, params, result)
}
