package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Fault injection. Every method here queues its bytes on the connection's one
// ordered write path, so they land exactly between the frames queued before
// and after the call, never inside one. The methods do not wait for the
// client to read; Flush does.

// The exact bytes of the canned faults, for tests to compare with.
var (
	// FrameBrokenHeader has a Content-Length that is not a number; a client
	// cannot find the next frame after it.
	FrameBrokenHeader = []byte("Content-Length: not-a-number\r\n\r\n")
	// FrameInvalidJSON is well framed, but its body is cut-off JSON.
	FrameInvalidJSON = Frame([]byte(`{"jsonrpc":"2.0","method":`))
)

// Frame returns body with its Content-Length header, as the server frames
// every message.
func Frame(body []byte) []byte { return frame(body) }

// WriteRaw writes b as is. It fails only if the connection has ended.
func (c *Conn) WriteRaw(b []byte) error {
	b = bytes.Clone(b)
	return c.pushWrite(func() error { return c.stream.WriteRaw(b) })
}

// WriteFrame writes body with a correct Content-Length header, whatever the
// body is: `42` or `{}` make a frame that is neither request nor response.
func (c *Conn) WriteFrame(body []byte) error { return c.WriteRaw(frame(body)) }

// WriteBrokenHeader writes FrameBrokenHeader.
func (c *Conn) WriteBrokenHeader() error { return c.WriteRaw(FrameBrokenHeader) }

// WriteInvalidJSON writes FrameInvalidJSON.
func (c *Conn) WriteInvalidJSON() error { return c.WriteRaw(FrameInvalidJSON) }

// OversizeHeader returns the header WriteOversizeFrame writes for size.
func OversizeHeader(size int64) []byte {
	return []byte("Content-Length: " + strconv.FormatInt(size, 10) + "\r\n\r\n")
}

// WriteOversizeFrame writes a header announcing size bytes. With body it then
// writes a body of exactly size bytes (one JSON string: `"xxx…"`, so size is
// at least 2), streamed in pieces while no other frame can interleave;
// without it the next frame's bytes follow at once, which a client can only
// read as a broken body. A client that enforces a limit should fail the
// connection after the header.
func (c *Conn) WriteOversizeFrame(size int64, body bool) error {
	if body && size < 2 {
		return errors.New("sim: an oversize body is a JSON string of at least 2 bytes")
	}
	header := OversizeHeader(size)
	return c.pushWrite(func() error {
		return c.stream.writeLocked(func(w io.Writer) error {
			if _, err := w.Write(header); err != nil || !body {
				return err
			}
			return writeFiller(w, size)
		})
	})
}

// writeFiller writes a JSON string of exactly size bytes.
func writeFiller(w io.Writer, size int64) error {
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	if _, err := w.Write([]byte(`"`)); err != nil {
		return err
	}
	for left := size - 2; left > 0; {
		n := min(left, int64(len(chunk)))
		if _, err := w.Write(chunk[:n]); err != nil {
			return err
		}
		left -= n
	}
	_, err := w.Write([]byte(`"`))
	return err
}

// WriteResponse writes a success response with id and result, whether or not
// the client ever sent a request with that id: a response to an unknown id.
func (c *Conn) WriteResponse(id any, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		return err
	}
	return c.WriteFrame(body)
}

// DoubleAnswer makes the server answer the next request for method (any
// method if empty) twice, with two identical responses.
func (c *Conn) DoubleAnswer(method string) {
	c.mu.Lock()
	c.double = &method
	c.mu.Unlock()
}

// Notify writes a notification with any method and params.
func (c *Conn) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if !c.notify(method, raw) {
		return errConnClosed
	}
	return nil
}

// EmitEvent writes a session.event for sessionID. For a live session of this
// connection the event joins its chain (parentId, getMessages unless
// ephemeral), which is how a test injects event types the simulator never
// produces on its own; for any other id it is a lone event (parentId null).
func (c *Conn) EmitEvent(sessionID, eventType string, data any, ephemeral bool) error {
	return c.EmitAgentEvent(sessionID, "", eventType, data, ephemeral)
}

// EmitAgentEvent is EmitEvent for an event of the sub-agent agentID: the
// envelope carries agentId, as the real CLI tags a sub-agent's events. An
// empty agentID makes a main-agent event (no agentId), as EmitEvent does.
func (c *Conn) EmitAgentEvent(sessionID, agentID, eventType string, data any, ephemeral bool) error {
	if s := c.session(sessionID); s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.destroyed {
			s.emitEventLocked(agentID, eventType, data, ephemeral)
			return nil
		}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	ev := Event{Type: eventType, Data: raw, ID: uuid.NewString(), Timestamp: now(), Ephemeral: ephemeral, AgentID: agentID}
	if !c.notify(protocol.NotificationSessionEvent, eventParams(sessionID, ev)) {
		return errConnClosed
	}
	return nil
}

// EmitUnknownSessionEvent writes a session.event of eventType for a fresh
// session id that no session has, and returns that id.
func (c *Conn) EmitUnknownSessionEvent(eventType string) (string, error) {
	id := uuid.NewString()
	return id, c.EmitEvent(id, eventType, map[string]any{}, false)
}

// Call sends a server→client request with any method and params, in order
// with the other traffic, and waits for the client's answer, ctx or the end
// of the connection. Answers are also recorded (Server.Answers).
//
// A method the CLI sends without waiting for an answer
// (protocol.IsNotification: githubTelemetry.event, host.exited, …) goes out
// as a notification, as the CLI sends it; Call then returns once it is
// written, with neither Result nor Error, and records nothing. So a test can
// send every one of protocol.ClientMethods the same way.
func (c *Conn) Call(ctx context.Context, method string, params any) Answer {
	if protocol.IsNotification(method) {
		return c.notifyAndFlush(ctx, method, params)
	}
	return c.call(ctx, method, params)
}

// CallSession is Call for a request about one session: params (a struct or
// map that marshals to a JSON object, or nil) are sent with "sessionId" set
// to sessionID, which the CLI's requests to a client all carry.
func (c *Conn) CallSession(ctx context.Context, sessionID, method string, params any) Answer {
	obj := map[string]json.RawMessage{}
	if params != nil {
		raw, err := json.Marshal(params)
		if err == nil && string(raw) != "null" {
			err = json.Unmarshal(raw, &obj)
		}
		if err != nil {
			return Answer{Method: method, Err: fmt.Errorf("sim: CallSession params must be a JSON object: %w", err)}
		}
	}
	obj["sessionId"], _ = json.Marshal(sessionID)
	return c.Call(ctx, method, obj)
}

// notifyAndFlush sends a notification and waits until it is written.
func (c *Conn) notifyAndFlush(ctx context.Context, method string, params any) Answer {
	a := Answer{Method: method}
	a.Params, a.Err = json.Marshal(params)
	if a.Err == nil {
		a.Err = c.Notify(method, json.RawMessage(a.Params))
	}
	if a.Err == nil {
		a.Err = c.Flush(ctx)
	}
	return a
}

// CallUnknownSession sends a tool.call request (the legacy server→client
// request) naming a fresh session id that no session has, waits for the
// client's answer as Call does, and returns the id it used. A correct client
// answers it with an error rather than leaving it unanswered.
func (c *Conn) CallUnknownSession(ctx context.Context, method string) (string, Answer) {
	if method == "" {
		method = protocol.MethodToolCall
	}
	id := uuid.NewString()
	return id, c.call(ctx, method, map[string]any{
		"sessionId":  id,
		"toolCallId": "call_unknown",
		"toolName":   "unknown_tool",
		"arguments":  map[string]any{},
	})
}

// CloseAbruptly closes the transport right after the frames queued before
// it, with nothing else: no error, no goodbye. Combine with WriteRaw of a
// partial frame to cut a frame in half.
func (c *Conn) CloseAbruptly() error {
	return c.pushWrite(func() error {
		c.stream.Close()
		return nil
	})
}

// Flush waits until everything queued on the connection so far has been
// written (or has failed), or ctx is done.
func (c *Conn) Flush(ctx context.Context) error {
	done := make(chan error, 1)
	if !c.out.push(outItem{write: func() error { return nil }, done: done}) {
		return errConnClosed
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Conn) pushWrite(fn func() error) error {
	if !c.out.push(outItem{write: fn}) {
		return errConnClosed
	}
	return nil
}
