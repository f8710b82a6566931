package copilot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Liveness is how a client probes a CLI that may hang rather than die.
type Liveness struct {
	// Interval is the time between pings. Required.
	Interval time.Duration
	// Timeout is how long a ping may go unanswered before the CLI is
	// declared dead. Default: Interval. A CLI busy with many sessions
	// still answers pings promptly (its handling is not queued behind
	// turns), so a few seconds is generous.
	Timeout time.Duration
}

// watchLiveness pings cn's CLI every Interval until cn ends. A ping that
// times out stops cn's router with ErrUnresponsive, so every waiter fails
// at once; a supervisor then kills the child (a stopped process exits only
// on SIGKILL) and starts a new one.
func (c *Client) watchLiveness(cn *connection) {
	l := c.opts.Liveness
	if l == nil {
		return
	}
	c.goroutines.Go(func() { // refused: the client is closing, and so is cn
		tick := time.NewTicker(l.Interval)
		defer tick.Stop()
		rpc := protocol.NewServerRPC(cn.r)
		for {
			select {
			case <-cn.r.Done():
				return
			case <-c.ctx.Done():
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(c.ctx, l.Timeout)
			_, err := rpc.Ping(ctx, protocol.PingRequest{Message: "liveness"})
			cancel()
			if err == nil || !errors.Is(err, context.DeadlineExceeded) || c.ctx.Err() != nil {
				continue // answered, or failed for another reason the router reports itself
			}
			cause := fmt.Errorf("%w: no answer to a ping within %v", ErrUnresponsive, l.Timeout)
			c.log.Warn().Err(cause).Msg("declaring the Copilot CLI dead")
			cn.r.CloseWithError(cause)
			if cn.child != nil && c.opts.Restart == nil {
				// Unsupervised, nobody else reaps it.
				cn.child.stop(0)
			}
			return
		}
	})
}

// inactivityLimit ends a turn's context with ErrTurnInactive when no event
// came for d. Reset on every event; paused while the client itself works
// (a tool runs), since the CLI then has nothing to send.
type inactivityLimit struct {
	d     time.Duration
	timer *time.Timer
	// busy counts the client's works in progress (a tool; permission
	// policies, which run at once, on goroutines of their own): while any
	// runs, the limit is stopped, and events do not restart it. mu orders
	// the count with the timer's stops and restarts.
	mu      sync.Mutex
	busy    int
	stopped bool // the turn is over
}

// withInactivity returns ctx limited by d (d > 0), and the limit; stop
// releases it.
func withInactivity(ctx context.Context, d time.Duration) (context.Context, *inactivityLimit, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	l := &inactivityLimit{d: d}
	l.timer = time.AfterFunc(d, func() {
		cancel(fmt.Errorf("%w (%v)", ErrTurnInactive, d))
	})
	return ctx, l, func() {
		l.mu.Lock()
		l.stopped = true // a policy that returns later restarts nothing
		l.timer.Stop()
		l.mu.Unlock()
		cancel(nil)
	}
}

// seen restarts the limit: an event came.
func (l *inactivityLimit) seen() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == 0 && !l.stopped {
		l.timer.Reset(l.d)
	}
}

// pause stops the limit while the client works; resume, once per pause,
// restarts it when no work is left.
func (l *inactivityLimit) pause() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.busy++
	l.timer.Stop()
}

func (l *inactivityLimit) resume() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy--; l.busy == 0 && !l.stopped {
		l.timer.Reset(l.d)
	}
}

// turnCause is the error a turn cut short by ctx returns: ErrTurnInactive
// when the inactivity limit ended it, else ctx's own error.
func turnCause(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrTurnInactive) {
		return cause
	}
	return ctx.Err()
}
