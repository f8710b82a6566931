package router_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/bench"
	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/router"
)

// BenchmarkRoute measures the router's cost per event, from bytes on the
// wire to a message received by its session's consumer (Receive only: no
// turn is read, so the event's decoding on the consumer's side is all the
// consumer costs), with the events of n sessions interleaved. One op is one
// event. The suite's BenchmarkEvents (internal/bench) measures the whole
// path, turns and text included.
func BenchmarkRoute(b *testing.B) {
	for _, n := range []int{1, 8, 64, 512} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			f := bench.NewFeed(n, 32)
			cycles := f.Cycles(b.N)
			a, p := net.Pipe()
			r, err := router.New(a, router.Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			var wg sync.WaitGroup
			for _, id := range f.SessionIDs() {
				ch, err := r.Open(id)
				if err != nil {
					b.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range cycles * f.EventsPerCycle() / n {
						if _, err := ch.Receive(context.Background()); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			b.SetBytes(int64(f.MeanFrameBytes()))
			b.ReportAllocs()
			b.ResetTimer()
			go f.WriteCycles(p, cycles)
			wg.Wait()
			b.StopTimer()
			p.Close()
		})
	}
}

// BenchmarkReadOnly is the floor under BenchmarkRoute: the same frames
// through the same stream and jsonrpc2's read loop, with a handler that
// takes the detached params and does nothing else.
func BenchmarkReadOnly(b *testing.B) {
	f := bench.NewFeed(64, 32)
	cycles := f.Cycles(b.N)
	a, p := net.Pipe()
	var got sync.WaitGroup
	got.Add(cycles * f.EventsPerCycle())
	stream := wire.NewStream(a, wire.Limits{}, wire.Hooks{DetachParams: true, RouteKey: "sessionId"})
	conn := jsonrpc2.NewConn(context.Background(), stream,
		jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			stream.TakeDetached()
			got.Done()
			return nil, nil
		}))
	defer conn.Close()
	b.SetBytes(int64(f.MeanFrameBytes()))
	b.ReportAllocs()
	b.ResetTimer()
	go f.WriteCycles(p, cycles)
	got.Wait()
	b.StopTimer()
	p.Close()
}
