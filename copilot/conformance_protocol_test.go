package copilot

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// The real CLI 1.0.102 was seen to send some events twice (the same
// event id) when eight sessions stream thousands of chunks without pause.
// Whatever it sends, a caller must see each event once: the deltas a
// session's OnDelta receives, joined, are exactly the reply's text, and no
// event id reaches OnEvent twice.
func TestRealCLIEachEventOnceUnderLoad(t *testing.T) {
	const sessions, chunks = 8, 3000
	models := map[string]modelapi.Responder{}
	want := map[string]string{}
	for i := range sessions {
		id := fmt.Sprint("burst-", i)
		var b strings.Builder
		for c := range chunks {
			fmt.Fprintf(&b, "<%s:%d>", id, c)
		}
		want[id] = b.String()
		models[id] = modelapi.Fixed(modelapi.Text(want[id]).WithChunks(chunks))
	}
	c, _ := startReal(t, models, Options{})
	ctx := testutil.Context(t, 4*hangGuard)
	var wg sync.WaitGroup
	for id := range models {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.NewSession(ctx, SessionConfig{Model: id, BuiltinTools: NoBuiltinTools()})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Destroy(ctx)
			var streamed strings.Builder
			seen := map[string]int{}
			r, err := s.Stream(ctx, "go", TurnHandlers{
				OnDelta: func(d string) { streamed.WriteString(d) },
				OnEvent: func(ev Event) { seen[ev.ID]++ },
			})
			if err != nil {
				t.Errorf("%s: %v", id, err)
				return
			}
			if r.Text != want[id] {
				t.Errorf("%s: the reply's text differs from what the model sent (%d vs %d bytes)", id, len(r.Text), len(want[id]))
			}
			if streamed.String() != r.Text {
				t.Errorf("%s: the deltas joined (%d bytes) differ from the reply's text (%d bytes)", id, streamed.Len(), len(r.Text))
			}
			for evID, n := range seen {
				if n > 1 {
					t.Errorf("%s: event %s reached OnEvent %d times", id, evID, n)
					break
				}
			}
		}()
	}
	wg.Wait()
}

// Ping against the real CLI: its timestamp is an ISO-8601 string (a client
// that decoded a number failed here).
func TestRealCLIPing(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	p, err := c.Ping(testutil.Context(t, hangGuard), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if _, terr := time.Parse(time.RFC3339, p.Timestamp); terr != nil || p.Message != "pong: hi" || p.ProtocolVersion != ProtocolVersion {
		t.Fatalf("ping = %+v (timestamp: %v)", p, terr)
	}
}
