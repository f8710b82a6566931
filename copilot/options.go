package copilot

import (
	"context"
	"net"
	"os/exec"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/router"
)

// Transport is how the client talks to the CLI child.
type Transport int

const (
	// Stdio runs JSON-RPC over the child's standard input and output.
	Stdio Transport = iota
	// TCP has the child listen on a loopback port (--port 0) and dials it.
	TCP
)

func (t Transport) String() string {
	if t == TCP {
		return "tcp"
	}
	return "stdio"
}

// Options configure Start. The zero value starts `copilot` from PATH over
// stdio with the defaults documented on each field.
type Options struct {
	// CLIPath is the Copilot CLI binary. Default: $COPILOT_CLI_PATH, then
	// `copilot` on PATH.
	CLIPath string
	// Args are extra arguments for the CLI, after the server flags.
	Args []string
	// Transport defaults to Stdio.
	Transport Transport
	// WorkingDir is the child's working directory. Default: this process's.
	WorkingDir string
	// Env is the child's environment. Default: this process's.
	Env []string
	// AuthToken, if set, is handed to the CLI through the environment
	// variable COPILOT_SDK_AUTH_TOKEN (never on the command line).
	AuthToken string
	// LogLevel and LogDir, if set, are passed as --log-level and --log-dir.
	LogLevel, LogDir string

	// Command, if set, builds the child's command instead of exec.Command:
	// to run the CLI through a wrapper (a sandbox, a container). The client
	// still sets its pipes, environment, directory and process group.
	Command func(bin string, args ...string) *exec.Cmd
	// Dial, if set, connects to a TCP-mode child instead of net.Dialer, for
	// a child in another network namespace.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	// StartTimeout bounds start-up: process start, the TCP port line, and
	// the handshake. Default 60s (the CLI's first run unpacks ~235 MB).
	StartTimeout time.Duration
	// ShutdownTimeout bounds a graceful exit on Close before the process
	// group is killed. Default 5s.
	ShutdownTimeout time.Duration

	// Restart, if not nil, supervises the child: when it dies its sessions
	// fail with router.ErrStopped, and the client starts a new child with
	// exponential backoff so that new sessions work again.
	Restart *RestartPolicy

	// Router configures the connection's router.
	Router router.Config
	// Logger receives diagnostics, the CLI's stderr among them. Default:
	// silent.
	Logger *zerolog.Logger
}

// RestartPolicy bounds the restarts of a supervised child.
type RestartPolicy struct {
	// MaxAttempts bounds the start attempts after one death. Default 5.
	MaxAttempts int
	// InitialInterval is the first backoff. Default 200ms.
	InitialInterval time.Duration
	// MaxInterval caps the backoff. Default 10s.
	MaxInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 5 * time.Second
	}
	if o.Logger == nil {
		nop := zerolog.Nop()
		o.Logger = &nop
	}
	if o.Router.Logger == nil {
		o.Router.Logger = o.Logger
	}
	if o.Restart != nil {
		p := *o.Restart
		if p.MaxAttempts <= 0 {
			p.MaxAttempts = 5
		}
		if p.InitialInterval <= 0 {
			p.InitialInterval = 200 * time.Millisecond
		}
		if p.MaxInterval <= 0 {
			p.MaxInterval = 10 * time.Second
		}
		o.Restart = &p
	}
	return o
}
