package chat

import (
	"context"

	"github.com/quorum-go/quorum/quorum"
)

// Feed carries a chat's events from quorum (Config.Progress) to the UI.
// Progress hands each event over and returns once the UI has taken it, or
// at once when the UI has stopped (Stop), so that a run never waits on a
// UI that is gone. quorum merges a turn's deltas while they wait, so a busy
// UI slows only itself.
type Feed struct {
	ch   chan quorum.Event
	stop chan struct{}
}

// NewFeed returns a Feed; give its Progress to the chat's Config.
func NewFeed() *Feed {
	return &Feed{ch: make(chan quorum.Event), stop: make(chan struct{})}
}

// Progress is a quorum Config.Progress.
func (f *Feed) Progress(ev quorum.Event) {
	select {
	case f.ch <- ev:
	case <-f.stop:
	}
}

// Stop tells Progress that nobody reads any more. Call it once, after the
// UI ended.
func (f *Feed) Stop() { close(f.stop) }

// next waits for the next event, or for ctx or Stop.
func (f *Feed) next(ctx context.Context) (quorum.Event, bool) {
	select {
	case ev := <-f.ch:
		return ev, true
	case <-f.stop:
	case <-ctx.Done():
	}
	return quorum.Event{}, false
}
