package clitest

import (
	"context"
	"net"
	"strings"
	"testing"
)

// ListenHost listens on ip (a private IPv4 address, not loopback) inside
// the sandbox, on one end of a veth pair it adds to the sandbox's network
// namespace: an address of the CLI's host other than loopback, for a test
// of what the CLI's commands can reach. It needs a private namespace (the
// test fails without one: it would change the machine's own network).
func (s *Sandbox) ListenHost(t testing.TB, ip string) net.Listener {
	t.Helper()
	if !s.Isolated() {
		t.Fatalf("clitest: ListenHost needs a private network namespace (%s); run the tests as root on Linux", s.why)
	}
	for _, args := range [][]string{
		{"link", "add", "quorum0", "type", "veth", "peer", "name", "quorum1"},
		{"addr", "add", ip + "/24", "dev", "quorum0"},
		{"link", "set", "quorum0", "up"},
		{"link", "set", "quorum1", "up"},
	} {
		cmd := s.Command(context.Background(), "ip", args...)
		if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "File exists") {
			t.Fatalf("clitest: ip %s in the sandbox: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	var ln net.Listener
	if err := s.in(func() (err error) {
		ln, err = net.Listen("tcp4", ip+":0")
		return err
	}); err != nil {
		t.Fatalf("clitest: listen on %s in the sandbox: %v", ip, err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln
}
