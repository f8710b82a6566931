package copilot

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/copilot/protocol"
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
	switch t {
	case Stdio:
		return "stdio"
	case TCP:
		return "tcp"
	}
	return fmt.Sprintf("Transport(%d)", int(t))
}

// Options configure Start. The zero value starts `copilot` from PATH over
// stdio with the defaults documented on each field; Validate says which
// values are refused.
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
	// fail with ErrStopped, and the client starts a new child with
	// exponential backoff so that new sessions work again.
	Restart *RestartPolicy

	// Liveness, if not nil, pings the CLI periodically and declares a CLI
	// that does not answer in time dead (a stopped process, a deadlock): a
	// child that merely hangs never exits, so without it a caller with no
	// deadline would wait forever. Off by default: a library caller who
	// sets deadlines on every call needs no probe.
	Liveness *Liveness

	// Handlers answer the requests the CLI sends that name no session
	// (host.*, installations.confirm, gitHubToken.getToken, …); requests
	// of one session go to its SessionConfig.Handlers. As there, a request
	// without a handler is declined where the protocol can say no, and
	// answered with an error otherwise.
	Handlers protocol.Handlers

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

// The defaults of Options' fields, as documented on them.
const (
	defaultStartTimeout    = 60 * time.Second
	defaultShutdownTimeout = 5 * time.Second
	defaultMaxAttempts     = 5
	defaultInitialInterval = 200 * time.Millisecond
	defaultMaxInterval     = 10 * time.Second
)

// Validate reports the first field of o that Start and Connect refuse,
// naming it, in an error wrapping ErrInvalidOptions: a Transport other than
// Stdio or TCP, a negative time limit or attempt count, a Router that
// router.Config.Validate refuses (the error wraps router.ErrInvalidConfig
// too), a Restart.MaxInterval below Restart.InitialInterval. Zero is never
// refused: it means the field's default.
func (o Options) Validate() error {
	if o.Transport != Stdio && o.Transport != TCP {
		return invalid(ErrInvalidOptions, "Transport is %v; it must be Stdio or TCP", o.Transport)
	}
	for _, d := range o.durations() {
		if *d.value < 0 {
			return invalid(ErrInvalidOptions, "%s is %v; it must be positive (0 means the default, %v)", d.name, *d.value, d.def)
		}
	}
	if l := o.Liveness; l != nil && l.Interval <= 0 {
		return invalid(ErrInvalidOptions, "Liveness.Interval is %v; it must be positive when Liveness is set", l.Interval)
	}
	if err := o.Router.Validate(); err != nil {
		return fmt.Errorf("%w: Router: %w", ErrInvalidOptions, err)
	}
	if p := o.Restart; p != nil {
		if p.MaxAttempts < 0 {
			return invalid(ErrInvalidOptions, "Restart.MaxAttempts is %d; it must be positive (0 means the default, %d)", p.MaxAttempts, defaultMaxAttempts)
		}
		if p.InitialInterval > 0 && p.MaxInterval > 0 && p.MaxInterval < p.InitialInterval {
			return invalid(ErrInvalidOptions, "Restart.MaxInterval is %v, below Restart.InitialInterval (%v)", p.MaxInterval, p.InitialInterval)
		}
	}
	return nil
}

// durationField is one of Options' time limits, with its default.
type durationField struct {
	name  string
	value *time.Duration
	def   time.Duration
}

// durations lists o's time limits. Validate and withDefaults both go
// through it, so no limit is checked without its default being filled, or
// the other way round.
func (o *Options) durations() []durationField {
	ds := []durationField{
		{"StartTimeout", &o.StartTimeout, defaultStartTimeout},
		{"ShutdownTimeout", &o.ShutdownTimeout, defaultShutdownTimeout},
	}
	if p := o.Restart; p != nil {
		ds = append(ds,
			durationField{"Restart.InitialInterval", &p.InitialInterval, defaultInitialInterval},
			durationField{"Restart.MaxInterval", &p.MaxInterval, defaultMaxInterval})
	}
	if l := o.Liveness; l != nil {
		// The timeout defaults to the interval: one ping in flight at a time.
		ds = append(ds, durationField{"Liveness.Timeout", &l.Timeout, l.Interval})
	}
	return ds
}

// withDefaults fills every zero field with its default. o must be valid.
func (o Options) withDefaults() Options {
	if o.Liveness != nil {
		l := *o.Liveness // filled in below, so a copy: the caller's stays as it was
		o.Liveness = &l
	}
	if o.Restart != nil {
		p := *o.Restart // filled in here, so a copy: the policy is the caller's
		if p.MaxAttempts == 0 {
			p.MaxAttempts = defaultMaxAttempts
		}
		o.Restart = &p
	}
	for _, d := range o.durations() {
		if *d.value == 0 {
			*d.value = d.def
		}
	}
	if o.Logger == nil {
		nop := zerolog.Nop()
		o.Logger = &nop
	}
	if o.Router.Logger == nil {
		o.Router.Logger = o.Logger
	}
	return o
}
