package copilot

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/router"
)

// The simulator serves session.list and session.delete; it does not
// serve session.getMetadata, getLastId, getForeground, setForeground or
// session.model.switchTo, so SessionMetadata, LastSessionID, the
// foreground calls and a successful SetModel are tested against the real
// CLI only (conformance_manage_test.go).

func listed(t *testing.T, c *Client, id string) bool {
	t.Helper()
	l, err := c.ListSessions(testutil.Context(t, hangGuard))
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(l, func(e protocol.SessionListEntry) bool { return e.SessionID == id })
}

// Delete removes the session from the CLI, deregisters it, and may be
// called again; Client.DeleteSession removes a session by id.
func TestDeleteRemovesTheSession(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "hi"); err != nil {
		t.Fatal(err)
	}
	if !listed(t, c, s.ID()) {
		t.Fatal("a session with a message is not listed")
	}
	if err := s.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if listed(t, c, s.ID()) || len(srv.LiveSessions()) != 0 {
		t.Fatalf("deleted, yet listed; live on the simulator: %v", srv.LiveSessions())
	}
	if err := s.Delete(ctx); err != nil || srv.Calls(protocol.MethodSessionDelete) != 1 {
		t.Fatalf("a second Delete: %v, %d deletes sent", err, srv.Calls(protocol.MethodSessionDelete))
	}
	if err := s.Destroy(ctx); err != nil || srv.Calls(protocol.MethodSessionDestroy) != 0 {
		t.Fatalf("Destroy after Delete: %v, %d destroys sent", err, srv.Calls(protocol.MethodSessionDestroy))
	}
	if _, err := s.Ask(ctx, "still there?"); err == nil {
		t.Fatal("a deleted session answered")
	}

	other, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSession(ctx, other.ID()); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(srv.LiveSessions(), other.ID()) {
		t.Fatal("DeleteSession left the session")
	}
	// The simulator refuses an unknown id with an error; the CLI answers
	// success:false (ErrRefused), see TestRealCLISessionManagement.
	if err := c.DeleteSession(ctx, "no-such-session"); err == nil {
		t.Fatal("deleting an unknown session succeeded")
	}
}

// A failed switch leaves the model as it was (the simulator has no
// session.model.switchTo; TestRealCLISetModel switches for real).
func TestSetModelFailureKeepsTheModel(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var ce *router.CallError
	if err := s.SetModel(ctx, "n"); !errors.As(err, &ce) || s.Model() != "m" {
		t.Fatalf("SetModel: %v; Model() = %q", err, s.Model())
	}
}

// After Close, a call in flight fails with an error that errors.Is finds
// ErrClosed in, as well as ErrStopped and router.ErrClosed; a call made
// after Close gets ErrClosed.
func TestCloseFailsCallsInFlightWithErrClosed(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: []sim.Model{model("m", sim.Always(sim.Hang()))}})
	defer srv.Close()
	ctx := testutil.Context(t, hangGuard)
	c, err := Connect(ctx, srv.Dial(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Stream(ctx, "wait", TurnHandlers{OnEvent: func(ev Event) {
			if ev.Type == protocol.EventAssistantTurnStart {
				close(started)
			}
		}})
		done <- err
	}()
	<-started
	c.Close()
	err = <-done
	if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrStopped) || !errors.Is(err, router.ErrClosed) {
		t.Fatalf("the turn in flight: %v; want ErrClosed, ErrStopped and router.ErrClosed", err)
	}
	if _, err := c.ListSessions(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
}
