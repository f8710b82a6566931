package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dropCancelled wraps a transport so that no response goes out for a
// request the client cancelled: the specification says a receiver of
// notifications/cancelled should not answer the request, and the SDK
// answers it with whatever the handler returns once it has stopped. (Over
// Streamable HTTP, whose connections the SDK makes itself, the answer
// does go out; the client has forgotten the request and drops it.)
func dropCancelled(t mcp.Transport) mcp.Transport { return &cancelFilter{t: t} }

type cancelFilter struct{ t mcp.Transport }

func (f *cancelFilter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := f.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelConn{Connection: c, inFlight: map[jsonrpc.ID]bool{}}, nil
}

type cancelConn struct {
	mcp.Connection
	mu sync.Mutex
	// inFlight are the requests read and not yet answered: true once
	// cancelled. Only those can be cancelled, so a late cancellation of a
	// request already answered leaves nothing behind.
	inFlight map[jsonrpc.ID]bool
}

// Read notes the requests in flight and which of them were cancelled.
func (c *cancelConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if !ok || err != nil {
		return msg, err
	}
	if req.IsCall() {
		c.mu.Lock()
		c.inFlight[req.ID] = false
		c.mu.Unlock()
	} else if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.mu.Lock()
				if _, ok := c.inFlight[id]; ok {
					c.inFlight[id] = true
				}
				c.mu.Unlock()
			}
		}
	}
	return msg, err
}

// Write drops the response to a cancelled request.
func (c *cancelConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		drop := c.inFlight[resp.ID]
		delete(c.inFlight, resp.ID)
		c.mu.Unlock()
		if drop {
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}
