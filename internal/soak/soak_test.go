package soak

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The short soak CI runs: every fault once, small waves. Each wave checks
// itself (replies exact, every waiter released with the fault's error,
// nothing left on either side); the run checks the process came back to
// its baseline.
func TestShortSoak(t *testing.T) {
	var report strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var waves []Wave
	sum, err := Run(ctx, Config{Sessions: 8, Chunks: 20, Report: &report, OnWave: func(w Wave) { waves = append(waves, w) }})
	t.Log("\n" + report.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(waves) < len(faults) || sum.Waves != len(waves) || sum.First != waves[0] || sum.Last != waves[len(waves)-1] {
		t.Fatalf("%d waves seen, summary %+v; want one of each of %d faults, summed up", len(waves), sum, len(faults))
	}
	for _, w := range waves {
		switch w.Fault {
		case "crash", "stop":
			if w.Released == 0 {
				t.Errorf("wave %d (%s) released no turn: the fault never landed mid-turn", w.N, w.Fault)
			}
		case "cancel":
			if w.Released != w.Sessions/2 || w.Turns != w.Sessions {
				t.Errorf("cancel wave: %d cancelled, %d completed, want %d and %d", w.Released, w.Turns, w.Sessions/2, w.Sessions)
			}
		default:
			if w.Turns != w.Sessions {
				t.Errorf("wave %d (%s): %d of %d turns completed", w.N, w.Fault, w.Turns, w.Sessions)
			}
		}
	}
}

// The baseline check fails when something is left behind.
func TestCheckBaselineCatchesLeaks(t *testing.T) {
	base := Wave{Goroutines: 10, HeapBytes: 1 << 20}
	if err := checkBaseline(base, Wave{Goroutines: 40, HeapBytes: 1 << 20}); err == nil {
		t.Error("30 extra goroutines passed")
	}
	if err := checkBaseline(base, Wave{Goroutines: 10, HeapBytes: 64 << 20}); err == nil {
		t.Error("64 MiB of heap passed")
	}
	if err := checkBaseline(base, Wave{Goroutines: 12, HeapBytes: 3 << 20}); err != nil {
		t.Errorf("noise failed: %v", err)
	}
}
