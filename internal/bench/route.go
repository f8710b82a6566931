package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// Routed is this project's side of a feed: a router on conn with a channel
// for each of the feed's sessions, and one goroutine per session reading
// its turns with session.Channel.ReadTurn, text deltas to OnDelta, as
// package copilot's Stream reads a turn.
type Routed struct {
	r     *router.Router
	chans []*session.Channel
	text  atomic.Int64
	// OnDelta, if set before Read, gets each delta's text too, from every
	// session's goroutine at once.
	OnDelta func(text string)
}

// NewRouted starts a router on conn with a channel for each of f's
// sessions. Close it when done.
func NewRouted(conn io.ReadWriteCloser, f *Feed, cfg router.Config) (*Routed, error) {
	r, err := router.New(conn, cfg)
	if err != nil {
		return nil, err
	}
	rt := &Routed{r: r}
	for _, id := range f.SessionIDs() {
		ch, err := r.Open(id)
		if err != nil {
			r.Close()
			return nil, err
		}
		rt.chans = append(rt.chans, ch)
	}
	return rt, nil
}

// Read reads turns turns of every session and returns when all are read,
// or with the first error.
func (rt *Routed) Read(ctx context.Context, turns int) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(rt.chans))
	for _, ch := range rt.chans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := &session.TurnHandlers{OnDelta: func(s string) {
				rt.text.Add(int64(len(s)))
				if rt.OnDelta != nil {
					rt.OnDelta(s)
				}
			}}
			for range turns {
				if _, err := ch.ReadTurn(ctx, h); err != nil {
					errs <- fmt.Errorf("session %s: %w", ch.ID(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// Text is how many bytes of delta text the consumers got.
func (rt *Routed) Text() int64 { return rt.text.Load() }

// Router returns the router.
func (rt *Routed) Router() *router.Router { return rt.r }

// Close closes the router.
func (rt *Routed) Close() error {
	for _, ch := range rt.chans {
		_ = ch.Close(context.Background())
	}
	return rt.r.Close()
}

// ReadFeed writes cycles of f into server, from a goroutine of its own, and
// reads them through read, which must return once it has read them all. It
// returns read's error, or the writer's.
func ReadFeed(server io.Writer, f *Feed, cycles int, read func() error) error {
	werr := make(chan error, 1)
	go func() { werr <- f.WriteCycles(server, cycles) }()
	err := read()
	if err != nil {
		return err
	}
	if err := <-werr; err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return err
	}
	return nil
}
