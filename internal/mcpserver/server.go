package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/internal/config"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// Options configure a Server.
type Options struct {
	// Connect starts the CLI (or the simulator); it is called on the first
	// call that needs models, and again after the CLI died.
	Connect Connector
	// Settings are the user's quorum configuration: the defaults of every
	// tool's arguments (models, moderator, review, reviewers, rounds, phase
	// timeout, timeout, concurrency).
	Settings config.Settings
	// Simulated says that Connect serves the simulator: results are
	// labelled simulated.
	Simulated bool
	// SimDefaults, for a simulated server whose settings name no models,
	// picks the participants and the moderator among those offered.
	SimDefaults func(offered []string) (models []string, moderator string, ok bool)
	// Dir is where review runs git diff and reads context files; nothing
	// outside it is read. "" means the process's working directory.
	Dir string
	// MaxCalls bounds the tool calls that run models at once; the others
	// wait for a slot. Default: Settings.Concurrency, else 8.
	MaxCalls int
	// CloseTimeout bounds how long a cancelled call waits for its turns to
	// be aborted and its sessions deleted. Default 10s.
	CloseTimeout time.Duration
	// Logger receives the server's logs. Default: none.
	Logger *slog.Logger
	// Version is the server's version, reported to clients.
	Version string
}

// Server is the quorum MCP server. Serve it over stdio with ServeStdio,
// over Streamable HTTP with Handler or ServeHTTP, or connect any transport
// to MCP(); then Close it.
type Server struct {
	opts  Options
	log   *slog.Logger
	mcp   *mcp.Server
	clis  *clis
	slots chan struct{}

	// base is the parent of every call's context: Close cancels it.
	base   context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	calls  sync.WaitGroup
}

// New returns a server with its tools; nothing starts until a call needs
// the CLI.
func New(opts Options) (*Server, error) {
	if opts.Connect == nil {
		return nil, errors.New("mcpserver: Options.Connect is required")
	}
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = opts.Settings.Concurrency
	}
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = 8
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = 10 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, slots: make(chan struct{}, opts.MaxCalls)}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.clis = newCLIs(opts.Connect, log)
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "quorum", Title: "quorum", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       log,
	})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	s.mcp.AddReceivingMiddleware(explainArguments)
	return s, nil
}

// instructions tell the client's model what the server is for.
const instructions = `quorum runs several GitHub Copilot models on one question at once. ` +
	`Consult it when a second (and third) opinion helps: discuss for a question (answers, anonymous peer review, a synthesis), ` +
	`plan for a task (proposals, votes, the winning plan), debate for a claim (for and against, objections, a verdict), ` +
	`review for a code change (findings merged across models), ask for one model, models for the model ids. ` +
	`Each result has structured content (the same JSON as quorum's -o json) and a Markdown report.`

// MCP returns the SDK server, to connect a transport of one's own.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// CLIStarts is how many times the server started a CLI (or the
// simulator): 1 for a server whose CLI never died.
func (s *Server) CLIStarts() int { return s.clis.startCount() }

// Close cancels every call, waits for each to return (its sessions
// deleted) and stops the CLI. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.calls.Wait()
	s.clis.close()
	return nil
}

// ServeStdio serves one client on t (for quorum mcp, an IOTransport on
// the process's stdin and stdout) until the client disconnects or ctx
// ends, then closes the server. Nothing but the protocol is written to
// the transport; no response goes out for a request the client
// cancelled.
func (s *Server) ServeStdio(ctx context.Context, t mcp.Transport) error {
	// Cancel the calls before the SDK's session waits for them to return.
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	err := s.mcp.Run(ctx, dropCancelled(t))
	s.Close()
	if ctx.Err() != nil {
		return nil // asked to stop: not a failure
	}
	return err
}

// call is one tool call in flight.
type call struct {
	s    *Server
	tool string
	req  *mcp.CallToolRequest
	// progress, if set, reports the run's steps to the client.
	progress *progress
}

// begin registers a call and returns its context, which ends with the
// request's (a cancelled notification, a disconnect) and with Close.
func (s *Server) begin(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errServerClosed
	}
	s.calls.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.base, func() { cancel(errServerClosed) })
	return ctx, func() { stop(); cancel(nil); s.calls.Done() }, nil
}

// slot waits for one of the MaxCalls slots; release gives it back.
func (s *Server) slot(ctx context.Context, tool string) (release func(), err error) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	default:
	}
	s.log.Info("a call waits for a free slot", "tool", tool, "running", s.opts.MaxCalls)
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// toolFunc is a tool's code: it returns the result (nil with a tool error
// when the arguments were refused) and the text beside it.
type toolFunc[In, Out any] func(ctx context.Context, c *call, in In) (*mcp.CallToolResult, Out, error)

// handler wraps a tool's code with what every call needs: registration for
// Close, a panic turned into a tool error, and a log line for the end of a
// failed call.
func handler[In, Out any](s *Server, name string, f toolFunc[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		ctx, end, err := s.begin(ctx)
		if err != nil {
			return nil, out, err
		}
		defer end()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("a tool call panicked", "tool", name, "panic", sanitize.Line(fmt.Sprint(p)), "stack", string(debug.Stack()))
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("quorum's %s tool failed unexpectedly (%v); this is a bug in quorum: please report it, with the server's log", name, p)
			}
		}()
		c := &call{s: s, tool: name, req: req, progress: newProgress(ctx, req)}
		res, out, err = f(ctx, c, in)
		if err != nil {
			s.log.Info("a tool call was refused", "tool", name, "error", sanitize.Line(err.Error()))
		} else if res != nil && res.IsError {
			s.log.Info("a tool call failed", "tool", name)
		}
		return res, out, err
	}
}
