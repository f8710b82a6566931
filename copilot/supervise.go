package copilot

import (
	"errors"

	"github.com/cenkalti/backoff/v4"
)

// supervise waits for l to die and starts a new child with
// exponential backoff, so that new sessions work again. Sessions of the
// dead child have already failed with router.ErrStopped and the exit cause.
func (c *Client) supervise(l *link) {
	defer c.wg.Done()
	// The link is dead when its router stops: the child exited (the
	// router's cause then says how) or the connection to it broke.
	select {
	case <-l.r.Done():
	case <-c.ctx.Done():
	}
	c.mu.Lock()
	defer close(l.child.supervised) // callers waiting in link() look again
	if c.closed {
		c.mu.Unlock()
		return
	}
	done := make(chan struct{})
	c.restarting = done
	c.mu.Unlock()
	c.log.Warn().Err(l.r.Err()).Msg("the Copilot CLI died; restarting it")
	l.child.stop(0) // reap it and its group

	p := c.opts.Restart
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = p.InitialInterval, p.MaxInterval, 0
	policy := backoff.WithContext(backoff.WithMaxRetries(b, uint64(p.MaxAttempts-1)), c.ctx)
	var next *link
	attempt := 0
	err := backoff.Retry(func() error {
		attempt++
		var err error
		next, err = c.startLink(c.ctx)
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
		c.wg.Add(1)
		go c.supervise(next)
	}
	c.mu.Unlock()
	close(done)
	if err == nil && closed {
		// Close ran meanwhile and is waiting for us: the new child is ours
		// to stop, or its watcher would keep Close waiting forever.
		next.r.Close()
		next.child.stop(c.opts.ShutdownTimeout)
	}
}
