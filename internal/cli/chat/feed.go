package chat

import (
	"context"
	"errors"

	"github.com/quorum-go/quorum/quorum"
)

// Feed carries a chat's events from quorum (Config.Progress) to the UI,
// and an agent round's questions (the plan at the gate, a shell command
// to allow) from the round to the person and their answers back. A
// question may reach the UI before events the round emitted earlier
// (they pass through quorum's queue; a question does not).
// Progress hands each event over and returns once the UI has taken it, or
// at once when the UI has stopped (Stop), so that a run never waits on a
// UI that is gone. quorum merges a turn's deltas while they wait, so a busy
// UI slows only itself. One reader takes both.
type Feed struct {
	ch        chan quorum.Progress
	questions chan *question
	stop      chan struct{}
}

// errUIGone answers a question asked once the UI has stopped.
var errUIGone = errors.New("the chat's screen is gone: nobody to ask")

// NewFeed returns a Feed; give its Progress to the chat's Config.
func NewFeed() *Feed {
	return &Feed{ch: make(chan quorum.Progress), questions: make(chan *question), stop: make(chan struct{})}
}

// Progress is a quorum Config.Progress.
func (f *Feed) Progress(ev quorum.Progress) {
	select {
	case f.ch <- ev:
	case <-f.stop:
	}
}

// Stop tells Progress that nobody reads any more. Call it once, after the
// UI ended.
func (f *Feed) Stop() { close(f.stop) }

// ask puts q to the person and waits for the answer: until ctx ends (the
// asker's turn, or the round, stopped) or the UI stops. A question whose
// ctx has already ended is not asked; q.over is closed when ask returns,
// so that a question still shown then is withdrawn.
func (f *Feed) ask(ctx context.Context, q *question) (answer, error) {
	q.reply, q.over = make(chan answer, 1), make(chan struct{})
	defer close(q.over)
	if err := context.Cause(ctx); err != nil {
		return answer{}, err // select below might pick the send
	}
	select {
	case f.questions <- q:
	case <-f.stop:
		return answer{}, errUIGone
	case <-ctx.Done():
		return answer{}, context.Cause(ctx)
	}
	select {
	case a := <-q.reply:
		return a, nil
	case <-f.stop:
		return answer{}, errUIGone
	case <-ctx.Done():
		return answer{}, context.Cause(ctx)
	}
}

// next waits for the next event or question, or for ctx or Stop.
func (f *Feed) next(ctx context.Context) (ev quorum.Progress, q *question, ok bool) {
	select {
	case ev := <-f.ch:
		return ev, nil, true
	case q := <-f.questions:
		return quorum.Progress{}, q, true
	case <-f.stop:
	case <-ctx.Done():
	}
	return quorum.Progress{}, nil, false
}
