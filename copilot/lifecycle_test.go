package copilot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/router"
)

// lifecycleLog is an OnLifecycle listener that hands every notification
// to the test.
type lifecycleLog chan protocol.LifecycleNotification

func (l lifecycleLog) on(n protocol.LifecycleNotification) { l <- n }

// await returns the first notification of type typ for session id,
// skipping others.
func (l lifecycleLog) await(t *testing.T, typ, id string) protocol.LifecycleNotification {
	t.Helper()
	ctx := testutil.Context(t, hangGuard)
	for {
		select {
		case n := <-l:
			if n.Type == typ && n.SessionID == id {
				return n
			}
		case <-ctx.Done():
			t.Fatalf("no %s for session %s", typ, id)
		}
	}
}

// Listeners see a session created and deleted, in order; one that
// panics or stops does not keep the others from theirs.
func TestOnLifecycle(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	log := make(lifecycleLog, 16)
	stopPanicky := c.OnLifecycle(func(protocol.LifecycleNotification) { panic("listener bug") })
	stop := c.OnLifecycle(log.on)
	stopped := make(lifecycleLog, 16)
	stopLater := c.OnLifecycle(stopped.on)

	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log.await(t, protocol.LifecycleSessionCreated, s.ID())
	stopped.await(t, protocol.LifecycleSessionCreated, s.ID())
	stopLater()
	stopPanicky()
	if err := s.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	log.await(t, protocol.LifecycleSessionDeleted, s.ID())
	stop()
	// Lifecycle notifications are global: a fresh session's creation
	// reaching no listener shows the stopped ones are gone.
	s2, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Ask(ctx, "the connection still serves"); err != nil {
		t.Fatal(err)
	}
	for _, l := range []lifecycleLog{log, stopped} {
		for len(l) > 0 {
			if n := <-l; n.SessionID == s2.ID() {
				t.Errorf("a stopped listener got %+v", n)
			}
		}
	}
}

// A listener that blocks holds up neither the connection nor, once it
// returns, the notifications that come after the ones its buffer lost.
func TestOnLifecycleSlowListenerFallsBehindAlone(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	defer srv.Close()
	ctx := testutil.Context(t, hangGuard)
	c, err := Connect(ctx, srv.Dial(), Options{Router: router.Config{MaxSessionBufferBytes: 64 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	unblock := make(chan struct{})
	log := make(lifecycleLog, 4096)
	c.OnLifecycle(func(n protocol.LifecycleNotification) {
		if n.SessionID == "block" {
			<-unblock
		}
		log.on(n)
	})
	conn := onlyConn(t, srv)
	notify := func(id string) {
		t.Helper()
		if err := conn.Notify(protocol.NotificationSessionLifecycle, protocol.LifecycleNotification{Type: protocol.LifecycleSessionUpdated, SessionID: id}); err != nil {
			t.Fatal(err)
		}
	}
	notify("block")
	for i := range 2000 { // about 140 KB: past the buffer
		notify(fmt.Sprint("flood-", i))
	}
	if err := conn.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// The connection reads on while the listener is stuck.
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Ask(ctx, "hello"); err != nil || a != "echo: hello" {
		t.Fatalf("a session while the listener blocks: %q, %v", a, err)
	}
	close(unblock)
	// What overflowed is lost; what comes once the listener is back gets
	// through (sent again until it does: the client resubscribes after the
	// listener returns, and what comes before that has nowhere to go).
	flood := 0
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	notify("after")
	for arrived := false; !arrived; {
		select {
		case n := <-log:
			if strings.HasPrefix(n.SessionID, "flood-") {
				flood++
			}
			arrived = n.SessionID == "after"
		case <-tick.C:
			notify("after")
		case <-ctx.Done():
			t.Fatal("no notification got through after the listener returned")
		}
	}
	if flood >= 2000 {
		t.Errorf("all %d flood notifications were kept: the buffer did not bound them", flood)
	}
}
