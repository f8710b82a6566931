package copilot

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// OnLifecycle calls fn with each session.lifecycle notification the CLI
// sends: a session created (protocol.LifecycleSessionCreated), updated
// (…Updated: a message, a rename) or deleted (…Deleted), on this client's
// connection or, for a CLI that others use too, on theirs; of any session,
// not only this client's. stop ends the calls (a delivery already under
// way may still make one); fn may call it.
//
// Listeners run one at a time, in the order the notifications came, on a
// goroutine of the client's that reads nothing else: a slow fn never holds
// up the connection, but while it runs the notifications wait in a bounded
// buffer (router.Config's), and one that falls behind by all of it loses
// the notifications that overflowed (logged), then gets the next ones
// again. A panic in fn is logged. CLI 1.0.102 sends each lifecycle
// notification twice (the same type, the same session): treat them as
// news that something changed, not as a count.
func (c *Client) OnLifecycle(fn func(protocol.LifecycleNotification)) (stop func()) {
	return c.lifecycle.add(fn)
}

// lifecycleListeners are the OnLifecycle functions of a client. mu is not
// held while one runs, so that it may stop itself or add another.
type lifecycleListeners struct {
	mu    sync.Mutex
	next  int
	order []int // ids, oldest first
	fns   map[int]func(protocol.LifecycleNotification)
}

func (l *lifecycleListeners) add(fn func(protocol.LifecycleNotification)) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]func(protocol.LifecycleNotification){}
	}
	id := l.next
	l.next++
	l.order = append(l.order, id)
	l.fns[id] = fn
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.fns, id)
		l.order = slices.DeleteFunc(l.order, func(x int) bool { return x == id })
	}
}

// deliver calls every listener with n, in the order they were added; one
// stopped meanwhile is skipped.
func (l *lifecycleListeners) deliver(n protocol.LifecycleNotification, log func(p any)) {
	l.mu.Lock()
	ids := slices.Clone(l.order)
	l.mu.Unlock()
	for _, id := range ids {
		l.mu.Lock()
		fn := l.fns[id]
		l.mu.Unlock()
		if fn != nil {
			callListener(fn, n, log)
		}
	}
}

// callListener calls fn; its panic goes to log.
func callListener(fn func(protocol.LifecycleNotification), n protocol.LifecycleNotification, log func(p any)) {
	defer func() {
		if p := recover(); p != nil {
			log(p)
		}
	}()
	fn(n)
}

// serveLifecycle subscribes to r's session.lifecycle notifications and
// hands them to the OnLifecycle listeners until r stops or the client
// closes. A subscription that fell behind is replaced, so later
// notifications still come.
func (c *Client) serveLifecycle(r *router.Router) error {
	sub, err := r.Subscribe(protocol.NotificationSessionLifecycle)
	if err != nil {
		return err
	}
	started := c.goroutines.Go(func() {
		for {
			m, err := sub.Receive(c.ctx)
			if errors.Is(err, session.ErrFellBehind) && c.ctx.Err() == nil {
				c.log.Warn().Msg("OnLifecycle fell behind; some session.lifecycle notifications were lost")
				sub.Close()
				if sub, err = r.Subscribe(protocol.NotificationSessionLifecycle); err == nil {
					continue
				}
			}
			if err != nil {
				sub.Close()
				return // the router stopped, or the client closed
			}
			c.onLifecycle(m)
		}
	})
	if !started { // the client is closing
		sub.Close()
		return ErrClosed
	}
	return nil
}

// onLifecycle passes one notification to the listeners.
func (c *Client) onLifecycle(m session.Message) {
	var n protocol.LifecycleNotification
	if err := json.Unmarshal(m.Params, &n); err != nil {
		c.log.Warn().Err(err).Msg("a session.lifecycle notification that does not decode; skipped")
		return
	}
	c.lifecycle.deliver(n, func(p any) {
		c.log.Error().Interface("panic", p).Str("type", n.Type).Msg("an OnLifecycle listener panicked")
	})
}
