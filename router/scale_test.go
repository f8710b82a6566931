package router

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

// 64 sessions created concurrently on one connection stream interleaved
// turns; each must get exactly its own text, in order.
// Contracts 1 and 3 (see the package doc).
func TestSixtyFourInterleavedTurns(t *testing.T) {
	const sessions, chunks = 64, 50
	r, p := newPeer(t, Config{})
	ctx := testutil.Context(t, hangGuard)

	// The peer answers creations and, once all exist, streams every
	// session's turn one chunk at a time, round robin.
	created := make(chan string, sessions)
	go func() {
		for i := 0; i < sessions; i++ {
			f := p.expect("session.create")
			var prm struct{ SessionID string }
			if err := jsonUnmarshal(f.Params, &prm); err != nil {
				t.Error(err)
				return
			}
			p.event(prm.SessionID, "session.start", "")
			p.respond(f, fmt.Sprintf(`{"sessionId":%q}`, prm.SessionID))
			created <- prm.SessionID
		}
		ids := make([]string, 0, sessions)
		for i := 0; i < sessions; i++ {
			ids = append(ids, <-created)
		}
		for k := 0; k < chunks; k++ {
			for _, id := range ids {
				p.delta(id, fmt.Sprintf("%s:%d ", id, k))
			}
		}
		for _, id := range ids {
			p.event(id, "session.idle", "")
		}
	}()

	var wg sync.WaitGroup
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("sess-%02d", i)
			ch, err := r.Create(ctx, id, map[string]string{"sessionId": id, "model": "m"}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer ch.Close(context.Background())
			var deltas int
			text, err := ch.ReadTurn(ctx, &session.TurnHandlers{OnDelta: func(string) { deltas++ }})
			if err != nil {
				t.Errorf("%s: %v", id, err)
				return
			}
			var want strings.Builder
			for k := 0; k < chunks; k++ {
				fmt.Fprintf(&want, "%s:%d ", id, k)
			}
			if text != want.String() || deltas != chunks {
				t.Errorf("%s got %d deltas, text %.80q…, want its own %d chunks in order", id, deltas, text, chunks)
			}
		}(i)
	}
	wg.Wait()
	// The reader counts a message just after handing it over, so a consumer
	// can be faster. One more message through the reader settles the count
	// of everything before it (its own may still be pending).
	sync := open(t, r, "sync")
	p.event("sync", "x", "")
	receiveEvent(t, sync)
	s := r.Stats()
	if want := uint64(sessions * (chunks + 2)); s.Routed < want || s.Routed > want+1 || s.DroppedUnknown != 0 {
		t.Errorf("Routed = %d (want %d), DroppedUnknown = %d", s.Routed, want, s.DroppedUnknown)
	}
}
