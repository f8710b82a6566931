package session

import (
	"context"
	"errors"
	"testing"
)

// A channel's Context lives while the channel works and ends with it, its
// cause the channel's error: when the router fails it, and when it is
// closed; one asked for after the end has ended already.
func TestContextEndsWithTheChannel(t *testing.T) {
	stopped := errors.New("router stopped: the peer went away")
	ch, sink := newChannel(t, Config{})
	ctx := ch.Context()
	if ctx.Err() != nil {
		t.Fatalf("a working channel's context ended: %v", context.Cause(ctx))
	}
	if ch.Context() != ctx {
		t.Error("Context made a second context for the same channel")
	}
	sink.Fail(stopped)
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, stopped) {
		t.Fatalf("cause = %v, want the channel's failure", cause)
	}

	closed, _ := newChannel(t, Config{})
	if err := closed.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	late := closed.Context()
	if late.Err() == nil || !errors.Is(context.Cause(late), ErrClosed) {
		t.Fatalf("context of a closed channel: err %v, cause %v; want ended with ErrClosed", late.Err(), context.Cause(late))
	}
}
