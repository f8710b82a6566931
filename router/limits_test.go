package router

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Contract 10: at exactly Config.MaxSessions open sessions the last one
// opens; one past it Open, Create and CreateAssigned fail with
// ErrTooManySessions without calling the server; closing one makes room.
func TestMaxSessionsAtTheEdge(t *testing.T) {
	r, p := newPeer(t, Config{MaxSessions: 2})
	a := open(t, r, "a")
	open(t, r, "b") // exactly at the limit
	if _, err := r.Open("c"); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("Open past the limit: %v", err)
	}
	ctx := testutil.Context(t, hangGuard)
	if _, err := r.Create(ctx, "c", map[string]string{"sessionId": "c"}, nil); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("Create past the limit: %v", err)
	}
	if _, err := r.CreateAssigned(ctx, nil, nil); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("CreateAssigned past the limit: %v", err)
	}
	a.Close(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := r.CreateAssigned(ctx, nil, nil)
		done <- err
	}()
	// Nothing was sent for the refused creations: the first call the peer
	// sees is this one.
	p.respond(p.expect("session.create"), `{"sessionId":"c"}`)
	if err := <-done; err != nil {
		t.Fatalf("after a close made room: %v", err)
	}
	if n := r.Stats().Sessions; n != 2 {
		t.Fatalf("Sessions = %d, want 2", n)
	}
}

// Contract 10: a frame of exactly Config.MaxFrameBytes is routed; one byte
// more stops the router with an error wrapping ErrFrameTooLarge.
func TestMaxFrameBytesAtTheEdge(t *testing.T) {
	const limit = 4096
	frameOf := func(size int) string {
		head := `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"pad","id":"e%d","data":{"pad":"`
		tail := `"}}}}`
		h := fmt.Sprintf(head, size)
		return h + strings.Repeat("p", size-len(h)-len(tail)) + tail
	}
	r, p := newPeer(t, Config{MaxFrameBytes: limit})
	ch := open(t, r, "s")
	p.send(frameOf(limit))
	if ev := receiveEvent(t, ch); ev.Type != "pad" {
		t.Fatalf("got %q", ev.Type)
	}
	p.send(frameOf(limit + 1))
	if _, err := ch.Receive(testutil.Context(t, hangGuard)); !errors.Is(err, ErrStopped) || !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("after a frame one byte too large: %v", err)
	}
}

// Every limit of Config refuses a negative value naming it.
// Contract 10 (see the package doc).
func TestNewLimitsAreValidated(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{MaxSessions: -1}, "router: invalid configuration: Config.MaxSessions is -1; it must be positive (0 means the default, 65536)"},
		{Config{MaxTurnTextBytes: -1}, "router: invalid configuration: Config.MaxTurnTextBytes is -1; it must be positive (0 means the default, 16 MiB)"},
	} {
		if err := c.cfg.Validate(); !errors.Is(err, ErrInvalidConfig) || err.Error() != c.want {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
	if c := DefaultConfig(); c.MaxSessions != DefaultMaxSessions || DefaultMaxSessions != 65536 || c.MaxTurnTextBytes != 16<<20 {
		t.Errorf("defaults: MaxSessions %d, MaxTurnTextBytes %d", c.MaxSessions, c.MaxTurnTextBytes)
	}
}
