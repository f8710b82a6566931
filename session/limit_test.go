package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Contract 5: a turn's text is bounded. At exactly Config.MaxTurnTextBytes
// the turn is read whole; one byte past it the read stops with
// ErrTurnTooLarge, holding no more than the bound plus the last piece.
// A complete message that supersedes its deltas is not counted twice.
func TestTurnTextLimit(t *testing.T) {
	const limit = 10
	read := func(msgs ...Message) (string, error) {
		ch, sink := newChannel(t, Config{MaxTurnTextBytes: limit})
		deliver(t, sink, msgs...)
		return ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	}
	text, err := read(deltaMsg("12345"), deltaMsg("67890"), messageMsg("1234567890"), idleMsg())
	if err != nil || text != "1234567890" {
		t.Fatalf("at the limit: %q, %v", text, err)
	}
	text, err = read(deltaMsg("12345"), deltaMsg("678901"), deltaMsg(strings.Repeat("x", 1000)), idleMsg())
	if !errors.Is(err, ErrTurnTooLarge) || text != "12345678901" {
		t.Fatalf("one past the limit: %q, %v; want the text so far and ErrTurnTooLarge", text, err)
	}
	_, err = read(messageMsg("1234567890"), messageMsg("x"), idleMsg())
	if !errors.Is(err, ErrTurnTooLarge) {
		t.Fatalf("messages past the limit: %v", err)
	}
}

// Contract 5: the default bound is DefaultMaxTurnTextBytes, and a negative
// one is refused naming the field.
func TestTurnTextLimitConfig(t *testing.T) {
	const want = "session: invalid configuration: Config.MaxTurnTextBytes is -1; it must be positive (0 means the default, 16 MiB)"
	if err := (Config{MaxTurnTextBytes: -1}).Validate(); !errors.Is(err, ErrInvalidConfig) || err == nil || err.Error() != want {
		t.Fatalf("Validate = %v, want %q", err, want)
	}
	ch, _ := newChannel(t, Config{})
	if ch.maxTurnText != DefaultMaxTurnTextBytes || DefaultMaxTurnTextBytes != 16<<20 {
		t.Fatalf("default limit = %d", ch.maxTurnText)
	}
}

// Contract 6: a consumer's unread messages may reach exactly four times
// Config.MaxBufferedBytes, whatever it does; one message more fails the
// channel with ErrFellBehind.
func TestBufferBackstopAtTheEdge(t *testing.T) {
	m := padded(1000)
	bound := m.Size()
	ch, sink := newChannel(t, Config{MaxBufferedBytes: bound, MaxStall: time.Hour})
	withClock(ch) // time stands still: only bytes can fail it
	for i := range 4 {
		if d, _ := sink.Deliver(m); d != Delivered {
			t.Fatalf("message %d, %d bytes of %d: %v", i, (i+1)*bound, 4*bound, d)
		}
	}
	if _, bytes := ch.Buffered(); bytes != 4*bound {
		t.Fatalf("Buffered = %d, want exactly %d", bytes, 4*bound)
	}
	if d, _ := sink.Deliver(m); d != Overflowed || !errors.Is(ch.Err(), ErrFellBehind) {
		t.Fatalf("one past four times the bound: %v, %v", d, ch.Err())
	}
}
