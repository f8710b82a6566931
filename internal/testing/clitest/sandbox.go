package clitest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// Sandbox is where a test runs the CLI and its model API: a private network
// namespace with only loopback when the machine allows it, else the test's
// own network (see the package documentation). Its methods are safe for
// concurrent use.
type Sandbox struct {
	ns      *os.File // the namespace; nil when not isolated
	nsenter string   // path of nsenter when isolated
	why     string   // why not isolated
}

// NewSandbox makes a sandbox that lives until the test ends. It never
// fails: when isolation is impossible it logs why and passes through.
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	s := &Sandbox{}
	switch {
	case os.Getenv("QUORUM_NETNS") == "off":
		s.why = "QUORUM_NETNS=off"
	case os.Geteuid() != 0:
		s.why = "not running as root"
	default:
		nsenter, err := exec.LookPath("nsenter")
		if err != nil {
			s.why = "nsenter not found"
			break
		}
		ns, err := newNetNS()
		if err != nil {
			s.why = err.Error()
			break
		}
		s.ns, s.nsenter = ns, nsenter
		// Registered first, so it runs after the cleanups of whatever the
		// test starts in the sandbox.
		t.Cleanup(func() { _ = ns.Close() })
	}
	if s.ns == nil {
		t.Logf("clitest: no private network namespace (%s); relying on the proxy environment alone", s.why)
	}
	return s
}

// Isolated reports whether the sandbox is a private network namespace.
func (s *Sandbox) Isolated() bool { return s.ns != nil }

// Listen listens on 127.0.0.1:0 inside the sandbox. Only processes in the
// sandbox (started with [Sandbox.Command]) and [Sandbox.Dial] can reach it.
func (s *Sandbox) Listen() (net.Listener, error) {
	var ln net.Listener
	err := s.in(func() (err error) {
		ln, err = net.Listen("tcp4", "127.0.0.1:0")
		return err
	})
	return ln, err
}

// Dial connects from inside the sandbox, for example to a CLI started in TCP
// mode, whose listener is in the sandbox too.
func (s *Sandbox) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := s.in(func() (err error) {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Command is exec.CommandContext for a program that must run inside the
// sandbox. When isolated it runs "nsenter --net=<the namespace> -- bin
// args..."; nsenter execs bin in place, so the command's process is bin
// itself (signals and Wait reach it directly).
func (s *Sandbox) Command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	if s.ns == nil {
		return exec.CommandContext(ctx, bin, args...)
	}
	return exec.CommandContext(ctx, s.nsenter, append([]string{"--net=" + s.nsPath(), "--", bin}, args...)...)
}

// in runs f on a thread inside the sandbox, or directly when not isolated.
func (s *Sandbox) in(f func() error) error {
	if s.ns == nil {
		return f()
	}
	return inNetNS(s.ns, f)
}

// StartModelAPI starts a local model API listening inside the sandbox and
// closes it when the test ends. Its URL is what [OfflineEnv] needs.
func (s *Sandbox) StartModelAPI(t testing.TB, cfg modelapi.Config) *modelapi.Server {
	t.Helper()
	if cfg.Listener == nil {
		ln, err := s.Listen()
		if err != nil {
			t.Fatalf("clitest: listen in the sandbox: %v", err)
		}
		cfg.Listener = ln
	}
	api, err := modelapi.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	return api
}
