package quorum

import (
	"context"
	"sync"
	"time"
)

// emitter delivers a run's events to Config.Progress and Config.Transcript
// on one goroutine of its own, so that:
//   - the consumer is never called concurrently and sees events in the
//     order they happened;
//   - the run never waits for the consumer: emit appends to a queue and
//     returns, so a slow UI slows nothing but its own display;
//   - the queue stays small under a slow consumer, because a delta merges
//     into an undelivered delta of the same turn instead of queueing behind
//     it (deltas are the bulk of the events).
//
// close waits for the queue to drain, so no event is delivered after the
// run returns; only when the run's context has ended and the consumer is
// still busy a grace period later does it give up and drop the rest.
type emitter struct {
	progress func(Progress)
	tr       *Transcript

	mu     sync.Mutex
	queue  []Progress
	deltas map[deltaKey]int // index in queue of the undelivered delta per turn
	closed bool
	// dropped is set when close gave up on a stuck consumer: deliver then
	// returns after the call in progress instead of delivering more.
	dropped bool
	wake    chan struct{} // one slot: "the queue changed"
	done    chan struct{} // closed when the delivery goroutine ends
}

type deltaKey struct {
	phase         Phase
	model, target string
}

// newEmitter returns an emitter, or nil when nobody listens (emit on a nil
// emitter does nothing).
func newEmitter(progress func(Progress), tr *Transcript) *emitter {
	if progress == nil && tr == nil {
		return nil
	}
	e := &emitter{
		progress: progress,
		tr:       tr,
		deltas:   make(map[deltaKey]int),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	go e.deliver()
	return e
}

func (e *emitter) emit(ev Progress) {
	if e == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	if ev.Kind == Delta {
		k := deltaKey{ev.Phase, ev.Model, ev.Target}
		if i, ok := e.deltas[k]; ok {
			e.queue[i].Text += ev.Text
			e.mu.Unlock()
			return
		}
		e.deltas[k] = len(e.queue)
	}
	e.queue = append(e.queue, ev)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// close stops accepting events and waits until every queued one has been
// delivered. If ctx ends first, it waits grace longer and then drops what
// is left, so a consumer stuck in Progress cannot keep a cancelled run from
// returning; the delivery goroutine ends when that call returns.
func (e *emitter) close(ctx context.Context, grace time.Duration) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	select {
	case <-e.done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-e.done:
	case <-t.C:
		e.mu.Lock()
		e.dropped = true
		e.queue = nil
		e.mu.Unlock()
	}
}

func (e *emitter) deliver() {
	defer close(e.done)
	for {
		e.mu.Lock()
		batch := e.queue
		e.queue = nil
		clear(e.deltas)
		closed := e.closed
		e.mu.Unlock()
		for _, ev := range batch {
			e.mu.Lock()
			dropped := e.dropped
			e.mu.Unlock()
			if dropped {
				return
			}
			if e.tr != nil {
				e.tr.Record(ev)
			}
			if e.progress != nil {
				e.progress(ev)
			}
		}
		if len(batch) == 0 {
			if closed {
				return
			}
			<-e.wake
		}
	}
}
