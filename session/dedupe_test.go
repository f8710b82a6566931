package session

import (
	"fmt"
	"math/rand/v2"
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
	first, second := d.firstTime(""), d.firstTime("")
	if !first || !second {
		t.Error("events without an id must never be dropped")
	}
	off := newDedupe(0)
	first, second = off.firstTime("x"), off.firstTime("x")
	if !first || !second {
		t.Error("a zero window must switch deduplication off")
	}
}

func TestDedupeStaysBounded(t *testing.T) {
	d := newDedupe(100)
	for i := range 10_000 {
		d.firstTime(fmt.Sprint("id-", i))
	}
	if len(d.ring) != 100 || d.count != 100 || len(d.table) != 256 {
		t.Errorf("ring %d, set %d in %d slots; want both at the window of 100, in 256 slots", len(d.ring), d.count, len(d.table))
	}
}

// The table agrees with a plain map holding the same window, whatever the
// mix of new ids, repeats and evictions: removal by backward shift never
// loses an id that is still in the window, nor keeps one that left it.
func TestDedupeAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, limit := range []int{1, 2, 7, 64, 1000} {
		d := newDedupe(limit)
		var window []string
		in := map[string]bool{}
		for i := range 20 * limit {
			// Half new ids, half repeats of recent ones (some already gone).
			id := fmt.Sprint("n", i)
			if i > 0 && rng.IntN(2) == 0 {
				id = fmt.Sprint("n", i-1-rng.IntN(min(i, 2*limit)))
			}
			want := !in[id]
			if got := d.firstTime(id); got != want {
				t.Fatalf("limit %d, step %d, id %s: firstTime = %v, want %v", limit, i, id, got, want)
			}
			if want {
				window = append(window, id)
				in[id] = true
				if len(window) > limit {
					delete(in, window[0])
					window = window[1:]
				}
			}
		}
		if d.count != len(in) {
			t.Errorf("limit %d: %d ids in the table, %d in the window", limit, d.count, len(in))
		}
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

// BenchmarkDedupe is one event's deduplication with a full window: a new
// id, the oldest evicted. The ids are UUID-sized.
func BenchmarkDedupe(b *testing.B) {
	ids := make([]string, 1<<16)
	for i := range ids {
		ids[i] = fmt.Sprintf("0f6e2b7a-8c1d-4e3f-a5b6-%012x", i)
	}
	d := newDedupe(DefaultDedupeWindow)
	for _, id := range ids[:DefaultDedupeWindow] {
		d.firstTime(id)
	}
	b.ReportAllocs()
	i := DefaultDedupeWindow
	for b.Loop() {
		d.firstTime(ids[i%len(ids)])
		i++
	}
}
