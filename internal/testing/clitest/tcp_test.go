package clitest

import (
	"bufio"
	"context"
	"io"
	"net"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// TestTCPMode starts the CLI with --port 0 and speaks to it over TCP.
func TestTCPMode(t *testing.T) {
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	sb := NewSandbox(t)
	api := newAPI(t, sb, modelapi.Echo)
	cmd := sb.Command(context.Background(), bin, TCPServerArgs()...)
	cmd.Env = OfflineEnv(t, api.URL())
	cmd.Dir = t.TempDir()
	stderr := &testutil.Buffer{Max: stderrKept}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		// Keep draining stdout after the first line: a full pipe would
		// block the CLI. Wait only after the reader is done with it.
		br := bufio.NewReader(stdout)
		line, _ := br.ReadString('\n')
		lines <- line
		_, _ = br.WriteTo(io.Discard)
		exited <- cmd.Wait()
	}()
	// Closing the TCP connection does not end the CLI; SIGTERM does.
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	var line string
	select {
	case line = <-lines:
	case <-time.After(hangGuard):
		t.Fatalf("no port line; stderr: %s", stderr)
	}
	m := regexp.MustCompile(`^CLI server listening on port (\d+)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first stdout line %q, want \"CLI server listening on port N\"", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	nc, err := sb.Dial(ctx, "tcp", net.JoinHostPort("127.0.0.1", m[1]))
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), nopHandler{})
	defer conn.Close()
	var res struct {
		ProtocolVersion int `json:"protocolVersion"`
	}
	if err := conn.Call(ctx, "connect", map[string]any{}, &res); err != nil || res.ProtocolVersion != 3 {
		t.Fatalf("connect over TCP: %+v, %v", res, err)
	}
}

type nopHandler struct{}
