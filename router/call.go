package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/wire"
)

// Calls are correlated here rather than by jsonrpc2.Conn.Call because its
// Waiter keeps the pending entry when the caller's context ends: a
// cancelled call would hold memory until the connection closes, and a late
// answer could not be told from a stray one. We write requests to the same
// stream jsonrpc2 writes to (the stream serialises writes) and take every
// response from jsonrpc2's OnRecv hook on the reader.

// pendingCall is one call waiting for its response: a one-shot.
type pendingCall struct {
	done chan *jsonrpc2.Response // buffered: the reader never waits on it
	// late, set under r.mu when the caller gave up but still wants the
	// answer (an abandoned CreateAssigned, hold.go), takes the response on
	// the reader instead of done.
	late func(*jsonrpc2.Response)
}

// errAwaitingLate is returned by call when its caller gave up and the
// response will go to the late func its onLate supplied.
var errAwaitingLate = errors.New("router: the response will be handled when it comes")

// Call sends a request and waits for its response, the router's stop, or
// the end of ctx. A JSON-RPC error response is returned as *CallError; the
// router's end as an error wrapping ErrStopped and its cause. When ctx ends
// first, the pending entry is removed and ctx.Err() is returned (wrapped);
// an answer that arrives later is counted as an unknown response. result
// may be nil to discard the result.
func (r *Router) Call(ctx context.Context, method string, params, result any) error {
	return r.call(ctx, method, params, result, nil)
}

// call is Call. When ctx ends first and onLate is not nil, onLate is asked
// (under r.mu) for a func to take the response when it comes; given one,
// call returns an error wrapping ctx.Err() and errAwaitingLate. A response
// already in when ctx ended is then returned as if ctx had not ended.
func (r *Router) call(ctx context.Context, method string, params, result any, onLate func() func(*jsonrpc2.Response)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req := &jsonrpc2.Request{Method: method, ID: jsonrpc2.ID{Num: r.nextID.Add(1)}}
	if params != nil {
		if err := req.SetParams(params); err != nil {
			return fmt.Errorf("router: encoding the params of %s: %w", method, err)
		}
	}
	pc := &pendingCall{done: make(chan *jsonrpc2.Response, 1)}
	r.mu.Lock()
	if r.err != nil {
		r.mu.Unlock()
		return r.err
	}
	r.pending[req.ID] = pc
	r.mu.Unlock()

	if err := r.stream.WriteObject(req); err != nil {
		r.forget(req.ID)
		return r.sendError(method, err)
	}

	select {
	case resp := <-pc.done:
		return r.finishCall(method, resp, result)
	case <-ctx.Done():
		if onLate == nil {
			r.forget(req.ID)
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		r.mu.Lock()
		if r.pending[req.ID] == pc {
			if pc.late = onLate(); pc.late == nil {
				delete(r.pending, req.ID)
			}
			r.mu.Unlock()
			if pc.late != nil {
				return fmt.Errorf("%s: %w (%w)", method, ctx.Err(), errAwaitingLate)
			}
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		r.mu.Unlock()
		// The response came in (or the router stopped) as ctx ended.
		select {
		case resp := <-pc.done:
			return r.finishCall(method, resp, result)
		default:
			if err := r.Err(); err != nil {
				return err
			}
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
	case <-r.done:
		// The response may have come in just before the stop: a call that
		// succeeded must not be reported as failed.
		select {
		case resp := <-pc.done:
			return r.finishCall(method, resp, result)
		default:
		}
		return r.Err()
	}
}

// finishCall turns a call's response into its result or error.
func (r *Router) finishCall(method string, resp *jsonrpc2.Response, result any) error {
	if resp.Error != nil {
		return callError(method, resp.Error)
	}
	if result == nil || resp.Result == nil {
		return nil
	}
	if err := json.Unmarshal(*resp.Result, result); err != nil {
		return fmt.Errorf("router: decoding the result of %s: %w", method, err)
	}
	return nil
}

// Notify sends a notification. It does not wait for the peer to read it.
func (r *Router) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := r.Err(); err != nil {
		return err
	}
	req := &jsonrpc2.Request{Method: method, Notif: true}
	if params != nil {
		if err := req.SetParams(params); err != nil {
			return fmt.Errorf("router: encoding the params of %s: %w", method, err)
		}
	}
	if err := r.stream.WriteObject(req); err != nil {
		return r.sendError(method, err)
	}
	return nil
}

// sendError explains a failed write. A closed or broken stream means the
// router is stopping (its watcher is on the way): wait for that and report
// the stop with its cause, as every other waiter sees it.
func (r *Router) sendError(method string, err error) error {
	if errors.Is(err, wire.ErrStreamClosed) || r.stream.Err() != nil {
		<-r.done
		return r.Err()
	}
	return fmt.Errorf("router: sending %s: %w", method, err)
}

func (r *Router) forget(id jsonrpc2.ID) {
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
}

// onRecv runs on the reader for every message; it completes calls.
func (r *Router) onRecv(_ *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if resp == nil {
		return
	}
	r.mu.Lock()
	pc := r.pending[resp.ID]
	delete(r.pending, resp.ID)
	r.mu.Unlock()
	if pc == nil {
		r.count.unknownResponses.Add(1)
		r.log.Debug().Str("id", resp.ID.String()).Msg("router: response to no waiting call (unknown id, duplicate, or its caller gave up)")
		return
	}
	r.count.responses.Add(1)
	if pc.late != nil {
		pc.late(resp)
		return
	}
	pc.done <- resp
}
