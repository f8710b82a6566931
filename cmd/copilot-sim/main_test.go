package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// guard only stops a broken test from hanging; nothing asserts on time.
const guard = 30 * time.Second

// realFlags are the flags the SDK passes to the real CLI.
var realFlags = []string{"--headless", "--no-auto-update", "--auth-token-env", "COPILOT_SDK_AUTH_TOKEN",
	"--no-auto-login", "--log-level", "debug", "--log-dir", "/nonexistent/logs"}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, strings.NewReader(""), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), sim.Version) || !strings.Contains(out.String(), "simulated") {
		t.Errorf("--version printed %q", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--headless"},                           // no mode
		{"--headless", "--stdio", "--port", "0"}, // both
		{"--stdio", "--bogus"},
		{"--stdio", "extra"},
		{"--port", "70000"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr)
		if !errors.Is(err, errUsage) || exitCode(err) != 2 {
			t.Errorf("%q: err = %v", args, err)
		}
		if stderr.Len() == 0 {
			t.Errorf("%q: nothing on stderr", args)
		}
	}
}

// rpcClient is a minimal jsonrpc2 client that collects session events.
type rpcClient struct {
	conn   *jsonrpc2.Conn
	cancel context.CancelFunc
	mu     sync.Mutex
	events []sessionEvent
	got    chan struct{}
}

type sessionEvent struct {
	SessionID string    `json:"sessionId"`
	Event     sim.Event `json:"event"`
}

type rwc struct {
	io.Reader
	io.Writer
	close func() error
}

func (c rwc) Close() error { return c.close() }

func newRPCClient(t *testing.T, stream io.ReadWriteCloser) *rpcClient {
	ctx, cancel := context.WithCancel(context.Background())
	c := &rpcClient{cancel: cancel, got: make(chan struct{}, 1)}
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stream, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.NotificationSessionEvent && req.Params != nil {
				var se sessionEvent
				if json.Unmarshal(*req.Params, &se) == nil {
					c.mu.Lock()
					c.events = append(c.events, se)
					c.mu.Unlock()
					select {
					case c.got <- struct{}{}:
					default:
					}
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() { c.conn.Close(); cancel() })
	return c
}

func (c *rpcClient) call(t *testing.T, method string, params, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// converse runs a handshake and one turn, and returns the reply text.
func (c *rpcClient) converse(t *testing.T, model, prompt string) string {
	t.Helper()
	var hello struct {
		OK              bool
		ProtocolVersion int
		Version         string
	}
	c.call(t, protocol.MethodConnect, map[string]any{}, &hello)
	if !hello.OK || hello.ProtocolVersion != 3 || hello.Version != sim.Version {
		t.Fatalf("%s = %+v", protocol.MethodConnect, hello)
	}
	var created struct{ SessionID string }
	c.call(t, protocol.MethodSessionCreate, map[string]any{"model": model, "streaming": true}, &created)
	c.call(t, protocol.MethodSessionSend, map[string]any{"sessionId": created.SessionID, "prompt": prompt}, nil)

	deadline := time.After(guard)
	for {
		c.mu.Lock()
		var deltas, content string
		idle := false
		for _, se := range c.events {
			if se.SessionID != created.SessionID {
				continue
			}
			var d struct{ DeltaContent, Content string }
			json.Unmarshal(se.Event.Data, &d)
			switch se.Event.Type {
			case protocol.EventAssistantMessageDelta:
				deltas += d.DeltaContent
			case protocol.EventAssistantMessage:
				content = d.Content
			case protocol.EventSessionIdle:
				idle = true
			}
		}
		c.mu.Unlock()
		if idle {
			if deltas != content {
				t.Errorf("deltas %q != message %q", deltas, content)
			}
			return content
		}
		select {
		case <-c.got:
		case <-deadline:
			t.Fatal("no session.idle")
		}
	}
}

func TestStdio(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), append(realFlags, "--stdio", "--sim-pace", "0"), stdinR, stdoutW, io.Discard)
		stdoutW.Close()
	}()
	c := newRPCClient(t, rwc{stdoutR, stdinW, func() error { stdinW.Close(); return stdoutR.Close() }})
	text := c.converse(t, "sim-alpha", "Should we cache this?")
	if !strings.HasPrefix(text, "[simulated sim-alpha]") || !strings.Contains(text, "cach") {
		t.Errorf("reply = %q", text)
	}

	stdinW.Close() // the client goes away: the program exits cleanly
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(guard):
		t.Fatal("run did not return after stdin closed")
	}
}

var listening = regexp.MustCompile(`^CLI server listening on port (\d+)\n$`)

// serveTCP runs the program on a free port with pace until ctx ends, and
// returns the port and the channel run's result arrives on.
func serveTCP(ctx context.Context, t *testing.T, pace string) (port string, done <-chan error) {
	t.Helper()
	stdoutR, stdoutW := io.Pipe()
	result := make(chan error, 1)
	go func() {
		result <- run(ctx, append(realFlags, "--port", "0", "--sim-pace", pace), strings.NewReader(""), stdoutW, io.Discard)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := listening.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, stdoutR)
	return m[1], result
}

// awaitRun waits for run's result after its context ended.
func awaitRun(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(guard):
		t.Fatal("run did not return after cancel")
	}
}

func TestTCP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, done := serveTCP(ctx, t, "1ms")

	// Two clients at once, each with its own sessions.
	var wg sync.WaitGroup
	for _, model := range []string{"sim-beta", "sim-gamma"} {
		nc, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		c := newRPCClient(t, nc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if text := c.converse(t, model, "Pick a database"); !strings.HasPrefix(text, "[simulated "+model+"]") {
				t.Errorf("reply = %q", text)
			}
		}()
	}
	wg.Wait()

	cancel() // as on SIGTERM
	awaitRun(t, done)
}

// TestTCPSessionsOutliveTheirClient: as with the real CLI, the sessions a
// client had (with a message) stay on the server's disk after it goes: the
// next client lists and resumes them.
func TestTCPSessionsOutliveTheirClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, done := serveTCP(ctx, t, "0")
	dial := func() (*rpcClient, net.Conn) {
		nc, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		return newRPCClient(t, nc), nc
	}

	first, nc := dial()
	first.converse(t, "sim-alpha", "Remember this")
	nc.Close()

	second, _ := dial()
	var list protocol.SessionListResult
	second.call(t, protocol.MethodSessionList, map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Summary != "Remember this" {
		t.Fatalf("the next client lists %+v", list.Sessions)
	}
	id := list.Sessions[0].SessionID
	second.call(t, protocol.MethodSessionResume, map[string]any{"sessionId": id}, nil)
	var del protocol.SuccessResult
	second.call(t, protocol.MethodSessionDelete, map[string]any{"sessionId": id}, &del)
	second.call(t, protocol.MethodSessionList, map[string]any{}, &list)
	if !del.Success || len(list.Sessions) != 0 {
		t.Errorf("deleted %+v; listed %+v", del, list.Sessions)
	}

	cancel()
	awaitRun(t, done)
}

// TestQuorumThroughTheProgram: the program serves the models of --sim, so
// quorum's strategies run against it — where its earlier demo models left
// Discuss with no reviewers ("too few models left after the review phase").
func TestQuorumThroughTheProgram(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, done := serveTCP(ctx, t, "0")
	nc, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	callCtx, stop := context.WithTimeout(ctx, guard)
	defer stop()
	c, err := copilot.Connect(callCtx, nc, copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := quorum.Discuss(callCtx, quorum.Copilot(c), "Monolith or microservices?",
		quorum.Config{Models: simquorum.Participants, Moderator: simquorum.Moderator})
	if err != nil || len(d.Standings) != len(simquorum.Participants) || d.Degraded {
		t.Errorf("Discuss: %v", err)
	}
	c.Close()
	cancel()
	awaitRun(t, done)
}

// TestBinary builds the program and drives it as the SDK drives the real CLI.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "copilot-sim")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("stdio", func(t *testing.T) {
		cmd := exec.Command(bin, append(realFlags, "--stdio")...)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := newRPCClient(t, rwc{stdout, stdin, stdin.Close})
		if text := c.converse(t, "sim-moderator", "hello"); !strings.HasPrefix(text, "[simulated sim-moderator]") {
			t.Errorf("reply = %q", text)
		}
		stdin.Close()
		if err := waitProcess(cmd); err != nil {
			t.Errorf("exit after stdin closed: %v", err)
		}
	})

	t.Run("tcp and SIGTERM", func(t *testing.T) {
		cmd := exec.Command(bin, append(realFlags, "--port", "0")...)
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Every failure path below ends the test with the child running:
		// kill it then, or the test waits for it. After waitProcess the
		// child has been waited for, and there is nothing to kill.
		waited := false
		t.Cleanup(func() {
			if !waited {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		m := listening.FindStringSubmatch(line)
		if err != nil || m == nil {
			t.Fatalf("first line %q: %v", line, err)
		}
		nc, err := net.Dial("tcp", "127.0.0.1:"+m[1])
		if err != nil {
			t.Fatal(err)
		}
		c := newRPCClient(t, nc)
		var pong struct{ Message string }
		c.call(t, protocol.MethodPing, map[string]any{"message": "tcp"}, &pong)
		if pong.Message != "pong: tcp" {
			t.Errorf("%s = %+v", protocol.MethodPing, pong)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		err = waitProcess(cmd)
		waited = true
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	})
}

// waitProcess waits for cmd with a hang guard, killing it on timeout.
func waitProcess(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(guard):
		cmd.Process.Kill()
		<-done
		return errors.New("did not exit")
	}
}
