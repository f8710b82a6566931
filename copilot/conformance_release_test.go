package copilot

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// A client tool's handler blocked on its context while the real CLI is
// SIGKILLed is released, its context's cause the child's exit, and the
// turn blocked on it returns at once with an error wrapping ErrStopped and
// ErrCLIExited — not context.Canceled, and not only when the caller's own
// context ends (the turn's context here ends only with the test's guard).
func TestRealCLIBlockedHandlerReleasedWhenTheCLIIsKilled(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{
		"m": modelapi.ToolThenText("wait", `{}`, modelapi.Echo),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	b := newBlockedHandler()
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Permissions: ApproveAll,
		Tools: []Tool{{Name: "wait", Description: "waits for as long as it is let", Handler: func(ctx context.Context, _ ToolCall) (string, error) {
			b.block(ctx)
			return "", ctx.Err()
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := s.Ask(ctx, "call wait")
		errc <- err
	}()
	b.waitStarted(t)
	if err := syscall.Kill(childPID(c), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-errc:
	case <-ctx.Done():
		t.Fatal("the turn is still blocked on its handler after the CLI was killed")
	}
	if !errors.Is(err, ErrStopped) || !errors.Is(err, ErrCLIExited) || errors.Is(err, context.Canceled) {
		t.Errorf("the turn's error: %v, want ErrStopped wrapping ErrCLIExited", err)
	}
	if cause := b.waitCause(t); !errors.Is(cause, ErrStopped) || !errors.Is(cause, ErrCLIExited) {
		t.Errorf("the handler's context cause: %v, want ErrStopped wrapping ErrCLIExited", cause)
	}
}

// A turn whose caller gave up is aborted on the CLI before Stream returns:
// the CLI's own record of the session holds its abort event as soon as
// Stream has returned (nothing else is sent in between), the model
// request it had open, which stalls until cancelled, ends without another
// turn, and the CLI makes no further model request for the aborted turn.
func TestRealCLICancelledTurnAbortedBeforeStreamReturns(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{
		"staller": modelapi.Fixed(modelapi.Text("thinking about it").WithStall()),
	}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "staller", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	turnCtx, cancel := context.WithCancel(ctx)
	var once sync.Once
	if _, err := s.Stream(turnCtx, "take your time", TurnHandlers{OnDelta: func(string) { once.Do(cancel) }}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled turn: %v", err)
	}
	events, err := s.Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	aborted := false
	for _, ev := range events {
		aborted = aborted || ev.Type == protocol.EventAbort
	}
	if !aborted {
		t.Fatal("the CLI's record of the session has no abort event when Stream has returned: the abort was not on the wire yet")
	}
	// The stalled model request ends: the CLI cancelled it.
	for api.Active() != 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("%d model requests still open after the abort", api.Active())
		case <-time.After(20 * time.Millisecond): // the model API says nothing when a request ends: look again
		}
	}
	if n := len(api.Requests()); n != 1 {
		t.Errorf("the model API saw %d chat requests, want 1: the aborted turn made no further model request", n)
	}
}
