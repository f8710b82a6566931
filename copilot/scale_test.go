package copilot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// scaleModel answers each prompt with a text made of it, in many chunks.
func scaleModel(t sim.Turn) sim.Response {
	return sim.Response{Text: strings.Repeat(t.Prompt+" ", 10), ChunkSize: 8}
}

// runSessions runs n sessions at once on c, one turn each, and checks that
// each got exactly its own text.
func runSessions(tb testing.TB, c *Client, n int) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := c.NewSession(ctx, SessionConfig{Model: "scale", BuiltinTools: NoBuiltinTools()})
			if err != nil {
				errs <- err
				return
			}
			defer s.Destroy(ctx)
			prompt := fmt.Sprintf("session-%04d", i)
			var streamed strings.Builder
			r, err := s.Stream(ctx, prompt, TurnHandlers{OnDelta: func(d string) { streamed.WriteString(d) }})
			want := strings.Repeat(prompt+" ", 10)
			if err == nil && (r.Text != want || streamed.String() != want) {
				err = fmt.Errorf("%s got %.60q", prompt, r.Text)
			}
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Error(err)
	}
}

// Hundreds of sessions at once over one connection.
func TestHundredsOfSessions(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: []sim.Model{{ID: "scale", Respond: scaleModel}}})
	defer srv.Close()
	c, err := Connect(testutil.Context(t, hangGuard), srv.Dial(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	runSessions(t, c, 300)
	if s := c.Router().Stats(); s.FellBehind != 0 || s.Sessions != 0 {
		t.Errorf("stats %+v", s)
	}
	if srv.MaxConcurrentTurns() < 2 || len(srv.LiveSessions()) != 0 {
		t.Errorf("max concurrent turns %d, live %d", srv.MaxConcurrentTurns(), len(srv.LiveSessions()))
	}
}

// BenchmarkSessions runs n sessions at once, one streamed turn each (about
// 20 chunks), over one connection to the in-process simulator. One op is
// the whole batch; ns/session is reported for comparing sizes side by side.
func BenchmarkSessions(b *testing.B) {
	for _, n := range []int{1, 7, 100, 500} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			srv := sim.NewServer(sim.Options{Models: []sim.Model{{ID: "scale", Respond: scaleModel}}})
			defer srv.Close()
			c, err := Connect(context.Background(), srv.Dial(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				runSessions(b, c, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/session")
		})
	}
}
