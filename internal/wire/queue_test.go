package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Writes from one goroutine reach the peer in order, and concurrent writes
// never interleave inside one another.
func TestQueueWriterKeepsOrder(t *testing.T) {
	a, b := net.Pipe()
	q := newQueueWriter(a, 1<<30)
	t.Cleanup(func() { a.Close(); q.close(); q.wait(time.Minute); b.Close() })

	const writers, records = 4, 500
	var want bytes.Buffer
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range records {
				// Varying sizes, so records straddle the peer's reads.
				rec := fmt.Sprintf("%d:%d:%s;", w, i, strings.Repeat("z", i%97))
				if _, err := q.Write([]byte(rec)); err != nil {
					t.Errorf("write: %v", err)
					return
				}
			}
		}()
	}
	for w := range writers {
		for i := range records {
			fmt.Fprintf(&want, "%d:%d:%s;", w, i, strings.Repeat("z", i%97))
		}
	}
	got := make([]byte, want.Len())
	// A slow reader in small pieces: the queue batches behind it.
	if err := testutil.Await(t, "reading everything written", hangGuard, func() error {
		for off := 0; off < len(got); {
			n, err := b.Read(got[off:min(off+333, len(got))])
			if err != nil {
				return err
			}
			off += n
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	next := make([]int, writers)
	for _, rec := range strings.Split(strings.TrimSuffix(string(got), ";"), ";") {
		parts := strings.SplitN(rec, ":", 3)
		if len(parts) != 3 {
			t.Fatalf("torn record %q", rec)
		}
		w, _ := strconv.Atoi(parts[0])
		i, _ := strconv.Atoi(parts[1])
		if w < 0 || w >= writers || i != next[w] || parts[2] != strings.Repeat("z", i%97) {
			t.Fatalf("record %q out of order or torn (want %d:%d)", rec, w, next[w])
		}
		next[w]++
	}
	for w, n := range next {
		if n != records {
			t.Errorf("writer %d: %d records arrived, want %d", w, n, records)
		}
	}
}

// A peer that never reads cannot make Write wait.
func TestQueueWriterNeverBlocksOnThePeer(t *testing.T) {
	a, b := net.Pipe() // b is never read
	q := newQueueWriter(a, 1<<20)
	defer b.Close()
	chunk := bytes.Repeat([]byte("w"), 500)
	if err := testutil.Await(t, "1000 writes to a peer that does not read", hangGuard, func() error {
		for range 1000 {
			if _, err := q.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	q.close()
	a.Close() // unblocks the drain goroutine's write
	q.wait(time.Minute)
}

// The backlog counts everything not yet written, including the buffer the
// drain goroutine is blocked writing; past the bound a write fails without
// queuing any of its bytes, and the bound frees up as the peer reads.
func TestQueueWriterBacklogBound(t *testing.T) {
	const limit = 4096
	a, b := net.Pipe()
	q := newQueueWriter(a, limit)
	defer func() { q.close(); a.Close(); q.wait(time.Minute); b.Close() }()

	chunk := bytes.Repeat([]byte("k"), 100)
	// Let the drain goroutine take the first chunk and block on the peer,
	// so the bound must count what is in flight, not only what is queued.
	if _, err := q.Write(chunk); err != nil {
		t.Fatal(err)
	}
	accepted := len(chunk)
	waitFor(t, "the drain goroutine to take the first write", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.pending) == 0
	})
	var err error
	for range 1000 {
		if _, err = q.Write(chunk); err != nil {
			break
		}
		accepted += len(chunk)
	}
	if !errors.Is(err, ErrWriteBacklog) {
		t.Fatalf("after %d bytes: err = %v, want ErrWriteBacklog", accepted, err)
	}
	if accepted > limit || accepted < limit-len(chunk) {
		t.Fatalf("accepted %d bytes before failing; the limit is %d", accepted, limit)
	}
	// A failure is not sticky: what still fits is taken.
	rest := limit - accepted
	if rest > 0 {
		if _, err := q.Write(bytes.Repeat([]byte("r"), rest)); err != nil {
			t.Fatalf("a %d-byte write that fits: %v", rest, err)
		}
		accepted += rest
	}
	if _, err := q.Write([]byte("x")); !errors.Is(err, ErrWriteBacklog) {
		t.Fatalf("a write past the full bound: err = %v", err)
	}

	// The peer reads it all: exactly what was accepted, nothing of the
	// refused writes.
	got := make([]byte, accepted)
	if err := testutil.Await(t, "reading the backlog", hangGuard, func() error { _, err := io.ReadFull(b, got); return err }); err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("k", accepted-rest) + strings.Repeat("r", rest); string(got) != want {
		t.Fatalf("peer read %q...", got[:min(len(got), 40)])
	}
	// Once written, the bytes no longer count.
	deadline := time.Now().Add(hangGuard)
	for {
		if _, err := q.Write(bytes.Repeat([]byte("n"), limit)); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the backlog never freed after the peer read it: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitFor polls cond until it holds, failing the test after hangGuard.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// gatedWriter hands each Write's buffer to the test and returns only when
// released, so the test can act while the drain goroutine is inside Write.
type gatedWriter struct {
	calls   chan []byte
	release chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.calls <- p
	<-g.release
	return len(p), nil
}

// The buffer the drain goroutine is writing must never be the one new
// writes append to, whatever order wake-ups and writes come in. Here a
// wake-up finds nothing queued between two writes, which once made the
// queue and the reuse buffer share memory.
func TestQueueWriterNeverOverwritesTheBufferInFlight(t *testing.T) {
	g := &gatedWriter{calls: make(chan []byte), release: make(chan struct{})}
	q := newQueueWriter(g, 1<<20)
	defer func() { q.close(); q.wait(time.Minute) }()

	q.Write([]byte("aaaa"))
	<-g.calls
	g.release <- struct{}{}
	// Spurious wake-ups with nothing queued (as when a wake-up is left over
	// from writes the drain goroutine already took). The third send is
	// accepted only once the first was handled.
	for range 3 {
		q.wake <- struct{}{}
	}
	q.Write([]byte("bbbb"))
	inFlight := <-g.calls
	q.Write([]byte("cccc")) // while "bbbb" is being written
	got := string(inFlight)
	g.release <- struct{}{}
	if next := string(<-g.calls); next != "cccc" {
		t.Errorf("next write = %q, want cccc", next)
	}
	g.release <- struct{}{}
	if got != "bbbb" {
		t.Fatalf("the buffer being written changed under the writer: %q, want bbbb", got)
	}
}

// errWriter fails every write.
type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestQueueWriterWriteErrorIsKept(t *testing.T) {
	boom := errors.New("boom")
	q := newQueueWriter(errWriter{boom}, 1<<20)
	defer func() { q.close(); q.wait(time.Minute) }()
	q.Write([]byte("x"))
	deadline := time.Now().Add(hangGuard)
	var err error
	for {
		if _, err = q.Write([]byte("y")); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("writes kept succeeding after the peer failed")
		}
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(err, boom) || !errors.Is(q.failure(), boom) {
		t.Fatalf("err = %v, failure = %v, want them to wrap the write error", err, q.failure())
	}
	// Closing afterwards: writes report the close, failure keeps the cause.
	q.close()
	if _, err := q.Write([]byte("z")); !errors.Is(err, ErrStreamClosed) {
		t.Errorf("write after close: err = %v, want ErrStreamClosed", err)
	}
	if !errors.Is(q.failure(), boom) {
		t.Errorf("failure after close = %v, want the write error", q.failure())
	}
}
