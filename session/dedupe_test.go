package session

import (
	"fmt"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

func TestDedupeDropsRepeatsWithinItsWindow(t *testing.T) {
	d := newDedupe(3)
	for _, id := range []string{"a", "b", "c"} {
		if !d.firstTime(id) {
			t.Fatalf("%s: new id reported as seen", id)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		if d.firstTime(id) {
			t.Fatalf("%s: repeat reported as new", id)
		}
	}
	// A fourth id pushes the oldest ("a") out of the window.
	if !d.firstTime("d") {
		t.Fatal("d: new id reported as seen")
	}
	if !d.firstTime("a") {
		t.Error("a: forgotten id should count as new once out of the window")
	}
	if d.firstTime("d") {
		t.Error("d: repeat inside the window reported as new")
	}
}

func TestDedupeWithoutIDsOrWindowDeliversEverything(t *testing.T) {
	d := newDedupe(8)
	if !d.firstTime("") || !d.firstTime("") {
		t.Error("events without an id must never be dropped")
	}
	off := newDedupe(0)
	if !off.firstTime("x") || !off.firstTime("x") {
		t.Error("a zero window must switch deduplication off")
	}
}

func TestDedupeStaysBounded(t *testing.T) {
	d := newDedupe(100)
	for i := range 10_000 {
		d.firstTime(fmt.Sprint("id-", i))
	}
	if len(d.ring) != 100 || len(d.seen) != 100 {
		t.Errorf("ring %d, set %d; want both at the window of 100", len(d.ring), len(d.seen))
	}
}

// An event the peer sends twice (same id) is received once, and counted;
// distinct events with the same content are all received.
func TestReceiveDropsRepeatedEvents(t *testing.T) {
	ch, sink := newChannel(t, Config{})
	first := deltaMsg("Hel")
	deliver(t, sink, first, deltaMsg("lo"), first, idleMsg())
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	if err != nil || text != "Hello" {
		t.Fatalf("ReadTurn = %q, %v; want %q", text, err, "Hello")
	}
	if n := ch.Duplicates(); n != 1 {
		t.Errorf("Duplicates = %d; want 1", n)
	}
}

func TestNegativeDedupeWindowKeepsRepeats(t *testing.T) {
	ch, sink := newChannel(t, Config{DedupeWindow: -1})
	first := deltaMsg("ab")
	deliver(t, sink, first, first, idleMsg())
	text, err := ch.ReadTurn(testutil.Context(t, hangGuard), nil)
	if err != nil || text != "abab" || ch.Duplicates() != 0 {
		t.Fatalf("ReadTurn = %q, %v (duplicates %d); want both copies", text, err, ch.Duplicates())
	}
}
