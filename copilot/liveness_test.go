package copilot

import (
	"errors"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

func livenessClient(t *testing.T, l Liveness, models ...sim.Model) (*Client, *sim.Server, *testutil.Freezer) {
	t.Helper()
	srv := sim.NewServer(sim.Options{Models: models})
	t.Cleanup(func() { srv.Close() })
	conn := testutil.NewFreezer(srv.Dial())
	c, err := Connect(testutil.Context(t, hangGuard), conn, Options{Liveness: &l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, srv, conn
}

// A CLI that stops answering is declared dead: a waiter with no deadline
// of its own gets an error saying so, wrapping ErrStopped.
func TestLivenessDeclaresAFrozenCLIDead(t *testing.T) {
	c, _, conn := livenessClient(t, Liveness{Interval: 10 * time.Millisecond, Timeout: 100 * time.Millisecond}, model("m", sim.Always(sim.Hang())))
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := s.Stream(ctx, "wait forever", TurnHandlers{})
		errc <- err
	}()
	conn.Freeze()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrUnresponsive) || !errors.Is(err, ErrStopped) {
			t.Fatalf("the waiter got %v, want ErrUnresponsive and ErrStopped", err)
		}
	case <-ctx.Done():
		t.Fatal("the waiter was never released")
	}
	if _, err := c.Ping(ctx, "x"); !errors.Is(err, ErrUnresponsive) && !errors.Is(err, ErrStopped) {
		t.Fatalf("a later call: %v", err)
	}
}

// A stall shorter than the timeout is not death: the client carries on.
func TestLivenessToleratesAShortStall(t *testing.T) {
	c, srv, conn := livenessClient(t, Liveness{Interval: 5 * time.Millisecond, Timeout: 5 * time.Second}, model("m", sim.Echo))
	ctx := testutil.Context(t, hangGuard)
	before := srv.Calls("ping")
	conn.Freeze()
	// Let a ping go out and stay unanswered for many intervals, then let
	// the answer in.
	for srv.Calls("ping") == before {
		if ctx.Err() != nil {
			t.Fatal("no ping was sent")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // not a timing assertion: only a stall to survive
	conn.Thaw()
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Stream(ctx, "still here", TurnHandlers{}); err != nil || r.Text != "echo: still here" {
		t.Fatalf("after the stall: %q, %v", r.Text, err)
	}
}

// A turn with no event for TurnInactivity fails with ErrTurnInactive, is
// aborted, and the session runs its next turn.
func TestTurnInactivityEndsASilentTurn(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Sequence(sim.Hang(), sim.Text("awake")))}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", TurnInactivity: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stream(ctx, "silence", TurnHandlers{}); !errors.Is(err, ErrTurnInactive) {
		t.Fatalf("a silent turn: %v", err)
	}
	if r, err := s.Stream(ctx, "again", TurnHandlers{}); err != nil || r.Text != "awake" {
		t.Fatalf("the next turn: %q, %v", r.Text, err)
	}
	if srv.Calls("session.abort") == 0 {
		t.Error("the silent turn was not aborted on the CLI")
	}
}

// Events keep a turn alive however long it runs in all.
func TestTurnInactivityCountsSilenceNotLength(t *testing.T) {
	slow := sim.Paced([]sim.Model{model("m", sim.Always(sim.Response{Text: "one two three four five six", Chunks: 6}))}, time.Millisecond, 20*time.Millisecond)
	c, _ := simClient(t, sim.Options{Models: slow})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", TurnInactivity: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Stream(ctx, "go", TurnHandlers{}); err != nil || r.Text != "one two three four five six" {
		t.Fatalf("%q, %v", r.Text, err)
	}
}

func TestLivenessAndInactivityAreValidated(t *testing.T) {
	if err := (Options{Liveness: &Liveness{}}).Validate(); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Liveness without Interval: %v", err)
	}
	if err := (Options{Liveness: &Liveness{Interval: time.Second, Timeout: -1}}).Validate(); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("negative Liveness.Timeout: %v", err)
	}
	if err := (SessionConfig{Model: "m", TurnInactivity: -time.Second}).Validate(); !errors.Is(err, ErrInvalidSessionConfig) {
		t.Errorf("negative TurnInactivity: %v", err)
	}
}

// The safe default cannot be changed by other code: each call is a fresh,
// empty, non-nil list (nil would mean every built-in tool).
func TestNoBuiltinToolsStaysEmpty(t *testing.T) {
	first := NoBuiltinTools()
	_ = append(first[:0:0], "bash")
	if got := NoBuiltinTools(); got == nil || len(got) != 0 {
		t.Fatalf("NoBuiltinTools() = %#v", got)
	}
}
