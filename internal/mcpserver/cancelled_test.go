package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeConn replays messages to Read and records what is written.
type fakeConn struct {
	in      []jsonrpc.Message
	written []jsonrpc.Message
}

func (c *fakeConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(c.in) == 0 {
		return nil, io.EOF
	}
	m := c.in[0]
	c.in = c.in[1:]
	return m, nil
}

func (c *fakeConn) Write(_ context.Context, m jsonrpc.Message) error {
	c.written = append(c.written, m)
	return nil
}
func (c *fakeConn) Close() error      { return nil }
func (c *fakeConn) SessionID() string { return "" }

type fakeTransport struct{ c *fakeConn }

func (t fakeTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

func id(t *testing.T, v any) jsonrpc.ID {
	i, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// The response to a request cancelled while in flight is not sent; the
// others are, also one whose cancellation came after its response.
func TestDropCancelledResponse(t *testing.T) {
	cancel := func(reqID any) *jsonrpc.Request {
		p, _ := json.Marshal(map[string]any{"requestId": reqID, "reason": "user"})
		return &jsonrpc.Request{Method: "notifications/cancelled", Params: p}
	}
	fc := &fakeConn{in: []jsonrpc.Message{
		&jsonrpc.Request{ID: id(t, float64(1)), Method: "tools/call"},
		&jsonrpc.Request{ID: id(t, "two"), Method: "tools/call"},
		cancel(1),
		cancel(3), // never asked: ignored
	}}
	conn, err := dropCancelled(fakeTransport{fc}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for {
		if _, err := conn.Read(ctx); err != nil {
			break
		}
	}
	for _, x := range []any{float64(1), "two", float64(3)} {
		if err := conn.Write(ctx, &jsonrpc.Response{ID: id(t, x)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []any
	for _, m := range fc.written {
		got = append(got, m.(*jsonrpc.Response).ID.Raw())
	}
	if len(got) != 2 || got[0] != "two" || got[1] != int64(3) {
		t.Errorf("written: %v; want the responses to two and 3 only", got)
	}
}

// Logs carry no control sequences, in the message or the attributes.
func TestSafeHandler(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(SafeHandler(slog.NewTextHandler(&b, nil)))
	log.With("from", "cli\x1b]0;title\x07").Warn("stopped\x1b[2J", "cause", errors.New("exit\x1b[31m 1"), "n", 3)
	if strings.ContainsRune(b.String(), 0x1b) || strings.ContainsRune(b.String(), 0x07) || !strings.Contains(b.String(), "n=3") {
		t.Errorf("%q", b.String())
	}
}
