package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// Connector connects to a Copilot CLI: starts it as a child and checks its
// login, or serves the simulator in-process. release stops what it started.
// Its error is told to the caller as it is, so it should say what to do
// (install the CLI, copilot login, --sim).
type Connector func(ctx context.Context) (c *copilot.Client, release func(), err error)

// errServerClosed is the error of a call that needs the CLI after Close.
var errServerClosed = errors.New("the quorum MCP server is shutting down; start it again and repeat the call")

// clis keeps the one CLI of the server's life: started on first use, shared
// by every call, and replaced on the next use after it died.
type clis struct {
	connect Connector
	log     *slog.Logger

	mu       sync.Mutex
	cur      *cliInstance
	starting chan struct{} // closed when the start under way ends; nil if none
	closed   bool
	starts   int
	stop     chan struct{} // closed by close: watchers return
	watchers sync.WaitGroup
}

// cliInstance is one started CLI.
type cliInstance struct {
	client  *copilot.Client
	release func()
	// dead is closed when its connection ended (the child exited or
	// stopped answering).
	dead <-chan struct{}
}

func newCLIs(connect Connector, log *slog.Logger) *clis {
	return &clis{connect: connect, log: log, stop: make(chan struct{})}
}

// isDead reports whether the instance's connection has ended.
func (i *cliInstance) isDead() bool {
	select {
	case <-i.dead:
		return true
	default:
		return false
	}
}

// get returns the running CLI, starting one if there is none. Concurrent
// callers share one start: the CLI is started once, not once per call.
func (s *clis) get(ctx context.Context) (*cliInstance, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errServerClosed
		}
		if s.cur != nil && !s.cur.isDead() {
			inst := s.cur
			s.mu.Unlock()
			return inst, nil
		}
		if ch := s.starting; ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
				continue // started, or failed: look again
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		ch := make(chan struct{})
		s.starting = ch
		s.mu.Unlock()
		return s.start(ctx, ch)
	}
}

// start runs the connector for the start that ch marks and ends that
// start however the connector returns (a panic included), so that the
// calls waiting for it look again rather than wait for ever. A CLI that
// started is published in the same critical section that ends the start:
// a call woken by the end finds it. (Ending the start first, and
// publishing after, let a woken call find neither a CLI nor a start under
// way, and start a second child.)
func (s *clis) start(ctx context.Context, ch chan struct{}) (*cliInstance, error) {
	ended := false
	defer func() {
		if !ended { // the connector failed or panicked
			s.mu.Lock()
			s.starting = nil
			close(ch)
			s.mu.Unlock()
		}
	}()
	c, release, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.starting = nil
	close(ch)
	ended = true
	if s.closed { // closed while starting: nobody will stop it but us
		s.mu.Unlock()
		release()
		return nil, errServerClosed
	}
	inst := &cliInstance{client: c, release: release, dead: c.Router().Done()}
	s.cur = inst
	s.starts++
	again := s.starts > 1
	s.watchers.Add(1)
	s.mu.Unlock()
	if again {
		s.log.Info("the Copilot CLI was started again")
	}
	go s.watch(inst)
	return inst, nil
}

// watch releases an instance whose connection ended, so that a dead child
// is reaped at once rather than at the next call, and logs why it ended.
func (s *clis) watch(inst *cliInstance) {
	defer s.watchers.Done()
	select {
	case <-inst.dead:
	case <-s.stop:
		return // close releases it
	}
	s.mu.Lock()
	mine := s.cur == inst
	if mine {
		s.cur = nil
	}
	s.mu.Unlock()
	if !mine {
		return
	}
	msg := "connection closed"
	if err := inst.client.Router().Err(); err != nil {
		msg = err.Error()
	}
	s.log.Warn("the Copilot CLI stopped; the calls on it fail, and the next call starts a new one", "cause", sanitize.Line(msg))
	inst.release()
}

// startCount is how many times a CLI was started.
func (s *clis) startCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starts
}

// close stops the CLI and waits for the watchers. Calls must have ended
// first (Server.Close sees to it), so nothing uses the client any more.
func (s *clis) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	inst := s.cur
	s.cur = nil
	close(s.stop)
	s.mu.Unlock()
	s.watchers.Wait()
	if inst != nil {
		inst.release()
	}
}
