package copilot

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// These tests send, one at a time, what CLI 1.0.102 sends after a rate
// limit (sim.RateLimited plays the whole sequence; TestRealCLIAutoModeSwitch
// sees it for real): the auto_mode_switch.requested event and, for a
// session created with requestAutoModeSwitch, the autoModeSwitch.request
// before it.

// Without a handler, the question is declined: the caller chose the model.
func TestAutoModeSwitchDeclinedWithoutHandler(t *testing.T) {
	c, srv, w := recordedClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := onlyConn(t, srv).EmitEvent(s.ID(), protocol.EventAutoModeSwitchRequested,
		protocol.AutoModeSwitchRequestedData{RequestID: "switch-1", ErrorCode: "rate_limited"}, true); err != nil {
		t.Fatal(err)
	}
	// The call is what counts: nothing is pending on the simulator's side.
	for srv.Calls(protocol.MethodSessionUIHandlePendingAutoModeSwitch) == 0 {
		if ctx.Err() != nil {
			t.Fatal("the question was not answered")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var p protocol.SessionUIHandlePendingAutoModeSwitchParams
	if err := json.Unmarshal(w.params(t, protocol.MethodSessionUIHandlePendingAutoModeSwitch)[0], &p); err != nil {
		t.Fatal(err)
	}
	if p.RequestID != "switch-1" || p.Response != protocol.UIAutoModeSwitchResponseNo || p.SessionID != s.ID() {
		t.Errorf("answered %+v", p)
	}
}

// With a handler, the session asks the CLI for the request, the handler
// answers it, and the event that follows is left to that answer: the
// handler is asked once.
func TestAutoModeSwitchHandlerDecides(t *testing.T) {
	c, srv, w := recordedClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	var asked atomic.Int32
	var got protocol.AutoModeSwitchRequestParams
	cfg := SessionConfig{Model: "m"}
	cfg.Handlers.AutoModeSwitchRequest = func(_ context.Context, p *protocol.AutoModeSwitchRequestParams) (*protocol.AutoModeSwitchRequestResponse, error) {
		asked.Add(1)
		got = *p
		return &protocol.AutoModeSwitchRequestResponse{Response: protocol.UIAutoModeSwitchResponseYes}, nil
	}
	s, err := c.NewSession(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var create struct {
		RequestAutoModeSwitch bool `json:"requestAutoModeSwitch"`
	}
	if err := json.Unmarshal(w.params(t, protocol.MethodSessionCreate)[0], &create); err != nil || !create.RequestAutoModeSwitch {
		t.Fatalf("created without requestAutoModeSwitch: %v", err)
	}
	conn := onlyConn(t, srv)
	retry := 30.0
	a := conn.CallSession(ctx, s.ID(), protocol.MethodAutoModeSwitchRequest,
		protocol.AutoModeSwitchRequestParams{ErrorCode: "rate_limited", RetryAfterSeconds: &retry})
	if a.Err != nil || a.Error != nil || string(a.Result) != `{"response":"yes"}` {
		t.Fatalf("the request was answered %s (%v, %v)", a.Result, a.Error, a.Err)
	}
	if got.SessionID != s.ID() || got.ErrorCode != "rate_limited" || got.RetryAfterSeconds == nil || *got.RetryAfterSeconds != 30 {
		t.Errorf("the handler got %+v", got)
	}
	if err := conn.EmitEvent(s.ID(), protocol.EventAutoModeSwitchRequested,
		protocol.AutoModeSwitchRequestedData{RequestID: "switch-1", ErrorCode: "rate_limited"}, true); err != nil {
		t.Fatal(err)
	}
	// A session reads its messages in order: by the end of the next turn,
	// the question has been read, between turns or by the turn.
	if _, err := s.Ask(ctx, "after the question"); err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls(protocol.MethodSessionUIHandlePendingAutoModeSwitch); n != 0 || asked.Load() != 1 {
		t.Errorf("the event was answered %d times and the handler asked %d times; want 0 and 1", n, asked.Load())
	}
}
