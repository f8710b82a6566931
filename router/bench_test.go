package router

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// eventFrame is a framed session.event about the size of the CLI's median
// event (~400 bytes).
func eventFrame(sessionID string, k int) []byte {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":%q,"event":{"type":"assistant.message_delta","data":{"messageId":"6c1f0d8e-2a4b-4c55-9e7d-1b2c3d4e5f60","deltaContent":"chunk %06d of the streamed reply, about twenty chars"},"id":"0f6e2b7a-8c1d-4e3f-a5b6-%012d","timestamp":"2026-11-22T02:00:00.000Z","parentId":"9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d","ephemeral":true}}}`, sessionID, k, k)
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// BenchmarkRoute measures the reader's cost per event, from bytes on the
// wire to a message received by its session's consumer, with the events of
// n sessions interleaved. One op is one event.
func BenchmarkRoute(b *testing.B) {
	for _, n := range []int{1, 8, 64, 512} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			benchRoute(b, n)
		})
	}
}

func benchRoute(b *testing.B, n int) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("s-%04d", i)
	}
	// One round of frames, replayed until b.N events are written.
	var round []byte
	for k := 0; k < 8; k++ {
		for _, id := range ids {
			round = append(round, eventFrame(id, k)...)
		}
	}
	perRound := 8 * n
	a, p := net.Pipe()
	r := mustNew(b, a, Config{})
	defer r.Close()
	chans := make([]*session.Channel, n)
	for i, id := range ids {
		chans[i], _ = r.Open(id)
	}
	rounds := (b.N + perRound - 1) / perRound
	var wg sync.WaitGroup
	for _, ch := range chans {
		wg.Add(1)
		go func(ch *session.Channel) {
			defer wg.Done()
			for i := 0; i < rounds*8; i++ {
				if _, err := ch.Receive(context.Background()); err != nil {
					b.Error(err)
					return
				}
			}
		}(ch)
	}
	b.SetBytes(int64(len(round) / perRound))
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for i := 0; i < rounds; i++ {
			if _, err := p.Write(round); err != nil {
				return
			}
		}
	}()
	wg.Wait()
	b.StopTimer()
	p.Close()
	// The last message's count may lag its delivery by a moment.
	if s := r.Stats(); s.Routed+1 < uint64(rounds*perRound) {
		b.Fatalf("routed %d of %d", s.Routed, rounds*perRound)
	}
}

// BenchmarkReadOnly is the baseline for BenchmarkRoute: the same frames
// through the same stream and jsonrpc2's read loop, with a handler that
// does nothing, with the params decoded by jsonrpc2 (whole) or detached by
// the stream as the router has it (detached).
func BenchmarkReadOnly(b *testing.B) {
	for _, detach := range []bool{false, true} {
		name := map[bool]string{false: "whole", true: "detached"}[detach]
		b.Run(name, func(b *testing.B) { benchReadOnly(b, detach) })
	}
}

func benchReadOnly(b *testing.B, detach bool) {
	var round []byte
	for k := 0; k < 64; k++ {
		round = append(round, eventFrame("s-0000", k)...)
	}
	rounds := (b.N + 63) / 64
	a, p := net.Pipe()
	var got sync.WaitGroup
	got.Add(rounds * 64)
	stream := wire.NewStream(a, wire.Limits{}, wire.Hooks{DetachParams: detach})
	conn := jsonrpc2.NewConn(context.Background(), stream,
		jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			stream.TakeParams()
			got.Done()
			return nil, nil
		}))
	defer conn.Close()
	b.SetBytes(int64(len(round) / 64))
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for i := 0; i < rounds; i++ {
			if _, err := p.Write(round); err != nil {
				return
			}
		}
	}()
	got.Wait()
	b.StopTimer()
	p.Close()
}
