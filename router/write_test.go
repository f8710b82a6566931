package router

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Contract 6: writes never block on the peer. A peer that never reads
// (a synchronous pipe nobody drains) makes calls fail with
// ErrWriteBacklog once the backlog is full, instead of blocking the
// caller; each call before that returns without waiting for the peer to
// read.
func TestWritesNeverBlockOnThePeer(t *testing.T) {
	ours, theirs := net.Pipe()
	defer theirs.Close()
	r := mustNew(t, ours, Config{MaxWriteBacklogBytes: 4 << 10})
	defer r.Close()
	ctx := testutil.Context(t, hangGuard)
	big := map[string]string{"pad": string(make([]byte, 1024))}
	var err error
	for i := 0; i < 64 && err == nil; i++ {
		// A notification waits for no answer: it returns once queued.
		err = r.Notify(ctx, "test.note", big)
	}
	if !errors.Is(err, ErrWriteBacklog) {
		t.Fatalf("64 KiB to a peer that never reads, with a 4 KiB backlog: %v, want ErrWriteBacklog", err)
	}
	// A call fails the same way at once, rather than waiting.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := r.Call(cctx, "test.call", big, nil); !errors.Is(err, ErrWriteBacklog) {
		t.Fatalf("a call past the backlog: %v", err)
	}
}
