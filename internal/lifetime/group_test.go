package lifetime

import (
	"runtime"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Close waits for every goroutine started before it and refuses the rest.
func TestGroupCloseWaitsAndRefuses(t *testing.T) {
	var g Group
	release := make(chan struct{})
	var done atomic.Int32
	for range 3 {
		if !g.Go(func() { <-release; done.Add(1) }) {
			t.Fatal("Go refused before Close")
		}
	}
	closed := make(chan struct{})
	go func() { g.Close(); close(closed) }()
	// Close cannot return while the three are blocked; it marks the group
	// closing first, so wait for that rather than for time to pass.
	for !g.Closing() {
		runtime.Gosched()
	}
	select {
	case <-closed:
		t.Fatal("Close returned while goroutines were running")
	default:
	}
	if g.Go(func() { t.Error("a goroutine started after Close") }) {
		t.Fatal("Go accepted after Close")
	}
	close(release)
	<-closed
	if n := done.Load(); n != 3 {
		t.Fatalf("%d goroutines finished before Close returned, want 3", n)
	}
	g.Close() // a second Close returns at once
}

// A goroutine of the group may start another; Close waits for both.
func TestGroupNestedGo(t *testing.T) {
	var g Group
	var inner atomic.Bool
	started := make(chan struct{})
	g.Go(func() {
		g.Go(func() { inner.Store(true) })
		close(started)
	})
	<-started
	g.Close()
	if !inner.Load() {
		t.Fatal("Close returned before the nested goroutine ran")
	}
}
