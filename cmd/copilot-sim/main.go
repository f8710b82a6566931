// Command copilot-sim is a stand-in for the GitHub Copilot CLI in headless
// server mode: it accepts the real CLI's flags and serves, over stdio or TCP,
// the simulated models the quorum command's --sim serves (and package
// quorum/quorumtest's): sim-alpha, sim-beta, sim-gamma and
// sim-moderator, which answer quorum's prompts in the shapes it asks for and
// a plain prompt with a few plausible sentences. Every reply is labelled as
// simulated. It talks to nothing but its client.
//
// From another module, install it and point the SDK at it:
//
//	go install github.com/quorum-go/quorum/cmd/copilot-sim@latest
//	COPILOT_CLI_PATH=$(go env GOPATH)/bin/copilot-sim go test ./...
//
// Tests in Go need not start a process: copilot/copilottest runs the same
// simulator in the test's process, with quorum/quorumtest's models.
//
// As with the real CLI, a session that has had a message is kept until a
// client deletes it: later clients of the same process list and resume it
// (nothing is written to disk; the sessions go with the process).
//
//	copilot-sim --headless --stdio
//	copilot-sim --headless --port 0     # prints "CLI server listening on port N"
//
// Flags the real CLI takes and the simulator ignores: --no-auto-update,
// --no-auto-login, --auth-token-env, --log-level, --log-dir. Flags of its own:
// --sim-pace (per-chunk delay; 0 streams instantly), --sim-protocol-version,
// --sim-seed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(os.Stderr, "copilot-sim:", err)
	return 1
}

type config struct {
	stdio    bool
	port     int
	version  bool
	pace     time.Duration
	protocol int
	seed     uint64
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("copilot-sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("headless", false, "run as a JSON-RPC server (always on)")
	fs.BoolVar(&cfg.stdio, "stdio", false, "serve one client on stdin/stdout")
	fs.IntVar(&cfg.port, "port", -1, "serve TCP on 127.0.0.1:`port` (0 picks a free port)")
	fs.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fs.Bool("no-auto-update", false, "ignored")
	fs.Bool("no-auto-login", false, "ignored")
	fs.String("auth-token-env", "", "ignored")
	fs.String("log-level", "", "ignored")
	fs.String("log-dir", "", "ignored")
	fs.DurationVar(&cfg.pace, "sim-pace", 15*time.Millisecond, "delay between streamed chunks (first token waits 5x); 0 streams instantly")
	fs.IntVar(&cfg.protocol, "sim-protocol-version", sim.ProtocolVersion, "protocol version to report")
	fs.Uint64Var(&cfg.seed, "sim-seed", 1, "seed for randomised behaviour")
	if err := fs.Parse(args); err != nil {
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "copilot-sim: unexpected arguments %q\n", fs.Args())
		return cfg, errUsage
	}
	if !cfg.version && cfg.stdio == (cfg.port >= 0) {
		fmt.Fprintln(stderr, "copilot-sim: give exactly one of --stdio or --port N")
		return cfg, errUsage
	}
	if cfg.port > 65535 {
		fmt.Fprintf(stderr, "copilot-sim: bad port %d\n", cfg.port)
		return cfg, errUsage
	}
	return cfg, nil
}

// run is the whole program: it serves until stdin closes (stdio mode) or ctx
// is done.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.version {
		fmt.Fprintf(stdout, "%s (simulated GitHub Copilot CLI)\n", sim.Version)
		return nil
	}

	// The models of --sim, so that quorum's strategies run against the
	// program as they do with --sim.
	models := simquorum.Models()
	if cfg.pace > 0 {
		models = sim.Paced(models, 5*cfg.pace, cfg.pace)
	}
	srv := sim.NewServer(sim.Options{
		Models:          models,
		ProtocolVersion: cfg.protocol,
		StartOrder:      sim.StartRandom,
		Seed:            cfg.seed,
		Logf:            func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) },
	})
	defer srv.Close()

	if cfg.stdio {
		conn, err := srv.ServeConn(ctx, stdio(stdin, stdout))
		if err != nil {
			return err
		}
		select {
		case <-conn.Done():
		case <-ctx.Done():
		}
		return nil
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.port)))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "CLI server listening on port %d\n", ln.Addr().(*net.TCPAddr).Port)
	if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, sim.ErrServerClosed) {
		return err
	}
	return nil
}

// stdio joins stdin and stdout into one connection. Closing it closes stdin
// when it can be closed, to end a read blocked on it; stdout is left open:
// closing it would end nothing that waits, and it is the caller's (a test
// goes on reading it and closes it itself).
func stdio(stdin io.Reader, stdout io.Writer) wire.Duplex {
	r, ok := stdin.(io.ReadCloser)
	if !ok {
		r = io.NopCloser(stdin)
	}
	return wire.Duplex{R: r, W: keepOpen{stdout}}
}

// keepOpen is a writer whose Close does nothing.
type keepOpen struct{ io.Writer }

func (keepOpen) Close() error { return nil }
