package quorum

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEmitterSerialInOrder(t *testing.T) {
	var inside atomic.Int32
	var overlap atomic.Bool
	var got []string
	e := newEmitter(func(ev Progress) {
		if inside.Add(1) > 1 {
			overlap.Store(true)
		}
		got = append(got, ev.Model) // unsynchronised on purpose: the race detector checks the contract
		inside.Add(-1)
	}, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				e.emit(Progress{Kind: ModelFinished, Model: string(rune('a'+g)) + string(rune('0'+i%10))})
			}
		})
	}
	wg.Wait()
	e.close(context.Background(), time.Second)
	if overlap.Load() {
		t.Fatal("progress was called concurrently")
	}
	if len(got) != 800 {
		t.Fatalf("delivered %d events, want 800", len(got))
	}
	// Per emitting goroutine, order is kept.
	last := map[byte]int{}
	for i, m := range got {
		if j, ok := last[m[0]]; ok && got[j][1] != '9' && m[1] != got[j][1]+1 {
			t.Fatalf("events of %c out of order at %d: %s after %s", m[0], i, m, got[j])
		}
		last[m[0]] = i
	}
}

func TestEmitterSlowConsumerDoesNotBlockTheRun(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []Progress
	e := newEmitter(func(ev Progress) {
		<-release // a consumer stuck until the run has emitted everything
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	}, nil)
	e.emit(Progress{Kind: ModelStarted, Model: "m"})
	var want strings.Builder
	for i := range 10000 {
		d := string(rune('a' + i%26))
		want.WriteString(d)
		e.emit(Progress{Kind: Delta, Phase: PhaseAnswer, Model: "m", Text: d})
	}
	e.emit(Progress{Kind: ModelFinished, Model: "m"})
	// Every emit returned while the consumer was stuck: no deadlock.
	close(release)
	e.close(context.Background(), time.Second)
	var text strings.Builder
	deltas := 0
	for _, ev := range got {
		if ev.Kind == Delta {
			deltas++
			text.WriteString(ev.Text)
		}
	}
	if text.String() != want.String() {
		t.Fatal("merged deltas lost or reordered text")
	}
	if deltas > 2 {
		t.Errorf("%d delta events queued behind a stuck consumer; want them merged", deltas)
	}
	if got[0].Kind != ModelStarted || got[len(got)-1].Kind != ModelFinished {
		t.Errorf("first %s, last %s", got[0].Kind, got[len(got)-1].Kind)
	}
}

func TestEmitterNothingAfterClose(t *testing.T) {
	var n atomic.Int32
	e := newEmitter(func(Progress) { n.Add(1) }, nil)
	e.emit(Progress{Kind: PhaseStarted})
	e.close(context.Background(), time.Second)
	e.emit(Progress{Kind: PhaseStarted})
	if n.Load() != 1 {
		t.Errorf("%d events delivered, want 1 (none after close)", n.Load())
	}
	var nilEmitter *emitter // no listeners: emit and close are no-ops
	nilEmitter.emit(Progress{})
	nilEmitter.close(context.Background(), 0)
	if newEmitter(nil, nil) != nil {
		t.Error("an emitter without listeners was started")
	}
}

func TestEmitterGivesUpOnAStuckConsumerAfterCancel(t *testing.T) {
	stuck, release := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	e := newEmitter(func(Progress) {
		if n.Add(1) == 1 {
			close(stuck)
			<-release
		}
	}, nil)
	for range 5 {
		e.emit(Progress{Kind: PhaseStarted})
	}
	<-stuck
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.close(ctx, 10*time.Millisecond) // returns although the consumer is stuck
	close(release)
	<-e.done // and the delivery goroutine ends after the stuck call
	if got := n.Load(); got != 1 {
		t.Errorf("%d events delivered after giving up, want only the stuck one", got)
	}
}
