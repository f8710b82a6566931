package copilot

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// The real CLI stopped with SIGSTOP answers nothing and never exits. With
// Liveness, every waiter is released with ErrUnresponsive, and under
// supervision the stopped CLI is killed and a new one serves.
func TestRealCLIStoppedIsDeclaredDeadAndRestarted(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{
		Liveness: &Liveness{Interval: 100 * time.Millisecond, Timeout: time.Second},
		Restart:  &RestartPolicy{InitialInterval: 50 * time.Millisecond},
	})
	ctx := testutil.Context(t, 2*hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	pid := childPID(c)
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// A turn with no deadline of its own: only liveness can end it.
	_, err = s.Stream(ctx, "are you there?", TurnHandlers{})
	if !errors.Is(err, ErrUnresponsive) || !errors.Is(err, ErrStopped) {
		t.Fatalf("the stopped CLI's waiter got %v", err)
	}
	// Supervision kills the stopped child and starts another.
	s2, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s2.Stream(ctx, "and now?", TurnHandlers{}); err != nil || !strings.Contains(r.Text, "and now?") {
		t.Fatalf("after the restart: %q, %v", r.Text, err)
	}
	if c.Restarts() != 1 || childPID(c) == pid {
		t.Errorf("restarts %d, pid %d (was %d)", c.Restarts(), childPID(c), pid)
	}
}

// A CLI stopped for less than the limits and continued goes on serving:
// the turn in flight completes, nothing restarts.
func TestRealCLIStoppedBrieflyRecovers(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{
		Liveness: &Liveness{Interval: 50 * time.Millisecond, Timeout: 10 * time.Second},
		Restart:  &RestartPolicy{InitialInterval: 50 * time.Millisecond},
	})
	ctx := testutil.Context(t, 2*hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), TurnInactivity: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	pid := childPID(c)
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := s.Stream(ctx, "patience", TurnHandlers{})
		done <- result{r.Text, err}
	}()
	time.Sleep(300 * time.Millisecond) // a stall to survive, not a timing assertion
	if err := syscall.Kill(-pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || !strings.Contains(r.text, "patience") {
		t.Fatalf("after SIGCONT: %q, %v", r.text, r.err)
	}
	if c.Restarts() != 0 {
		t.Errorf("a brief stop restarted the CLI %d times", c.Restarts())
	}
}

// A turn whose model never answers sends no event: TurnInactivity ends it
// and aborts it on the CLI, and the session's next turn works.
func TestRealCLITurnInactivity(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{
		"m": modelapi.Sequence(modelapi.Stall(), modelapi.Text("awake")),
	}, Options{})
	ctx := testutil.Context(t, 2*hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), TurnInactivity: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stream(ctx, "hello?", TurnHandlers{}); !errors.Is(err, ErrTurnInactive) {
		t.Fatalf("a silent turn: %v", err)
	}
	if r, err := s.Stream(ctx, "again", TurnHandlers{}); err != nil || r.Text != "awake" {
		t.Fatalf("the next turn: %q, %v", r.Text, err)
	}
}

// A turn whose text passes the router's MaxTurnTextBytes fails with
// session.ErrTurnTooLarge, and the turn is aborted on the CLI: the model
// here stalls after its text, so a turn left running would hold the
// session and the next prompt would never be answered.
func TestRealCLITurnTooLargeIsAborted(t *testing.T) {
	const bound = 4 << 10
	big := strings.Repeat("0123456789abcdef", 2*bound/16) // twice the bound
	c, _ := startReal(t, map[string]modelapi.Responder{
		"m": modelapi.Sequence(modelapi.Text(big).WithChunks(16).WithStall(), modelapi.Text("small")),
	}, Options{Router: router.Config{MaxTurnTextBytes: bound}})
	ctx := testutil.Context(t, 2*hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Stream(ctx, "say a lot", TurnHandlers{})
	if !errors.Is(err, session.ErrTurnTooLarge) {
		t.Fatalf("a turn past the bound: %.80q (%d bytes), %v; want ErrTurnTooLarge", r.Text, len(r.Text), err)
	}
	if r, err := s.Stream(ctx, "again", TurnHandlers{}); err != nil || r.Text != "small" {
		t.Fatalf("the next turn: %.80q (%d bytes), %v", r.Text, len(r.Text), err)
	}
}
