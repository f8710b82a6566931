package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// The simulator does not serve session.ui.handlePendingElicitation: it
// counts the call and refuses it, which the session logs. What the answer
// says is held to the real CLI by TestRealCLIElicitation.

// awaitCalls waits until the simulator has received method n times.
func awaitCalls(t *testing.T, srv *sim.Server, method string, n int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for srv.Calls(method) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s received %d times, want %d", method, srv.Calls(method), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func elicitationData(id string) map[string]any {
	return map[string]any{
		"requestId": id, "message": "Which database?",
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"db": map[string]any{"type": "string"}}},
	}
}

// A form the CLI asks for reaches OnElicitation, typed, and its answer goes
// back; OnEvent still sees every event.
func TestElicitationIsAnswered(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	asked := make(chan *protocol.ElicitationRequestedData, 1)
	events := make(eventLog, 256)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", OnEvent: events.on,
		OnElicitation: func(_ context.Context, d *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			asked <- d
			return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionAccept,
				Content: protocol.UIElicitationResponseContent{"db": json.RawMessage(`"postgres"`)}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	if err := onlyConn(t, srv).EmitEvent(s.ID(), protocol.EventElicitationRequested, elicitationData("form-1"), true); err != nil {
		t.Fatal(err)
	}
	d := testutil.Receive(t, "the elicitation", hangGuard, asked)
	if d.RequestID != "form-1" || d.Message != "Which database?" || d.RequestedSchema == nil || len(d.RequestedSchema.Properties) != 1 {
		t.Fatalf("handler got %+v", d)
	}
	awaitCalls(t, srv, protocol.MethodSessionUIHandlePendingElicitation, 1)
	events.await(t, protocol.EventElicitationRequested)
}

// The handler's context ends when the CLI no longer waits for the form
// (elicitation.completed: answered elsewhere, or the turn aborted), and
// then nothing is answered; it ends too with the session.
func TestElicitationEndsWhenNoLongerWaitedFor(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	ended := make(chan error, 2)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m",
		OnElicitation: func(ctx context.Context, _ *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			<-ctx.Done() // a person who never answers
			ended <- ctx.Err()
			return nil, ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	conn := onlyConn(t, srv)
	for _, id := range []string{"answered-elsewhere", "left-with-the-session"} {
		if err := conn.EmitEvent(s.ID(), protocol.EventElicitationRequested, elicitationData(id), true); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.EmitEvent(s.ID(), protocol.EventElicitationCompleted, map[string]any{"requestId": "answered-elsewhere", "action": "accept"}, true); err != nil {
		t.Fatal(err)
	}
	if err := testutil.Receive(t, "the end of the first form", hangGuard, ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ended with %v", err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if err := testutil.Receive(t, "the end of the second form", hangGuard, ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ended with %v", err)
	}
	if n := srv.Calls(protocol.MethodSessionUIHandlePendingElicitation); n != 0 {
		t.Errorf("%d answers to forms no one waited for", n)
	}
}

// Past maxElicitations pending forms, a new one is cancelled at once
// rather than given another goroutine.
func TestElicitationsAreBounded(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	started := make(chan struct{}, maxElicitations+1)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m",
		OnElicitation: func(ctx context.Context, _ *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy(ctx)
	conn := onlyConn(t, srv)
	for i := range maxElicitations {
		if err := conn.EmitEvent(s.ID(), protocol.EventElicitationRequested, elicitationData(fmt.Sprint("form-", i)), true); err != nil {
			t.Fatal(err)
		}
		testutil.Receive(t, "a handler's start", hangGuard, started)
	}
	if err := conn.EmitEvent(s.ID(), protocol.EventElicitationRequested, elicitationData("one-too-many"), true); err != nil {
		t.Fatal(err)
	}
	awaitCalls(t, srv, protocol.MethodSessionUIHandlePendingElicitation, 1)
	if len(started) != 0 {
		t.Error("a handler ran past the bound")
	}
}
