// Command soak runs waves of sessions against the simulated Copilot CLI
// with faults injected (cancellation, duplicate events, slow consumers, a
// crash, a CLI that stops answering), printing goroutines, heap and what
// each wave did, and fails if the process does not come back to its
// baseline or a wave's checks fail. A development tool: see package
// internal/soak.
//
//	go run ./internal/cmd/soak -d 10m -sessions 64
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/quorum-go/quorum/internal/soak"
)

func main() {
	d := flag.Duration("d", time.Minute, "how long to run waves (every fault runs at least once)")
	sessions := flag.Int("sessions", 32, "sessions per wave")
	chunks := flag.Int("chunks", 40, "streamed chunks per reply")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := soak.Run(ctx, soak.Config{Duration: *d, Sessions: *sessions, Chunks: *chunks, Report: os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	fmt.Printf("soak: %d waves; goroutines %d → %d, heap %.1f → %.1f MiB\n",
		sum.Waves, sum.First.Goroutines, sum.Last.Goroutines, float64(sum.First.HeapBytes)/(1<<20), float64(sum.Last.HeapBytes)/(1<<20))
}
