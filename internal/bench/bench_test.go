package bench

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/quorum-go/quorum/router"
)

// sessionCounts are the sizes the targets name.
var sessionCounts = []int{8, 64, 512}

// feedChunks is how many pieces a turn streams in the in-process feeds: 65
// events a turn.
const feedChunks = 32

// BenchmarkEvents is the reader's cost per event, from bytes on an OS pipe
// to text in the hands of each session's consumer, for this project (reader
// quorum: router, channels, a goroutine per session reading turns) and the
// decode-only reference (reader decode). One op is one event.
func BenchmarkEvents(b *testing.B) {
	for _, n := range sessionCounts {
		f := NewFeed(n, feedChunks)
		b.Run(fmt.Sprintf("sessions=%d/reader=decode", n), func(b *testing.B) {
			cycles := f.Cycles(b.N)
			client, server := connect(b, Pipe)
			d := NewDecoder(client)
			want := cycles * f.EventsPerCycle()
			b.SetBytes(int64(f.MeanFrameBytes()))
			b.ReportAllocs()
			cpu := startCPU(b)
			err := ReadFeed(server, f, cycles, func() error {
				for d.Events < want {
					if _, _, err := d.Next(); err != nil {
						return err
					}
				}
				return nil
			})
			cpu.stop(want)
			if err != nil {
				b.Fatal(err)
			}
		})
		b.Run(fmt.Sprintf("sessions=%d/reader=quorum", n), func(b *testing.B) {
			cycles := f.Cycles(b.N)
			client, server := connect(b, Pipe)
			rt, err := NewRouted(client, f, router.Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			b.SetBytes(int64(f.MeanFrameBytes()))
			b.ReportAllocs()
			cpu := startCPU(b)
			err = ReadFeed(server, f, cycles, func() error { return rt.Read(context.Background(), cycles) })
			cpu.stop(cycles * f.EventsPerCycle())
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// connect is Connect for a benchmark: both ends close when it ends.
func connect(tb testing.TB, t Transport) (client, server io.ReadWriteCloser) {
	tb.Helper()
	client, server, err := Connect(t)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		server.Close()
		client.Close()
	})
	return client, server
}

// cpuMeter reports the process's CPU time per event over a benchmark's
// timed part: ns/op is wall time, and with the writer and the reader on
// two shared cores the two differ.
type cpuMeter struct {
	b     *testing.B
	start time.Duration
}

// startCPU resets the benchmark's timer and starts measuring.
func startCPU(b *testing.B) cpuMeter {
	b.ResetTimer()
	return cpuMeter{b: b, start: ProcessCPU()}
}

// stop stops the timer and reports CPU per event as cpu-ns/event.
func (m cpuMeter) stop(events int) {
	m.b.StopTimer()
	m.b.ReportMetric(float64(ProcessCPU()-m.start)/float64(events), "cpu-ns/event")
}
