package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

// Contract 3a: with a client-chosen id, session.start is delivered whether
// it comes before or after the create response.
// Contract 7 (see the package doc).
func TestCreateClientIDBothOrders(t *testing.T) {
	for _, startFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("startFirst=", startFirst), func(t *testing.T) {
			r, p := newPeer(t, Config{})
			type out struct {
				ch  *session.Channel
				err error
			}
			done := make(chan out, 1)
			var res struct{ SessionID string }
			go func() {
				ch, err := r.Create(testutil.Context(t, hangGuard), "abc", map[string]string{"sessionId": "abc", "model": "m"}, &res)
				done <- out{ch, err}
			}()
			f := p.expect("session.create")
			if !strings.Contains(string(f.Params), `"sessionId":"abc"`) {
				t.Fatalf("params = %s", f.Params)
			}
			if startFirst {
				p.event("abc", "session.start", `{"sessionId":"abc"}`)
				p.respond(f, `{"sessionId":"abc"}`)
			} else {
				p.respond(f, `{"sessionId":"abc"}`)
				p.event("abc", "session.start", `{"sessionId":"abc"}`)
			}
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			if res.SessionID != "abc" {
				t.Errorf("result = %+v", res)
			}
			if ev := receiveEvent(t, o.ch); ev.Type != "session.start" {
				t.Fatalf("first event = %s, want session.start", ev.Type)
			}
			if s := r.Stats(); s.DroppedUnknown != 0 {
				t.Errorf("DroppedUnknown = %d", s.DroppedUnknown)
			}
		})
	}
}

func TestCreateClientIDFailureRemovesRoute(t *testing.T) {
	r, p := newPeer(t, Config{})
	errc := make(chan error, 1)
	go func() {
		_, err := r.Create(testutil.Context(t, hangGuard), "bad", map[string]string{"sessionId": "bad"}, nil)
		errc <- err
	}()
	f := p.expect("session.create")
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown model"}}`, *f.ID))
	if err := <-errc; err == nil {
		t.Fatal("create succeeded")
	}
	if s := r.Stats(); s.Sessions != 0 {
		t.Fatalf("Sessions = %d after a failed create", s.Sessions)
	}
	if _, err := r.Open("bad"); err != nil {
		t.Fatalf("the id should be free again: %v", err)
	}
}

// Contract 3b: with a server-assigned id, creation is serialised and nothing
// of the new session is lost, session.start included, in either order; an
// event that precedes session.start is held and handed over in order.
// Contract 7 (see the package doc).
func TestCreateAssignedBothOrders(t *testing.T) {
	for _, startFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("startFirst=", startFirst), func(t *testing.T) {
			r, p := newPeer(t, Config{})
			type out struct {
				ch  *session.Channel
				err error
			}
			done := make(chan out, 1)
			go func() {
				ch, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
				done <- out{ch, err}
			}()
			f := p.expect("session.create")
			p.event("srv-1", "session.info", `{"n":0}`) // before session.start: held
			if startFirst {
				p.event("srv-1", "session.start", `{"sessionId":"srv-1"}`)
				p.event("srv-1", "session.info", `{"n":1}`)
				p.respond(f, `{"sessionId":"srv-1"}`)
			} else {
				p.respond(f, `{"sessionId":"srv-1"}`)
				// Race-free: the response binds the route before returning.
			}
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			if !startFirst {
				p.event("srv-1", "session.start", `{"sessionId":"srv-1"}`)
				p.event("srv-1", "session.info", `{"n":1}`)
			}
			want := []string{"session.info", "session.start", "session.info"}
			for _, w := range want {
				if ev := receiveEvent(t, o.ch); ev.Type != w {
					t.Fatalf("got %s, want %s", ev.Type, w)
				}
			}
			if o.ch.ID() != "srv-1" {
				t.Errorf("ID = %q", o.ch.ID())
			}
		})
	}
}

// An event held for an id the response does not name is not handed over,
// and a held request for it is answered.
func TestCreateAssignedDropsStrangers(t *testing.T) {
	r, p := newPeer(t, Config{})
	done := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		done <- err
	}()
	f := p.expect("session.create")
	p.event("other", "session.info", "")
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tool.call","params":{"sessionId":"other"}}`)
	p.respond(f, `{"sessionId":"mine"}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := p.next()
	if a.Error == nil || string(*a.ID) != "7" {
		t.Fatalf("held request for a stranger was not answered: %+v", a)
	}
	if s := r.Stats(); s.DroppedUnknown != 2 {
		t.Errorf("DroppedUnknown = %d, want 2", s.DroppedUnknown)
	}
}

// session.start bound one id but the response named another: a request
// already delivered to the wrong route is answered, not left hanging.
// Contracts 4 and 7 (see the package doc).
func TestCreateAssignedMismatchAnswersRequests(t *testing.T) {
	r, p := newPeer(t, Config{})
	done := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		done <- err
	}()
	f := p.expect("session.create")
	p.event("x", "session.start", `{"sessionId":"x"}`)
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tool.call","params":{"sessionId":"x"}}`)
	p.respond(f, `{"sessionId":"y"}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := p.next()
	if a.Error == nil || string(*a.ID) != "7" {
		t.Fatalf("the request to the stale route was not answered: %+v", a)
	}
	if r.Stats().Sessions != 1 {
		t.Errorf("Sessions = %d, want only y", r.Stats().Sessions)
	}
}

// A caller that gives up after session.start bound its session learns the
// id, to destroy it.
// Contract 7 (see the package doc).
func TestCreateAssignedAbandoned(t *testing.T) {
	r, p := newPeer(t, Config{})
	cancel, done := startAbandonable(t, r)
	p.expect("session.create")
	ch := open(t, r, "sync")
	p.event("late", "session.start", `{"sessionId":"late"}`)
	p.event("sync", "x", "")
	receiveEvent(t, ch) // the reader has bound "late"
	cancel()
	err := <-done
	var ab *AbandonedError
	if !errors.As(err, &ab) || ab.SessionID != "late" || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.Stats().Sessions != 1 {
		t.Errorf("the abandoned route is still registered")
	}
}

// Contract 7: a server-assigned creation whose response names an id that
// is already routed fails with ErrSessionExists; the existing channel keeps
// its one owner and its messages.
func TestCreateAssignedExistingIDIsRefused(t *testing.T) {
	r, p := newPeer(t, Config{})
	mine := open(t, r, "taken")
	done := make(chan error, 1)
	go func() {
		ch, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		if ch != nil {
			err = errors.New("got a channel for a routed id")
		}
		done <- err
	}()
	p.respond(p.expect("session.create"), `{"sessionId":"taken"}`)
	if err := <-done; !errors.Is(err, ErrSessionExists) {
		t.Fatalf("err = %v, want ErrSessionExists", err)
	}
	p.event("taken", "still.mine", "")
	if ev := receiveEvent(t, mine); ev.Type != "still.mine" {
		t.Fatalf("the existing channel got %q", ev.Type)
	}
	if r.Stats().Sessions != 1 {
		t.Errorf("Sessions = %d, want 1", r.Stats().Sessions)
	}
}

// Contract 7: a creation given up before its response, whose session.start
// comes after the response (the real CLI's order), still names the session
// to destroy: Assigned delivers the id the late response names, no route is
// left, and the next creation is not mistaken for it.
func TestCreateAssignedAbandonedBeforeResponse(t *testing.T) {
	r, p := newPeer(t, Config{})
	cancel, done := startAbandonable(t, r)
	f := p.expect("session.create")
	cancel()
	err := <-done
	var ab *AbandonedError
	if !errors.As(err, &ab) || ab.SessionID != "" || ab.Assigned == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// The next creation waits until the abandoned one's response is in.
	next := make(chan error, 1)
	go func() {
		ch, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		if err == nil && ch.ID() != "second" {
			err = fmt.Errorf("second creation got %s", ch.ID())
		}
		next <- err
	}()
	p.respond(f, `{"sessionId":"late"}`)
	p.event("late", "session.start", `{"sessionId":"late"}`)
	id, ok := ab.Await(testutil.Context(t, hangGuard))
	if !ok || id != "late" {
		t.Fatalf("Await = %q, %v; want late", id, ok)
	}
	f2 := p.expect("session.create")
	p.event("second", "session.start", `{"sessionId":"second"}`)
	p.respond(f2, `{"sessionId":"second"}`)
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Sessions != 1 {
		t.Errorf("Sessions = %d, want only the second", s.Sessions)
	}
}

// An abandoned creation whose router stops before the response: Assigned
// is closed with nothing on it, so its owner does not wait forever.
func TestCreateAssignedAbandonedThenStopped(t *testing.T) {
	r, p := newPeer(t, Config{})
	cancel, done := startAbandonable(t, r)
	p.expect("session.create")
	cancel()
	var ab *AbandonedError
	if err := <-done; !errors.As(err, &ab) {
		t.Fatalf("err = %v", err)
	}
	r.Close()
	if id, ok := ab.Await(testutil.Context(t, hangGuard)); ok {
		t.Fatalf("Await = %q after the stop", id)
	}
}

// An abandoned creation whose late response (taken by the reader) and the
// router's stop race to end it: only the one that takes it off the router
// drops what it held — one count, one answer, and no concurrent use of the
// held map (-race sees it). Run many times: the order varies.
func TestLateSettleRacingStopDropsOnce(t *testing.T) {
	for range 20 {
		r, p := newPeer(t, Config{})
		cancel, done := startAbandonable(t, r)
		p.expect("session.create")
		p.event("other", "session.info", "") // held: a creation is in flight
		p.roundTrip(r)                       // the reader has held it
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the creation did not give up")
		}
		r.mu.Lock()
		h := r.creating
		r.mu.Unlock()
		if h == nil || h.late == nil {
			t.Fatal("the abandoned creation is not awaiting its response")
		}
		var wg sync.WaitGroup
		wg.Go(func() { h.settleLate(&jsonrpc2.Response{Result: rawJSON(`{"sessionId":"late"}`)}) })
		r.Close()
		wg.Wait()
		if n := r.Stats().DroppedUnknown; n != 1 {
			t.Fatalf("DroppedUnknown = %d, want 1", n)
		}
		p.close()
	}
}

// startAbandonable starts a server-assigned creation that the test gives
// up with cancel; done receives CreateAssigned's error.
func startAbandonable(t *testing.T, r *Router) (cancel context.CancelFunc, done <-chan error) {
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	errc := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(ctx, map[string]string{"model": "m"}, nil)
		errc <- err
	}()
	return cancel, errc
}

func rawJSON(s string) *json.RawMessage {
	raw := json.RawMessage(s)
	return &raw
}

// A router its user closed closes every channel of it: the error wraps
// ErrStopped and ErrClosed, and errors.Is finds session.ErrClosed in it,
// while the message says "router closed" once.

// A server-assigned creation whose response names no session id fails with
// ErrCreateReturnedNoID, routes nothing, and frees the slot for the next
// creation.
// Contract 7 (see the package doc).
func TestCreateAssignedWithoutIDFails(t *testing.T) {
	r, p := newPeer(t, Config{})
	errc := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		errc <- err
	}()
	p.respond(p.expect("session.create"), `{"workspacePath":"/w"}`)
	if err := <-errc; !errors.Is(err, ErrCreateReturnedNoID) {
		t.Fatalf("CreateAssigned answered without an id: %v, want ErrCreateReturnedNoID", err)
	}
	go func() {
		_, err := r.CreateAssigned(testutil.Context(t, hangGuard), map[string]string{"model": "m"}, nil)
		errc <- err
	}()
	p.respond(p.expect("session.create"), `{"sessionId":"next"}`)
	if err := <-errc; err != nil {
		t.Fatalf("the creation after one without an id: %v", err)
	}
}
