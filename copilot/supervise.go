package copilot

import (
	"errors"

	"github.com/cenkalti/backoff/v4"
)

// supervise waits for cn to die and starts a new child with
// exponential backoff, so that new sessions work again. Sessions of the
// dead child have already failed with ErrStopped and the exit cause.
func (c *Client) supervise(cn *connection) {
	// The connection is dead when its router stops: the child exited (the
	// router's cause then says how) or the connection to it broke.
	select {
	case <-cn.r.Done():
	case <-c.ctx.Done():
	}
	c.mu.Lock()
	defer close(cn.child.supervised) // callers waiting in current() look again
	if c.closed {
		c.mu.Unlock()
		return
	}
	done := make(chan struct{})
	c.restarting = done
	c.mu.Unlock()
	c.log.Warn().Err(cn.r.Err()).Msg("the Copilot CLI died; restarting it")
	cn.child.stop(0) // reap it and its group

	p := c.opts.Restart
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = p.InitialInterval, p.MaxInterval, 0
	policy := backoff.WithContext(backoff.WithMaxRetries(b, uint64(p.MaxAttempts-1)), c.ctx)
	var next *connection
	attempt := 0
	err := backoff.Retry(func() error {
		attempt++
		var err error
		next, err = c.startConnection(c.ctx)
		if err != nil {
			c.log.Warn().Err(err).Int("attempt", attempt).Msg("restarting the Copilot CLI failed")
			if errors.Is(err, ErrCLINotFound) {
				return backoff.Permanent(err)
			}
		}
		return err
	}, policy)

	c.mu.Lock()
	c.restarting = nil
	closed := c.closed || c.ctx.Err() != nil
	switch {
	case err != nil:
		c.gaveUp = true
		c.log.Error().Err(err).Msg("giving up restarting the Copilot CLI")
	case !closed:
		c.cur = next
		c.restarts++
		// Not refused: Close closes the group after it has seen closed.
		c.goroutines.Go(func() { c.supervise(next) })
	}
	c.mu.Unlock()
	close(done)
	if err == nil && closed {
		// Close ran meanwhile and is waiting for us: the new child is ours
		// to stop, or its watcher would keep Close waiting forever.
		next.close(c.opts.ShutdownTimeout)
	}
}
