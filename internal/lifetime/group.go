// Package lifetime holds Group: goroutines an owner starts and waits for at
// its teardown, refused once the teardown has begun.
//
// Both the SDK's client and the simulated server start work on goroutines
// that must not outlive them (a tool handler, a request's answer), and both
// need the same guarantee: nothing is started after Close began, and Close
// returns only once everything started has ended. A bare sync.WaitGroup
// cannot give the first half (Add after Wait has begun is a misuse), so the
// start and the closing flag share one mutex here.
package lifetime

import "sync"

// Group runs goroutines until it is closed. The zero value is ready to use.
//
// Go never blocks; Close blocks until every goroutine Go started has
// returned. A goroutine may call Go (it is refused once closing), but must
// not call Close: Close would wait for the caller itself.
type Group struct {
	mu      sync.Mutex
	closing bool
	wg      sync.WaitGroup
}

// Go starts fn on a goroutine and reports true, or reports false without
// starting it once Close has been called.
func (g *Group) Go(fn func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return false
	}
	g.wg.Go(fn)
	return true
}

// Close refuses every later Go and waits for the goroutines already started.
// It may be called more than once, from several goroutines; each call waits.
func (g *Group) Close() {
	g.mu.Lock()
	g.closing = true
	g.mu.Unlock()
	g.wg.Wait()
}

// Closing reports whether Close has been called.
func (g *Group) Closing() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closing
}
