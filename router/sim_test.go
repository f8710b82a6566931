package router

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

// Creation loses nothing against the simulated Copilot server, whichever
// side of the create response session.start comes on: client-chosen ids
// created concurrently, and server-assigned ids created (serialised) at
// the same time.
func TestCreationWithSimulatorBothOrders(t *testing.T) {
	for _, order := range []sim.StartOrder{sim.StartBefore, sim.StartAfter, sim.StartRandom} {
		t.Run(order.String(), func(t *testing.T) {
			srv := sim.NewServer(sim.Options{StartOrder: order, Seed: 7, Models: []sim.Model{{ID: "m", Respond: sim.Echo}}})
			defer srv.Close()
			r := mustNew(t, srv.Dial(), Config{})
			defer r.Close()
			ctx := testutil.Context(t, hangGuard)
			var wg sync.WaitGroup
			check := func(ch *session.Channel, err error, what string) {
				if err != nil {
					t.Errorf("%s: %v", what, err)
					return
				}
				defer func() {
					// Closing deregisters; ending the session on the server
					// is a call of its own, which the count below checks.
					_ = ch.Close(ctx)
					if err := r.Call(ctx, "session.destroy", map[string]string{"sessionId": ch.ID()}, nil); err != nil {
						t.Errorf("%s: destroy: %v", what, err)
					}
				}()
				if ev := receiveEvent(t, ch); ev.Type != protocol.EventSessionStart {
					t.Errorf("%s: first event %s, want session.start", what, ev.Type)
				}
				if err := r.Call(ctx, "session.send", map[string]string{"sessionId": ch.ID(), "prompt": what}, nil); err != nil {
					t.Error(err)
					return
				}
				if text, err := ch.ReadTurn(ctx, nil); err != nil || text != "echo: "+what {
					t.Errorf("%s: %q %v", what, text, err)
				}
			}
			for i := 0; i < 16; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					id := uuid.NewString()
					ch, err := r.Create(ctx, id, map[string]any{"sessionId": id, "model": "m", "streaming": true}, nil)
					check(ch, err, fmt.Sprint("client-", i))
				}(i)
			}
			for i := 0; i < 4; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					ch, err := r.CreateAssigned(ctx, map[string]any{"model": "m", "streaming": true}, nil)
					check(ch, err, fmt.Sprint("assigned-", i))
				}(i)
			}
			wg.Wait()
			if n := len(srv.LiveSessions()); n != 0 {
				t.Errorf("%d sessions left", n)
			}
		})
	}
}
