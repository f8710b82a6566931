package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/quorum-go/quorum/router"
)

// The suite's measurements that need no simulator: a pre-built feed
// written into a pipe or a loopback TCP connection, read in this process by
// one of the readers below. The writer costs next to nothing (Feed), so the
// reader sets the pace.

// Readers of a feed.
const (
	ReaderCopy   = "io.Copy" // bytes to io.Discard: the transport's ceiling
	ReaderDecode = "decode"  // the decode-only reader
	ReaderQuorum = "quorum"  // router, channels, a goroutine per session reading turns
)

// Rate is how fast a reader took a feed.
type Rate struct {
	Events int
	Bytes  int64
	Wall   time.Duration
}

// EventsPerSecond is the rate in events.
func (r Rate) EventsPerSecond() float64 { return float64(r.Events) / r.Wall.Seconds() }

// MBPerSecond is the rate in bytes, framing included.
func (r Rate) MBPerSecond() float64 { return float64(r.Bytes) / 1e6 / r.Wall.Seconds() }

// Throughput writes at least events events of f over a fresh connection of
// kind t, as fast as reader takes them, and returns the rate.
func Throughput(t Transport, f *Feed, events int, reader string) (Rate, error) {
	cycles := f.Cycles(events)
	rate := Rate{Events: cycles * f.EventsPerCycle(), Bytes: int64(cycles * len(f.cycle))}
	client, server, err := Connect(t)
	if err != nil {
		return rate, err
	}
	defer client.Close()
	defer server.Close()
	var read func() error
	switch reader {
	case ReaderCopy:
		read = func() error {
			_, err := io.CopyN(io.Discard, client, rate.Bytes)
			return err
		}
	case ReaderDecode:
		d := NewDecoder(client)
		read = func() error {
			for d.Events < rate.Events {
				if _, _, err := d.Next(); err != nil {
					return err
				}
			}
			return nil
		}
	case ReaderQuorum:
		rt, err := NewRouted(client, f, router.Config{})
		if err != nil {
			return rate, err
		}
		defer rt.Close()
		read = func() error { return rt.Read(context.Background(), cycles) }
	default:
		return rate, fmt.Errorf("bench: no reader %q", reader)
	}
	start := time.Now()
	err = ReadFeed(server, f, cycles, read)
	rate.Wall = time.Since(start)
	return rate, err
}

// Latencies are delivery latencies: from the writer's write of a delta to
// its text in a consumer's hands.
type Latencies []time.Duration

// Quantile returns the q-quantile (0 < q < 1).
func (l Latencies) Quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// Latency writes f over a fresh connection of kind t at rate events a
// second for about d, and returns each delta's delivery latency through
// reader (ReaderDecode or ReaderQuorum).
func Latency(t Transport, f *Feed, d time.Duration, rate int, reader string) (Latencies, error) {
	cycles := max(1, f.Cycles(int(d.Seconds()*float64(rate))))
	client, server, err := Connect(t)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	defer server.Close()
	epoch := time.Now()
	var mu sync.Mutex
	lat := make(Latencies, 0, cycles*f.EventsPerCycle()/2)
	onDelta := func(text string) {
		at := time.Since(epoch)
		if sent, ok := Stamp(text); ok {
			mu.Lock()
			lat = append(lat, at-sent)
			mu.Unlock()
		}
	}
	var read func() error
	switch reader {
	case ReaderDecode:
		dec := NewDecoder(client)
		dec.OnDelta = onDelta
		want := cycles * f.EventsPerCycle()
		read = func() error {
			for dec.Events < want {
				if _, _, err := dec.Next(); err != nil {
					return err
				}
			}
			return nil
		}
	case ReaderQuorum:
		rt, err := NewRouted(client, f, router.Config{})
		if err != nil {
			return nil, err
		}
		defer rt.Close()
		rt.OnDelta = onDelta
		read = func() error { return rt.Read(context.Background(), cycles) }
	default:
		return nil, fmt.Errorf("bench: no reader %q for latency", reader)
	}
	stop := make(chan struct{})
	werr := make(chan error, 1)
	go func() { werr <- f.WritePaced(server, cycles, rate, epoch, stop) }()
	err = read()
	close(stop)
	if werr := <-werr; err == nil {
		err = werr
	}
	return lat, err
}
