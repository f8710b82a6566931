package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/router"
)

// The suite as go test -bench, for benchstat: the same measurements as
// internal/cmd/bench, one benchmark each, the figures as custom metrics.
// Each op of the measurements that run clients in child processes is one
// whole run (use -benchtime 1x and -count for repeats). With -short every
// run is small, as CI runs it.

// sessionCounts are the sizes the targets name.
var sessionCounts = []int{8, 64, 512}

// feedChunks is how many pieces a turn streams in the in-process feeds: 65
// events a turn.
const feedChunks = 32

// size is full, or short with -short.
func size(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// streamEvents is how many events a child's stream run makes.
func streamEvents() int { return size(100_000, 5_000) }

// BenchmarkEvents is the reader's cost per event, from bytes on an OS pipe
// to text in the hands of each session's consumer, for this project (reader
// quorum: router, channels, a goroutine per session reading turns) and the
// decode-only reference (reader decode), in this process. One op is one
// event.
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

// BenchmarkStream is item 1: client CPU and allocations per event, each
// client in a process of its own streaming from the simulator, the
// official SDK's when COPILOT_SDK_DIR is set.
func BenchmarkStream(b *testing.B) {
	addr := server(b)
	for _, n := range sessionCounts {
		for _, client := range clients(b, ClientQuorum, ClientDecode) {
			b.Run(fmt.Sprintf("sessions=%d/client=%s", n, client), func(b *testing.B) {
				var cpu, allocs, bytes float64
				for range b.N {
					res := runChild(b, client, Job{Role: RoleStream, Addr: addr, Sessions: n, Chunks: ChunksFor(streamEvents(), n)})
					events := float64(res.Events)
					cpu += float64(res.CPU.Nanoseconds()) / events
					allocs += float64(res.Mallocs) / events
					bytes += float64(res.Bytes) / events
				}
				b.ReportMetric(cpu/float64(b.N), "cpu-ns/event")
				b.ReportMetric(allocs/float64(b.N), "allocs/event")
				b.ReportMetric(bytes/float64(b.N), "B/event")
			})
		}
	}
}

// BenchmarkThroughput is item 2: how fast each reader takes a pre-built
// feed over an OS pipe and loopback TCP. One op is one event.
func BenchmarkThroughput(b *testing.B) {
	for _, t := range []Transport{Pipe, TCP} {
		for _, n := range []int{64, 512} {
			f := NewFeed(n, feedChunks)
			for _, reader := range []string{ReaderCopy, ReaderDecode, ReaderQuorum} {
				b.Run(fmt.Sprintf("transport=%s/sessions=%d/reader=%s", t, n, reader), func(b *testing.B) {
					b.SetBytes(int64(f.MeanFrameBytes()))
					rate, err := Throughput(t, f, b.N, reader)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(rate.EventsPerSecond(), "events/s")
				})
			}
		}
	}
}

// BenchmarkLatency is item 3: delivery latency under a steady 10,000
// events a second. One op is one run of about a second (0.2 s with
// -short).
func BenchmarkLatency(b *testing.B) {
	d := time.Duration(size(1000, 200)) * time.Millisecond
	for _, n := range []int{7, 64} {
		f := NewFeed(n, feedChunks)
		for _, reader := range []string{ReaderDecode, ReaderQuorum} {
			b.Run(fmt.Sprintf("sessions=%d/reader=%s", n, reader), func(b *testing.B) {
				var all Latencies
				for range b.N {
					lat, err := Latency(Pipe, f, d, 10_000, reader)
					if err != nil {
						b.Fatal(err)
					}
					all = append(all, lat...)
				}
				b.ReportMetric(float64(all.Quantile(0.5).Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(all.Quantile(0.99).Nanoseconds()), "p99-ns")
			})
		}
	}
}

// BenchmarkIsolation is item 4: with one consumer blocked and one slow,
// how long the other sessions take, as a ratio to a control run. An op is
// a control run and a test run.
func BenchmarkIsolation(b *testing.B) {
	addr := server(b)
	chunks := size(500, 20)
	for _, client := range clients(b, ClientQuorum) {
		b.Run("client="+client, func(b *testing.B) {
			var ratio float64
			stalled := 0
			for range b.N {
				job := Job{Role: RoleIsolation, Addr: addr, Sessions: 8, Chunks: chunks, Patience: time.Minute}
				control := runChild(b, client, job)
				job.SlowDelay = 10 * time.Millisecond
				job.Patience = patience(control.Wall)
				test := runChild(b, client, job)
				if test.Stalled {
					stalled++
					continue
				}
				ratio += float64(test.Wall) / float64(control.Wall)
			}
			if stalled < b.N {
				b.ReportMetric(ratio/float64(b.N-stalled), "ratio")
			}
			b.ReportMetric(float64(stalled), "stalled")
		})
	}
}

// BenchmarkFootprint is item 5: what an idle session costs. An op is one
// run of 1,000 sessions (100 with -short).
func BenchmarkFootprint(b *testing.B) {
	addr := server(b)
	n := size(1000, 100)
	for _, client := range clients(b, ClientQuorum, ClientRouter) {
		b.Run("client="+client, func(b *testing.B) {
			var g, heap, stack float64
			for range b.N {
				res := runChild(b, client, Job{Role: RoleIdle, Addr: addr, Sessions: n})
				g, heap, stack = g+res.Goroutines, heap+res.HeapBytes, stack+res.StackBytes
			}
			b.ReportMetric(g/float64(b.N), "goroutines/session")
			b.ReportMetric(heap/float64(b.N), "heap-B/session")
			b.ReportMetric(stack/float64(b.N), "stack-B/session")
		})
	}
}

// BenchmarkCreate is item 6: 500 sessions created at once (50 with
// -short). An op is one batch; ns/op is its wall time.
func BenchmarkCreate(b *testing.B) {
	addr := server(b)
	n := size(500, 50)
	for _, client := range clients(b, ClientQuorum) {
		for _, assigned := range []bool{false, true} {
			if assigned && client == "official" {
				continue // the SDK always chooses ids
			}
			b.Run(fmt.Sprintf("client=%s/assigned=%v", client, assigned), func(b *testing.B) {
				var wall, cpu time.Duration
				for range b.N {
					res := runChild(b, client, Job{Role: RoleCreate, Addr: addr, Sessions: n, Assigned: assigned})
					wall += res.Wall
					cpu += res.CPU
				}
				b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N), "wall-ns/batch")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/batch")
			})
		}
	}
}

// The simulator of this test binary's benchmarks, started once.
var (
	serverOnce sync.Once
	benchSrv   *Server
	serverErr  error
)

// server returns the address of the benchmarks' simulator.
func server(tb testing.TB) string {
	serverOnce.Do(func() { benchSrv, serverErr = StartServer() })
	if serverErr != nil {
		tb.Fatal(serverErr)
	}
	return benchSrv.Addr()
}

// The official SDK's driver, built once per test binary run.
var (
	officialOnce sync.Once
	officialDir  string
	officialExe  string
	officialErr  error
)

// clients returns ours and, when COPILOT_SDK_DIR is set, "official".
func clients(tb testing.TB, ours ...string) []string {
	officialOnce.Do(func() {
		if os.Getenv(SDKDirEnv) == "" {
			officialErr = ErrNoSDK
			return
		}
		if officialDir, officialErr = os.MkdirTemp("", "quorum-bench-"); officialErr == nil {
			officialExe, officialErr = BuildOfficial(context.Background(), officialDir)
		}
	})
	if errors.Is(officialErr, ErrNoSDK) {
		tb.Log(officialErr)
		return ours
	}
	if officialErr != nil {
		tb.Fatal(officialErr)
	}
	return append(ours, "official")
}

// runChild runs job with client in a child process.
func runChild(tb testing.TB, client string, job Job) Result {
	tb.Helper()
	exe := officialExe
	if client != "official" {
		var err error
		if exe, err = os.Executable(); err != nil {
			tb.Fatal(err)
		}
	}
	job.Client = client
	res, err := RunChild(context.Background(), exe, job)
	if err != nil {
		tb.Fatalf("%s %s: %v", client, job.Role, err)
	}
	return res
}

// cleanup ends what the benchmarks started once.
func cleanup() {
	if benchSrv != nil {
		benchSrv.Close()
	}
	if officialDir != "" {
		os.RemoveAll(officialDir)
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
