package router

import (
	"errors"
	"fmt"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

// Contract 11 (see the package doc). Supersede hands a session to a new
// channel while its events stream: every event reaches exactly one of the
// two channels, in order, the old consumer's first; the old channel ends with session.ErrSuperseded;
// closing it leaves the new route alone. The old consumer has read some of
// the first half of the events and left the rest unread (they must move);
// the second half is being sent while the hand-over happens (a delivery
// under way must be forwarded); in odd rounds the old consumer goes on
// reading meanwhile, racing the hand-over. A lost, doubled or reordered
// event fails the round.
func TestSupersedeLosesAndDoublesNothing(t *testing.T) {
	const events, half = 300, 150
	for round := 0; round < 20; round++ {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			r, p := newPeer(t, Config{})
			ctx := testutil.Context(t, hangGuard)
			old := open(t, r, "s")
			first := 5 + round*7 // events the old consumer takes before the hand-over
			racing := round%2 == 1

			var oldGot []string
			receive := func() error {
				m, err := old.Receive(ctx)
				if err == nil {
					ev, _ := m.Event()
					oldGot = append(oldGot, string(ev.Data))
				}
				return err
			}
			send := func(from, to int) {
				for i := from; i <= to; i++ {
					p.event("s", "n", fmt.Sprint(i))
				}
			}
			send(1, half)
			p.roundTrip(r) // all routed to the old channel
			for range first {
				if err := receive(); err != nil {
					t.Fatal(err)
				}
			}
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				send(half+1, events)
			}()
			oldErr := make(chan error, 1)
			if racing {
				go func() {
					for {
						if err := receive(); err != nil {
							oldErr <- err
							return
						}
					}
				}()
			}
			ch, err := r.Supersede("s")
			if err != nil {
				t.Fatal(err)
			}
			if !racing {
				go func() {
					err := receive()
					for err == nil {
						err = receive()
					}
					oldErr <- err
				}()
			}
			if err := <-oldErr; !errors.Is(err, session.ErrSuperseded) {
				t.Fatalf("the old channel ended with %v, want ErrSuperseded", err)
			}
			if err := old.Close(ctx); err != nil { // must not unroute the new channel
				t.Fatal(err)
			}
			var newGot []string
			for len(oldGot)+len(newGot) < events {
				m, err := ch.Receive(ctx)
				if err != nil {
					t.Fatalf("after %d+%d events: %v", len(oldGot), len(newGot), err)
				}
				ev, _ := m.Event()
				newGot = append(newGot, string(ev.Data))
			}
			<-sent
			p.roundTrip(r)
			if n, _ := ch.Buffered(); n != 0 {
				t.Errorf("%d events more than were sent", n)
			}
			all := append(append([]string{}, oldGot...), newGot...)
			for i, got := range all {
				if got != fmt.Sprint(i+1) {
					t.Fatalf("event %d is %s (the old consumer took %d, the new %d): lost, doubled or out of order", i+1, got, len(oldGot), len(newGot))
				}
			}
			if st := r.Stats(); st.DroppedUnknown != 0 || st.DroppedRefused != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// A delivery under way when the session is handed over — the reader has
// looked up the old route but not yet delivered — reaches the new channel,
// after what moved and before what follows.
func TestSupersedeForwardsADeliveryUnderWay(t *testing.T) {
	r, p := newPeer(t, Config{})
	ctx := testutil.Context(t, hangGuard)
	atDelivery, proceed := make(chan struct{}), make(chan struct{})
	var n int
	setBeforeDeliver(t, r, func(string) {
		if n++; n == 3 { // the third event: looked up, not yet delivered
			close(atDelivery)
			<-proceed
		}
	})
	old := open(t, r, "s")
	go func() {
		for i := 1; i <= 5; i++ {
			p.event("s", "n", fmt.Sprint(i))
		}
	}()
	<-atDelivery
	if ev := receiveEvent(t, old); string(ev.Data) != "1" {
		t.Fatalf("old got %s", ev.Data)
	}
	ch, err := r.Supersede("s")
	if err != nil {
		t.Fatal(err)
	}
	close(proceed)
	if _, err := old.Receive(ctx); !errors.Is(err, session.ErrSuperseded) {
		t.Fatalf("old: %v", err)
	}
	for i := 2; i <= 5; i++ {
		if ev := receiveEvent(t, ch); string(ev.Data) != fmt.Sprint(i) {
			t.Fatalf("new got %s, want %d", ev.Data, i)
		}
	}
}

// Supersede of a session that has no route routes it, as Open does.
func TestSupersedeOfAnUnroutedSessionRoutesIt(t *testing.T) {
	r, p := newPeer(t, Config{})
	ch, err := r.Supersede("fresh")
	if err != nil {
		t.Fatal(err)
	}
	p.event("fresh", "x", "")
	if ev := receiveEvent(t, ch); ev.Type != "x" {
		t.Fatalf("got %+v", ev)
	}
}
