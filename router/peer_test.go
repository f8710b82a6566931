package router

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds waits in tests so a bug shows as a failure, not a hang.
// It is never a timing assertion.
const hangGuard = 10 * time.Second

// frame is one message as the peer read it.
type frame struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// peer is the far end of a router in tests: it reads every frame the router
// writes and writes raw frames of its choosing, so tests control order.
type peer struct {
	t     testing.TB
	conn  net.Conn
	mu    sync.Mutex // serialises writes
	in    chan frame
	done  chan struct{}
	drain sync.WaitGroup
	// eventIDs numbers the events the peer sends: distinct events, so the
	// session channel's deduplication keeps them all.
	eventIDs atomic.Int64
}

// mustNew is New for a Config the test means to be valid.
func mustNew(tb testing.TB, rwc io.ReadWriteCloser, cfg Config) *Router {
	tb.Helper()
	r, err := New(rwc, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func newPeer(t testing.TB, cfg Config) (*Router, *peer) {
	t.Helper()
	a, b := net.Pipe()
	p := &peer{t: t, conn: b, in: make(chan frame, 4096), done: make(chan struct{})}
	p.drain.Add(1)
	go p.read()
	r := mustNew(t, a, cfg)
	t.Cleanup(func() {
		r.Close()
		p.close()
	})
	return r, p
}

func (p *peer) read() {
	defer p.drain.Done()
	defer close(p.in)
	br := bufio.NewReader(p.conn)
	for {
		var n int
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var f frame
		if err := json.Unmarshal(body, &f); err != nil {
			p.t.Errorf("peer: router wrote invalid JSON %q: %v", body, err)
			return
		}
		select {
		case p.in <- f:
		case <-p.done:
			return
		}
	}
}

func (p *peer) close() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	p.conn.Close()
	p.drain.Wait()
}

// raw writes bytes as they are.
func (p *peer) raw(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.conn.Write(b)
	return err
}

// send frames v (a JSON string or a value to marshal).
func (p *peer) send(v any) {
	p.t.Helper()
	var body []byte
	switch v := v.(type) {
	case string:
		body = []byte(v)
	default:
		var err error
		if body, err = json.Marshal(v); err != nil {
			p.t.Fatal(err)
		}
	}
	if err := p.raw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))); err != nil {
		p.t.Errorf("peer: write: %v", err)
	}
}

// next returns the next frame the router wrote.
func (p *peer) next() frame {
	p.t.Helper()
	select {
	case f, ok := <-p.in:
		if !ok {
			p.t.Fatal("peer: connection closed while waiting for a frame")
		}
		return f
	case <-time.After(hangGuard):
		p.t.Fatal("peer: no frame from the router")
	}
	return frame{}
}

// expect returns the next frame, which must be a call of method.
func (p *peer) expect(method string) frame {
	p.t.Helper()
	f := p.next()
	if f.Method != method {
		p.t.Fatalf("peer: got %q (%s), want a %s call", f.Method, f.Params, method)
	}
	return f
}

// respond answers a call.
func (p *peer) respond(f frame, result string) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, *f.ID, result))
}

// event sends a session.event notification.
func (p *peer) event(sessionID, typ, data string) {
	p.t.Helper()
	if data == "" {
		data = "{}"
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":%q,"event":{"type":%q,"data":%s,"id":"e%d"}}}`, sessionID, typ, data, p.eventIDs.Add(1)))
}

// delta sends one streamed text chunk.
func (p *peer) delta(sessionID, text string) {
	p.t.Helper()
	b, _ := json.Marshal(map[string]string{"deltaContent": text, "messageId": "m"})
	p.event(sessionID, "assistant.message_delta", string(b))
}

// roundTrip makes a call of r's that the peer answers. Once it returns, the
// reader has handled everything the peer sent before the answer, so the
// counters include it (an answer the router queued reaches the peer before
// the reader counts it).
func (p *peer) roundTrip(r *Router) {
	p.t.Helper()
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		errc <- r.Call(ctx, "ping", nil, nil)
	}()
	p.respond(p.expect("ping"), `{}`)
	if err := <-errc; err != nil {
		p.t.Fatalf("round trip: %v", err)
	}
}
