package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

// Every handler the SDK calls gets a context that ends with its session:
// a handler blocked on it while the connection drops, the client closes or
// the session is closed is released, and the turn blocked on the handler
// returns the documented error at once — not context.Canceled, and not
// only when the caller's own context ends (the turns here have none that
// ends: hangGuard is the test's guard, never reached when all is well).

// blockedHandler is a handler of one kind, blocked on its context until
// the session ends: it says when it has started, and what its context's
// cause was once released.
type blockedHandler struct {
	started chan struct{}
	once    sync.Once
	cause   chan error
}

func newBlockedHandler() *blockedHandler {
	return &blockedHandler{started: make(chan struct{}), cause: make(chan error, 1)}
}

// block waits for ctx's end, having said so.
func (b *blockedHandler) block(ctx context.Context) {
	b.once.Do(func() { close(b.started) })
	<-ctx.Done()
	b.cause <- context.Cause(ctx)
}

// waitStarted waits for the handler to start, within the test's guard.
func (b *blockedHandler) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-b.started:
	case <-time.After(hangGuard):
		t.Fatal("the handler was never called")
	}
}

// waitCause returns the handler's context cause once it is released; the
// test fails if it is not, within the test's guard.
func (b *blockedHandler) waitCause(t *testing.T) error {
	t.Helper()
	select {
	case cause := <-b.cause:
		return cause
	case <-time.After(hangGuard):
		t.Fatal("the handler's context did not end when its session did")
		return nil
	}
}

// handlerKind configures a session whose first turn calls one handler,
// blocked.
type handlerKind struct {
	name      string
	model     func(sim.Turn) sim.Response
	configure func(*SessionConfig, *blockedHandler)
}

var blockedHandlerKinds = []handlerKind{
	{
		name:  "tool",
		model: sim.UseTool("wait", nil, reportTool),
		configure: func(cfg *SessionConfig, b *blockedHandler) {
			cfg.Permissions = ApproveAll
			cfg.Tools = []Tool{{Name: "wait", Description: "waits", Handler: func(ctx context.Context, _ ToolCall) (string, error) {
				b.block(ctx)
				return "", ctx.Err()
			}}}
		},
	},
	{
		name: "user input",
		model: sim.AskUser(sim.UserQuestion{Question: "which?", Choices: []string{"a", "b"}}, func(sim.Turn) sim.Response {
			return sim.Text("answered")
		}),
		configure: func(cfg *SessionConfig, b *blockedHandler) {
			cfg.Handlers.UserInputRequest = func(ctx context.Context, _ *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
				b.block(ctx)
				return nil, ctx.Err()
			}
		},
	},
	{
		name:  "permission policy",
		model: sim.UseTool("wait", nil, reportTool),
		configure: func(cfg *SessionConfig, b *blockedHandler) {
			cfg.Tools = []Tool{{Name: "wait", Description: "waits", Handler: func(context.Context, ToolCall) (string, error) { return "done", nil }}}
			cfg.Permissions = func(ctx context.Context, _ PermissionRequest) (PermissionDecision, error) {
				b.block(ctx)
				return PermissionDecision{}, ctx.Err()
			}
		},
	},
	{
		name:  "hook",
		model: func(sim.Turn) sim.Response { return sim.Text("answered") },
		configure: func(cfg *SessionConfig, b *blockedHandler) {
			cfg.Hooks = &Hooks{OnUserPromptSubmitted: func(ctx context.Context, _ UserPromptSubmittedInput) (*UserPromptSubmittedOutput, error) {
				b.block(ctx)
				return nil, ctx.Err()
			}}
		},
	},
	{
		// A form's handler runs on a goroutine of its own (not the one
		// that reads the session), so it is released by the session's
		// end too, not by the turn's reader.
		name: "form",
		model: func(turn sim.Turn) sim.Response {
			if turn.Elicitation == nil {
				return sim.Response{Text: "one question", Elicit: &sim.Elicitation{Message: "Which database?",
					Properties: map[string]json.RawMessage{"db": json.RawMessage(`{"type":"string"}`)}, Required: []string{"db"}}}
			}
			return sim.Text("answered")
		},
		configure: func(cfg *SessionConfig, b *blockedHandler) {
			cfg.OnElicitation = func(ctx context.Context, _ *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
				b.block(ctx)
				return nil, ctx.Err()
			}
		},
	},
}

// ending is one way a session ends under a blocked handler, and what the
// turn's error and the handler's context cause must then wrap.
type ending struct {
	name string
	end  func(t *testing.T, c *Client, srv *sim.Server, s *Session)
	want []error
}

var sessionEndings = []ending{
	{
		name: "connection closed",
		end: func(_ *testing.T, _ *Client, srv *sim.Server, _ *Session) {
			for _, cn := range srv.Conns() {
				cn.CloseAbruptly()
			}
		},
		want: []error{ErrStopped, ErrConnectionClosed},
	},
	{
		name: "client closed",
		end:  func(_ *testing.T, c *Client, _ *sim.Server, _ *Session) { c.Close() },
		want: []error{ErrStopped, ErrClosed},
	},
	{
		name: "session closed",
		end:  func(_ *testing.T, _ *Client, _ *sim.Server, s *Session) { s.Close() },
		want: []error{session.ErrClosed},
	},
}

func TestBlockedHandlerIsReleasedWhenItsSessionEnds(t *testing.T) {
	for _, kind := range blockedHandlerKinds {
		for _, e := range sessionEndings {
			t.Run(kind.name+"/"+e.name, func(t *testing.T) {
				c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", kind.model)}})
				ctx := testutil.Context(t, hangGuard)
				b := newBlockedHandler()
				cfg := SessionConfig{Model: "m"}
				kind.configure(&cfg, b)
				s, err := c.NewSession(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				errc := make(chan error, 1)
				go func() {
					_, err := s.Ask(ctx, "go")
					errc <- err
				}()
				b.waitStarted(t)
				e.end(t, c, srv, s)
				select {
				case err = <-errc:
				case <-ctx.Done():
					t.Fatal("the turn is still blocked on its handler after the session ended")
				}
				for _, want := range e.want {
					if !errors.Is(err, want) {
						t.Errorf("the turn's error %v does not wrap %v", err, want)
					}
				}
				if errors.Is(err, context.Canceled) {
					t.Errorf("the turn's error %v is context.Canceled, not the session's end", err)
				}
				cause := b.waitCause(t)
				for _, want := range e.want {
					if !errors.Is(cause, want) {
						t.Errorf("the handler's context cause %v does not wrap %v", cause, want)
					}
				}
			})
		}
	}
}

// A handler of a request that names no session (Options.Handlers) is
// released when the connection ends, with the connection's end as its
// context's cause.
func TestConnectionHandlerIsReleasedWhenTheConnectionEnds(t *testing.T) {
	srv := sim.NewServer(sim.Options{})
	t.Cleanup(func() { srv.Close() })
	b := newBlockedHandler()
	var opts Options
	opts.Handlers.UserInputRequest = func(ctx context.Context, _ *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		b.block(ctx)
		return nil, ctx.Err()
	}
	ctx := testutil.Context(t, hangGuard)
	c, err := Connect(ctx, srv.Dial(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	conns := srv.Conns()
	if len(conns) != 1 {
		t.Fatalf("%d connections on the simulator, want 1", len(conns))
	}
	// The CLI asks the connection, naming no session.
	go conns[0].Call(ctx, protocol.MethodUserInputRequest, protocol.UserInputRequestParams{Question: "anyone?"})
	b.waitStarted(t)
	conns[0].CloseAbruptly()
	if cause := b.waitCause(t); !errors.Is(cause, ErrStopped) || !errors.Is(cause, ErrConnectionClosed) {
		t.Fatalf("the handler's context cause: %v, want ErrStopped wrapping ErrConnectionClosed", cause)
	}
}

// A turn whose caller gave up has its session.abort answered by the CLI
// before Stream returns: the CLI stops spending on it even if the caller
// exits next. The model here streams, then hangs until aborted.
func TestCancelledTurnIsAbortedBeforeStreamReturns(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Always(sim.Response{Text: "partial", Hang: true}))}})
	s, err := c.NewSession(testutil.Context(t, hangGuard), SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	var once sync.Once
	_, err = s.Stream(ctx, "go", TurnHandlers{OnDelta: func(string) { once.Do(cancel) }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled turn: %v", err)
	}
	if n := srv.Calls(protocol.MethodSessionAbort); n != 1 {
		t.Fatalf("session.abort calls when Stream returned: %d, want 1", n)
	}
}
