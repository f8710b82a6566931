package router

import (
	"context"
	"slices"

	"github.com/quorum-go/quorum/session"
)

// Subscription receives global notifications (session.lifecycle and any
// method other than session.event) in the order they were read, and the
// requests that name no session among the methods it subscribed to by
// name; it must answer those (session.Message.Respond). It is buffered and
// fails with session.ErrFellBehind like a session channel, answering the
// requests it held with an error.
type Subscription struct {
	methods []string // empty: every global notification
	sink    *session.Sink
}

// Subscribe returns a subscription to the named methods, or to all global
// notifications when none are named. A request that names no session goes
// to the first subscription that named its method, never to one that
// named none: it has one answer, and a subscriber must know to give it.
// Close it when done.
func (r *Router) Subscribe(methods ...string) (*Subscription, error) {
	s := &Subscription{methods: slices.Clone(methods)}
	s.sink = r.newSink("", func(context.Context, string) error { r.unsubscribe(s); return nil })
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	r.subs = append(r.subs, s)
	return s, nil
}

// Receive returns the next notification; see session.Channel.Receive.
func (s *Subscription) Receive(ctx context.Context) (session.Message, error) {
	return s.sink.Channel().Receive(ctx)
}

// Close ends the subscription. It is idempotent.
func (s *Subscription) Close() error { return s.sink.Channel().Close(context.Background()) }

func (s *Subscription) wants(method string) bool {
	return len(s.methods) == 0 || slices.Contains(s.methods, method)
}

func (r *Router) unsubscribe(s *Subscription) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs = slices.DeleteFunc(r.subs, func(x *Subscription) bool { return x == s })
}

// publish hands a global notification to every subscriber that wants it.
func (r *Router) publish(m session.Message) {
	r.mu.Lock()
	var targets []*Subscription
	for _, s := range r.subs {
		if s.wants(m.Method) {
			targets = append(targets, s)
		}
	}
	r.mu.Unlock()
	if len(targets) == 0 {
		r.count.unsubscribed.Add(1)
		return
	}
	taken := false
	for _, s := range targets {
		taken = r.delivered(s.sink.Deliver(m)) || taken
	}
	r.countPublished(taken)
}

// publishRequest hands a request that names no session to the first
// subscription that named its method, and reports whether there was one.
func (r *Router) publishRequest(m session.Message) bool {
	r.mu.Lock()
	var target *Subscription
	for _, s := range r.subs {
		if slices.Contains(s.methods, m.Method) {
			target = s
			break
		}
	}
	r.mu.Unlock()
	if target == nil {
		return false
	}
	r.countPublished(r.delivered(target.sink.Deliver(m)))
	return true
}

// delivered counts the outcome of a delivery to a subscription, and
// reports whether the subscription took the message.
func (r *Router) delivered(d session.Delivery, refused int) bool {
	if d == session.Delivered {
		return true
	}
	r.count.requestsRefused.Add(uint64(refused))
	if d == session.Overflowed {
		r.count.fellBehind.Add(1)
	}
	return false
}

// countPublished counts a message for subscriptions once: published when
// one took it, dropped when every one it went to had failed or closed.
func (r *Router) countPublished(taken bool) {
	if taken {
		r.count.published.Add(1)
	} else {
		r.count.droppedRefused.Add(1)
	}
}
