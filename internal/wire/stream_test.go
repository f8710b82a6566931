package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// newPipeStream returns a Stream over one end of a net.Pipe and the other
// end, both closed when the test ends.
func newPipeStream(t *testing.T, limits Limits, hooks Hooks) (*Stream, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	s := NewStream(a, limits, hooks)
	t.Cleanup(func() {
		b.Close()
		s.Close()
	})
	return s, b
}

func encodeFrame(t *testing.T, obj any) string {
	t.Helper()
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return frameOf(string(body))
}

// What WriteObject writes is exactly Content-Length: N\r\n\r\n and N bytes
// of JSON, frame after frame.
func TestStreamWritesExactFrames(t *testing.T) {
	s, peer := newPipeStream(t, Limits{}, Hooks{})
	objs := []any{
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session.send", "params": map[string]string{"sessionId": "s", "prompt": "héllo\n\"x\""}},
		&jsonrpc2.Response{ID: jsonrpc2.ID{Str: "q", IsString: true}, Error: &jsonrpc2.Error{Code: -32001, Message: "no"}},
		map[string]any{"big": strings.Repeat("b", 20000)},
	}
	var want strings.Builder
	for _, o := range objs {
		if err := s.WriteObject(o); err != nil {
			t.Fatal(err)
		}
		want.WriteString(encodeFrame(t, o))
	}
	got := make([]byte, want.Len())
	if err := testutil.Await(t, "reading the frames", hangGuard, func() error { _, err := io.ReadFull(peer, got); return err }); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Fatalf("wire bytes differ:\n got %.200q\nwant %.200q", got, want.String())
	}
}

// Two streams talk to each other in both directions at once; every message
// arrives whole and in order.
func TestStreamRoundTrip(t *testing.T) {
	a, b := net.Pipe()
	sa := NewStream(a, Limits{}, Hooks{Malformed: func(err error, _ []byte) { t.Errorf("malformed: %v", err) }})
	sb := NewStream(b, Limits{}, Hooks{Malformed: func(err error, _ []byte) { t.Errorf("malformed: %v", err) }})
	defer sa.Close()
	defer sb.Close()

	const n = 300
	type params struct {
		SessionID string `json:"sessionId"`
		N         int    `json:"n"`
		Pad       string `json:"pad"`
	}
	var wg sync.WaitGroup
	exchange := func(from, to *Stream, session string) {
		defer wg.Done()
		go func() {
			for i := range n {
				p, _ := json.Marshal(params{SessionID: session, N: i, Pad: strings.Repeat("p", i*37%5000)})
				raw := json.RawMessage(p)
				if err := from.WriteObject(&jsonrpc2.Request{Method: "session.event", Params: &raw, Notif: true}); err != nil {
					t.Errorf("write %d: %v", i, err)
					return
				}
			}
		}()
		for i := range n {
			var m rpcMessage
			if err := to.ReadObject(&m); err != nil {
				t.Errorf("%s: read %d: %v", session, i, err)
				return
			}
			var p params
			if m.Request == nil || !m.Request.Notif || json.Unmarshal(*m.Request.Params, &p) != nil {
				t.Errorf("%s: message %d decoded as %+v", session, i, m)
				return
			}
			if p.SessionID != session || p.N != i || len(p.Pad) != i*37%5000 {
				t.Errorf("%s: message %d carried %s/%d", session, i, p.SessionID, p.N)
				return
			}
		}
	}
	wg.Add(2)
	go exchange(sa, sb, "a-to-b")
	go exchange(sb, sa, "b-to-a")
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	testutil.Receive(t, "the exchange did not finish", hangGuard, done)
}

// A frame that does not fit the backlog is refused whole: the peer never
// sees half of it, and the frames around it stay intact.
func TestStreamRefusedFrameLeavesNoPartOnTheWire(t *testing.T) {
	s, peer := newPipeStream(t, Limits{MaxWriteBacklogBytes: 16 << 10}, Hooks{})
	small := func(id int) any { return map[string]any{"id": id} }
	padded := func(id, n int) any { return map[string]any{"id": id, "pad": strings.Repeat("x", n)} }

	var want strings.Builder
	for _, o := range []any{small(1), padded(2, 6000)} {
		if err := s.WriteObject(o); err != nil {
			t.Fatal(err)
		}
		want.WriteString(encodeFrame(t, o))
	}
	// Larger than what is left of the bound, and larger than one write
	// buffer, so a writer that queued it piecemeal would queue a prefix.
	if err := s.WriteObject(padded(3, 12000)); !errors.Is(err, ErrWriteBacklog) {
		t.Fatalf("oversize write: err = %v, want ErrWriteBacklog", err)
	}
	if err := s.WriteObject(small(4)); err != nil {
		t.Fatal(err)
	}
	want.WriteString(encodeFrame(t, small(4)))

	got := make([]byte, want.Len())
	if err := testutil.Await(t, "reading the frames", hangGuard, func() error { _, err := io.ReadFull(peer, got); return err }); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Fatalf("the peer read:\n%.300q\nwant\n%.300q", got, want.String())
	}
}

// A value that cannot be encoded fails its own write only.
func TestStreamEncodeErrorWritesNothing(t *testing.T) {
	s, peer := newPipeStream(t, Limits{}, Hooks{})
	if err := s.WriteObject(map[string]any{"bad": make(chan int)}); err == nil {
		t.Fatal("encoding a channel succeeded")
	}
	good := map[string]any{"id": 9}
	if err := s.WriteObject(good); err != nil {
		t.Fatal(err)
	}
	want := encodeFrame(t, good)
	got := make([]byte, len(want))
	if err := testutil.Await(t, "reading", hangGuard, func() error { _, err := io.ReadFull(peer, got); return err }); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("peer read %q, want %q", got, want)
	}
}

// Close returns even while a write is blocked on a peer that does not read;
// writes afterwards fail with ErrStreamClosed, and closing is not reported
// as the stream's failure.
func TestStreamCloseWithABlockedWrite(t *testing.T) {
	for i := range 20 { // the drain goroutine's failing write races Close
		a, b := net.Pipe() // b is never read
		s := NewStream(a, Limits{}, Hooks{})
		for range 10 {
			if err := s.WriteObject(map[string]string{"pad": strings.Repeat("c", 3000)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := testutil.Await(t, "Close with a write blocked on the peer", hangGuard, s.Close); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := s.WriteObject(map[string]int{"id": 1}); !errors.Is(err, ErrStreamClosed) {
			t.Fatalf("round %d: write after Close: err = %v, want ErrStreamClosed", i, err)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("round %d: Err after a clean Close = %v, want nil", i, err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		b.Close()
	}
}

func TestStreamCloseEndsABlockedRead(t *testing.T) {
	s, _ := newPipeStream(t, Limits{}, Hooks{})
	errc := make(chan error, 1)
	go func() {
		var v json.RawMessage
		errc <- s.ReadObject(&v)
	}()
	s.Close()
	testutil.Receive(t, "ReadDone did not close after Close", hangGuard, s.ReadDone())
	if err := <-errc; err == nil {
		t.Fatal("ReadObject succeeded on a closed stream")
	}
}

// Err reports the first read error, even after later ones; ReadDone closes
// with it, not before.
func TestStreamErrIsTheFirstReadError(t *testing.T) {
	var malformed []string
	s, peer := newPipeStream(t, Limits{}, Hooks{Malformed: func(_ error, body []byte) { malformed = append(malformed, string(body)) }})
	go func() {
		peer.Write([]byte(frameOf(`{}`) + frameOf(`{"jsonrpc":"2.0","method":"a"}`)))
		peer.Write([]byte("Content-Length: nope\r\n\r\n"))
		peer.Close()
	}()
	var m rpcMessage
	if err := s.ReadObject(&m); err != nil {
		t.Fatal(err)
	}
	if m.Request == nil || m.Request.Method != "a" {
		t.Fatalf("decoded %+v", m)
	}
	if len(malformed) != 1 || malformed[0] != "{}" {
		t.Errorf("Malformed saw %q, want the {} frame", malformed)
	}
	select {
	case <-s.ReadDone():
		t.Fatal("ReadDone closed before any read failed")
	default:
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err = %v before any failure", err)
	}
	first := s.ReadObject(&m)
	if !errors.Is(first, ErrBadHeader) {
		t.Fatalf("err = %v, want ErrBadHeader", first)
	}
	select {
	case <-s.ReadDone():
	default:
		t.Fatal("ReadDone still open after a read failed")
	}
	for range 3 {
		if err := s.ReadObject(&m); err == nil {
			t.Fatal("a read after the failure succeeded")
		}
	}
	if err := s.Err(); err != first {
		t.Fatalf("Err = %v, want the first read error %v", err, first)
	}
}

// A peer that goes away makes writes fail with the write error, which Err
// reports while no read has failed.
func TestStreamWriteErrorIsReported(t *testing.T) {
	s, peer := newPipeStream(t, Limits{}, Hooks{})
	peer.Close()
	deadline := time.Now().Add(hangGuard)
	var err error
	for {
		if err = s.WriteObject(map[string]int{"id": 1}); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("writes to a closed peer kept succeeding")
		}
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(err, io.ErrClosedPipe) || errors.Is(err, ErrStreamClosed) {
		t.Fatalf("err = %v, want the peer's write error", err)
	}
	if got := s.Err(); !errors.Is(got, io.ErrClosedPipe) {
		t.Fatalf("Err = %v, want the write error", got)
	}
	s.Close()
	if got := s.Err(); !errors.Is(got, io.ErrClosedPipe) {
		t.Fatalf("Err after Close = %v, want the write error still", got)
	}
	if err := s.WriteObject(1); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("write after Close: err = %v, want ErrStreamClosed", err)
	}
}

func ExampleStream() {
	a, b := net.Pipe()
	client := NewStream(a, Limits{}, Hooks{})
	server := NewStream(b, Limits{}, Hooks{})
	defer client.Close()
	defer server.Close()

	client.WriteObject(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
	}{"2.0", 1, "ping"})
	var msg json.RawMessage
	if err := server.ReadObject(&msg); err != nil {
		fmt.Println(err)
	}
	fmt.Println(string(msg))
	// Output: {"jsonrpc":"2.0","id":1,"method":"ping"}
}
