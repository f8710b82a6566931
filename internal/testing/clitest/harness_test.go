package clitest

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds each wait on the CLI. Turns against the local model API
// take well under a second; the guard only turns a hang into a failure on a
// slow, loaded machine.
const hangGuard = 60 * time.Second

// testModel is the model every session here asks for.
const testModel = "claude-sonnet-4.5"

// note is one notification from the CLI, with the fields of session.event
// and session.lifecycle pulled out.
type note struct {
	Method    string
	Params    json.RawMessage
	SessionID string
	Type      string          // event type, or lifecycle type
	Data      json.RawMessage // event data
	At        time.Time
}

// recorder keeps every notification; tests wait on it for conditions.
type recorder struct {
	mu      sync.Mutex
	notes   []note
	changed chan struct{} // closed and replaced on each append
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) add(n note) {
	r.mu.Lock()
	r.notes = append(r.notes, n)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.notes)
}

func (r *recorder) since(i int) []note {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]note(nil), r.notes[i:]...)
}

// waitFrom waits for the first note at index >= from that satisfies pred,
// returning its index.
func (r *recorder) waitFrom(t *testing.T, from int, what string, pred func(note) bool) (int, note) {
	t.Helper()
	deadline := time.NewTimer(hangGuard)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for i := from; i < len(r.notes); i++ {
			if pred(r.notes[i]) {
				n := r.notes[i]
				r.mu.Unlock()
				return i, n
			}
		}
		from = len(r.notes)
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func isEvent(sid, typ string) func(note) bool {
	return func(n note) bool { return n.Method == "session.event" && n.SessionID == sid && n.Type == typ }
}

// cli is one running CLI child spoken to over stdio.
type cli struct {
	t       *testing.T
	cmd     *exec.Cmd
	conn    *jsonrpc2.Conn
	notes   *recorder
	stderr  *testutil.Buffer
	stdin   io.WriteCloser
	replies sync.WaitGroup // replies to server requests in flight
	exited  chan struct{}  // closed once the process has been waited for
	waitErr error          // valid after exited is closed
}

// stderrKept is how much of a child's stderr a test keeps: enough to
// diagnose a failure, bounded so a chatty child cannot grow the test's
// memory.
const stderrKept = 64 << 10

// stdio joins the child's stdout and stdin into the stream jsonrpc2 wants.
// Closing it closes stdin, which is how a client asks the CLI to exit.
type stdio struct {
	io.ReadCloser
	in io.WriteCloser
}

func (s stdio) Write(p []byte) (int, error) { return s.in.Write(p) }
func (s stdio) Close() error {
	err := s.in.Close()
	if rerr := s.ReadCloser.Close(); err == nil {
		err = rerr
	}
	return err
}

// newAPI starts a model API in sb that answers testModel with r.
func newAPI(t *testing.T, sb *Sandbox, r modelapi.Responder) *modelapi.Server {
	return sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{testModel: r}})
}

// startCLI starts the CLI over stdio in sb, against api. A missing CLI fails
// the test: these tests are the point of installing it.
func startCLI(t *testing.T, sb *Sandbox, api *modelapi.Server, extra ...string) *cli {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	env := OfflineEnv(t, api.URL())
	c := &cli{t: t, notes: newRecorder(), stderr: &testutil.Buffer{Max: stderrKept}, exited: make(chan struct{})}
	c.cmd = sb.Command(context.Background(), bin, ServerArgs(extra...)...)
	c.cmd.Env = env
	// An empty working directory, so the CLI reads no instruction files
	// (AGENTS.md and the like) from this repository into its prompt.
	c.cmd.Dir = t.TempDir()
	c.cmd.Stderr = c.stderr
	stdin, err := c.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.stdin = stdin
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	stream := jsonrpc2.NewBufferedStream(stdio{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, c)
	go func() {
		// Wait closes stdout, so it must not run before the reader is done
		// with it: the connection reports that by disconnecting.
		<-c.conn.DisconnectNotify()
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(c.stop)
	return c
}

// Handle records notifications. It runs on jsonrpc2's read loop, so it only
// appends. The CLI 1.0.102 sends no requests; one would be answered "method
// not found" from another goroutine, because a write from the read loop can
// deadlock against a peer that is itself blocked writing to us.
func (c *cli) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	n := note{Method: req.Method, At: time.Now()}
	if req.Params != nil {
		n.Params = append(json.RawMessage(nil), *req.Params...)
	}
	var p struct {
		SessionID string `json:"sessionId"`
		Type      string `json:"type"`
		Event     struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		} `json:"event"`
	}
	_ = json.Unmarshal(n.Params, &p)
	n.SessionID, n.Type, n.Data = p.SessionID, p.Type, p.Event.Data
	if req.Method == "session.event" {
		n.Type = p.Event.Type
	}
	c.notes.add(n)
	if !req.Notif {
		c.replies.Add(1)
		go func() {
			defer c.replies.Done()
			_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{
				Code: jsonrpc2.CodeMethodNotFound, Message: "test client handles no requests: " + req.Method})
		}()
	}
}

// call makes a request with the hang guard.
func (c *cli) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if params == nil {
		params = map[string]any{}
	}
	return c.conn.Call(ctx, method, params, result)
}

func (c *cli) mustCall(t *testing.T, method string, params, result any) {
	t.Helper()
	if err := c.call(method, params, result); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", method, err, c.stderr)
	}
}

// stop closes stdin (the CLI exits by itself) and kills it if it lingers.
func (c *cli) stop() {
	_ = c.conn.Close()
	c.replies.Wait()
	select {
	case <-c.exited:
		return
	case <-time.After(10 * time.Second):
	}
	c.t.Logf("CLI did not exit 10 s after stdin closed; killing it")
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// createSession creates a streaming session with no built-in tools and
// returns its id, waiting for its session.start event.
func (c *cli) createSession(t *testing.T, id string, extra map[string]any) string {
	t.Helper()
	params := map[string]any{"model": testModel, "streaming": true, "availableTools": []string{}}
	if id != "" {
		params["sessionId"] = id
	}
	for k, v := range extra {
		params[k] = v
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	c.mustCall(t, "session.create", params, &res)
	if id != "" && res.SessionID != id {
		t.Fatalf("session.create returned id %q, want the client's %q", res.SessionID, id)
	}
	c.notes.waitFrom(t, 0, "session.start", isEvent(res.SessionID, "session.start"))
	return res.SessionID
}

// eventTypes lists the session.event types among notes for sid.
func eventTypes(notes []note, sid string) []string {
	var out []string
	for _, n := range notes {
		if n.Method == "session.event" && n.SessionID == sid {
			out = append(out, n.Type)
		}
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func joinDeltas(notes []note, sid string) (string, int) {
	var b strings.Builder
	n := 0
	for _, x := range notes {
		if x.Method == "session.event" && x.SessionID == sid && x.Type == "assistant.message_delta" {
			var d struct {
				DeltaContent string `json:"deltaContent"`
			}
			_ = json.Unmarshal(x.Data, &d)
			b.WriteString(d.DeltaContent)
			n++
		}
	}
	return b.String(), n
}
