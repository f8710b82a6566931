package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/quorum"
)

// guard bounds every wait of these tests: far above what a passing run
// needs, so that a bug fails rather than hangs.
const guard = 60 * time.Second

// fixture is a server on the simulator, with an in-memory client.
type fixture struct {
	srv      *sim.Server
	s        *Server
	cs       *mcp.ClientSession
	done     chan error // ServeStdio's return
	connects atomic.Int32
	closed   bool
	// conn is the client's end of the transport, to cut it as a client
	// that dies would.
	conn mcp.Connection
	// Over HTTP: the server's address, and how to stop it (its client's
	// end does not).
	url      string
	stopHTTP func()
}

// grabConn is a transport that keeps the connection it makes.
type grabConn struct {
	mcp.Transport
	conn *mcp.Connection
}

func (g *grabConn) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := g.Transport.Connect(ctx)
	*g.conn = c
	return c, err
}

// simDefaults is the quorum command's choice of simulated participants.
func simDefaults(offered []string) ([]string, string, bool) {
	for _, m := range append(slices.Clone(simquorum.Participants), simquorum.Moderator) {
		if !slices.Contains(offered, m) {
			return nil, "", false
		}
	}
	return slices.Clone(simquorum.Participants), simquorum.Moderator, true
}

// testSettings are the settings config.Load gives with nothing
// configured.
func testSettings() config.Settings {
	return config.Settings{Review: true, Rounds: 2, PhaseTimeout: 5 * time.Minute, Timeout: 15 * time.Minute, Concurrency: 8}
}

// start serves models (simquorum's when nil) on the simulator, changes the
// options with mod, and connects a client with copts over an in-memory
// transport.
func start(t *testing.T, models []sim.Model, mod func(*Options), copts *mcp.ClientOptions) *fixture {
	return startOn(t, false, models, mod, copts)
}

// startHTTP is start over Streamable HTTP on a loopback port.
func startHTTP(t *testing.T, models []sim.Model, mod func(*Options), copts *mcp.ClientOptions) *fixture {
	return startOn(t, true, models, mod, copts)
}

func startOn(t *testing.T, overHTTP bool, models []sim.Model, mod func(*Options), copts *mcp.ClientOptions) *fixture {
	t.Helper()
	if models == nil {
		models = simquorum.Models()
	}
	f := &fixture{srv: sim.NewServer(sim.Options{Models: models}), done: make(chan error, 1)}
	opts := Options{
		Connect: func(ctx context.Context) (*copilot.Client, func(), error) {
			f.connects.Add(1)
			c, err := copilot.Connect(ctx, f.srv.Dial(), copilot.Options{})
			if err != nil {
				return nil, nil, err
			}
			return c, func() { c.Close() }, nil
		},
		Settings:    testSettings(),
		Simulated:   true,
		SimDefaults: simDefaults,
		Dir:         t.TempDir(),
		Version:     "test",
	}
	if mod != nil {
		mod(&opts)
	}
	s, err := New(opts)
	if err != nil {
		f.srv.Close()
		t.Fatal(err)
	}
	f.s = s
	var ct mcp.Transport
	if overHTTP {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.Close()
			f.srv.Close()
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		f.stopHTTP = stop
		go func() { f.done <- s.ServeHTTP(ctx, ln) }()
		f.url = "http://" + ln.Addr().String() + "/"
		ct = &mcp.StreamableClientTransport{Endpoint: f.url}
	} else {
		var st mcp.Transport
		ct, st = mcp.NewInMemoryTransports()
		go func() { f.done <- s.ServeStdio(context.Background(), st) }()
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts)
	f.cs, err = client.Connect(testutil.Context(t, guard), &grabConn{Transport: ct, conn: &f.conn}, nil)
	if err != nil {
		s.Close()
		f.srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(f.close)
	return f
}

// close disconnects the client, waits for the server to end (its calls
// returned, the CLI closed) and stops the simulator.
func (f *fixture) close() {
	if f.closed {
		return
	}
	f.closed = true
	f.cs.Close()
	if f.stopHTTP != nil {
		f.stopHTTP()
	}
	select {
	case <-f.done:
	case <-time.After(guard):
		panic("the server did not end after its client disconnected")
	}
	f.srv.Close()
}

// call calls a tool and fails the test on a protocol error.
func (f *fixture) call(t *testing.T, ctx context.Context, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// text is a result's text contents, joined.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decode reads a result's structured content into v.
func decode(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// isPhase reports whether a prompt is one of phase p's.
func isPhase(prompt string, p quorum.Phase) bool {
	return strings.Contains(prompt, quorum.PromptMarker(p))
}

// scripted returns simquorum's participants and moderator with respond
// standing before their own scripts: when it returns ok, its reply is
// the model's.
func scripted(respond func(t sim.Turn) (sim.Response, bool)) []sim.Model {
	models := simquorum.Models()
	for i := range models {
		orig := models[i].Respond
		models[i].Respond = func(t sim.Turn) sim.Response {
			if r, ok := respond(t); ok {
				return r
			}
			return orig(t)
		}
	}
	return models
}

// signal is a channel that collects one value per event, never blocking
// the sender.
type signal struct{ ch chan string }

func newSignal() *signal { return &signal{ch: make(chan string, 1024)} }

func (s *signal) send(v string) {
	select {
	case s.ch <- v:
	default:
	}
}

// signalHandler is a log handler that sends each message to a signal.
type signalHandler struct{ s *signal }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	h.s.send(r.Message)
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// hangingDiscuss starts a discuss call, on a fixture served over stdio or
// HTTP, whose three answer turns hang, and returns once every one of them
// has started: the fixture, a live context, the call's cancel, and where
// the call's error comes.
func hangingDiscuss(t *testing.T, overHTTP bool) (f *fixture, ctx context.Context, cancel context.CancelFunc, errc chan error) {
	t.Helper()
	started := newSignal()
	models := scripted(func(turn sim.Turn) (sim.Response, bool) {
		if isPhase(turn.Prompt, quorum.PhaseAnswer) {
			started.send(turn.Model)
			return sim.Response{Text: "thinking…", Hang: true}, true
		}
		return sim.Response{}, false
	})
	f = startOn(t, overHTTP, models, nil, nil)
	ctx = testutil.Context(t, guard)
	callCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	errc = make(chan error, 1)
	go func() {
		_, err := f.cs.CallTool(callCtx, &mcp.CallToolParams{Name: "discuss", Arguments: map[string]any{"topic": "a long question"}})
		errc <- err
	}()
	for range 3 {
		testutil.Receive(t, "the answer turns", guard, started.ch)
	}
	return f, ctx, cancel, errc
}
