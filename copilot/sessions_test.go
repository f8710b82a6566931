package copilot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// The simulator serves the session-management methods as CLI 1.0.102
// does; conformance_manage_test.go holds the real CLI to the same.

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

// A switch changes the next turn's model; a failed one leaves the model as
// it was (TestRealCLISetModel switches for real).
func TestSetModelFailureKeepsTheModel(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{
		model("m", sim.Echo),
		model("n", func(t sim.Turn) sim.Response { return sim.Text("n: " + t.Prompt) }),
	}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	// A switch the CLI takes changes Model() and the next turn's model.
	if err := s.SetModel(ctx, "n"); err != nil || s.Model() != "n" {
		t.Fatalf("SetModel: %v; Model() = %q", err, s.Model())
	}
	if got, err := s.Ask(ctx, "hi"); err != nil || !strings.HasSuffix(got, "hi") || !strings.HasPrefix(got, "n: ") {
		t.Fatalf("the turn after the switch: %q, %v", got, err)
	}
	// One the CLI refuses (the session is gone) keeps the model it had.
	if err := s.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	var ce *router.CallError
	if err := s.SetModel(ctx, "m"); !errors.As(err, &ce) || s.Model() != "n" {
		t.Fatalf("SetModel on a deleted session: %v; Model() = %q", err, s.Model())
	}
}

// After Close, a call in flight fails with an error that errors.Is finds
// ErrClosed in, as well as ErrStopped and the lower packages' ErrClosed
// (router's, session's), which say the closing only once; a call made after
// Close gets ErrClosed.
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
	if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrStopped) || !errors.Is(err, router.ErrClosed) || !errors.Is(err, session.ErrClosed) {
		t.Fatalf("the turn in flight: %v; want ErrClosed, ErrStopped, router.ErrClosed and session.ErrClosed", err)
	}
	if strings.Count(err.Error(), "closed") != 1 {
		t.Errorf("the turn in flight: %q; want the client's closing said once", err)
	}
	if _, err := c.ListSessions(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
}

// An empty session id is refused before anything is sent, with an error
// that says what to do; the CLI would only answer that it does not know
// the session.
func TestEmptySessionIDIsRefused(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	calls := map[string]func() error{
		"ResumeSession":          func() error { _, err := c.ResumeSession(ctx, "", SessionConfig{Model: "m"}); return err },
		"SessionMetadata":        func() error { _, err := c.SessionMetadata(ctx, ""); return err },
		"DeleteSession":          func() error { return c.DeleteSession(ctx, "") },
		"SetForegroundSessionID": func() error { return c.SetForegroundSessionID(ctx, "") },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrNoSessionID) || !strings.Contains(err.Error(), "ListSessions") {
			t.Errorf("%s(\"\") = %v, want ErrNoSessionID naming ListSessions", name, err)
		}
	}
	for _, m := range []string{protocol.MethodSessionResume, protocol.MethodSessionGetMetadata, protocol.MethodSessionDelete, protocol.MethodSessionSetForeground} {
		if n := srv.Calls(m); n != 0 {
			t.Errorf("%s sent %d times", m, n)
		}
	}
	if n := c.Router().Stats().Sessions; n != 0 {
		t.Errorf("%d routes left", n)
	}
}
