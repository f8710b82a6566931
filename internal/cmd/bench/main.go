// Command bench runs the project's benchmark suite (internal/bench) and
// prints one table per measurement, each figure beside its reference
// measured in the same run:
//
//	go run ./internal/cmd/bench            # the full suite, a few minutes
//	go run ./internal/cmd/bench -short     # a small run, as CI does
//
// The official Go SDK is measured when COPILOT_SDK_DIR names a checkout of
// github.com/github/copilot-sdk (its go/ directory is the module); the
// suite builds a driver for it in a temporary directory and says so when
// the variable is absent. BENCHMARKS.md has the method and the latest
// figures. The same measurements run as go test -bench in internal/bench.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/quorum-go/quorum/internal/bench"
)

func main() {
	bench.MaybeChild() // the suite runs this program again as each client
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(stderr, "bench:", err)
	return 1
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: bench [-short] [-repeats N] [-events N] [-only N]... [-v]\n\n%s\n\nflags:\n", bench.Describe())
		fs.PrintDefaults()
	}
	short := fs.Bool("short", false, "small runs, for CI: the figures mean little")
	repeats := fs.Int("repeats", 0, "runs per figure; the median is shown (default 3, 1 with -short)")
	events := fs.Int("events", 0, "events per CPU run (default 100000, 5000 with -short)")
	verbose := fs.Bool("v", false, "progress on stderr")
	var only []int
	fs.Func("only", "run only measurement `N` (1 to 6); repeat for more", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 6 {
			return fmt.Errorf("no measurement %q: give 1 to 6", v)
		}
		only = append(only, n)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	s := &bench.Suite{Exe: exe, Short: *short, Repeats: *repeats, Events: *events, Only: only}
	if *verbose {
		s.Log = stderr
	}
	if os.Getenv(bench.SDKDirEnv) == "" {
		s.NoOfficial = bench.ErrNoSDK
		fmt.Fprintln(stderr, bench.ErrNoSDK)
	} else {
		dir, err := os.MkdirTemp("", "quorum-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintf(stderr, "bench: building the official SDK's driver from %s\n", os.Getenv(bench.SDKDirEnv))
		if s.Official, err = bench.BuildOfficial(ctx, dir); err != nil {
			s.NoOfficial = err
			fmt.Fprintln(stderr, err)
		}
	}
	return s.Run(ctx, stdout)
}
