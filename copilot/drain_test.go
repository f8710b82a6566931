package copilot

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Pins what Session.Stream documents about the turn after one cut short
// whose session.idle was lost on the way: it reads what is left of the old
// turn until drainQuiet passes in silence, before it sends its prompt. A
// context shorter than that fails it with the context's error and the
// prompt unsent; one longer runs it. (The deadline below is a tenth of
// drainQuiet: no machine's load lets the drain end before it, since the
// drain ends only after drainQuiet of silence.)
func TestNextTurnAfterALostIdleWaitsForQuiet(t *testing.T) {
	var dropIdle atomic.Bool
	dropIdle.Store(true)
	c, srv := simClient(t, sim.Options{
		EventCopies: func(_, eventType string) int {
			if eventType == protocol.EventSessionIdle && dropIdle.Load() {
				return 0
			}
			return 1
		},
		Models: []sim.Model{model("m", sim.Sequence(sim.Response{Text: "partial", Hang: true}, sim.Text("second")))},
	})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	turnCtx, cancel := context.WithCancel(ctx)
	var once sync.Once
	if _, err := s.Stream(turnCtx, "go", TurnHandlers{OnDelta: func(string) { once.Do(cancel) }}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled turn: %v", err)
	}
	// The abort was answered before Stream returned, and the simulator
	// emits the aborted turn's session.idle before its answer: it is lost.
	dropIdle.Store(false)

	short, cancelShort := context.WithTimeout(ctx, drainQuiet/10)
	defer cancelShort()
	if _, err := s.Stream(short, "hurry", TurnHandlers{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a turn with less time than drainQuiet after a lost idle: %v, want context.DeadlineExceeded", err)
	}
	if n := srv.Calls(protocol.MethodSessionSend); n != 1 {
		t.Fatalf("session.send calls: %d, want 1 (the hurried prompt must not be sent while the old turn drains)", n)
	}
	if a, err := s.Ask(ctx, "again"); err != nil || a != "second" {
		t.Fatalf("the next turn with time enough: %q, %v", a, err)
	}
}
