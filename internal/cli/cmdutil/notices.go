package cmdutil

import (
	"context"
	"io"
	"sync"
)

// Notices carry what the process says on stderr while a command runs
// without the command's code having asked for it: the first Ctrl-C's
// "stopping…" line, said by the signal handler's goroutine. A live
// progress view redraws its lines in place by moving the cursor up over
// them, so a line written below them behind its back would leave them
// frozen on the screen; while a view is drawn, the notices go through it
// (Route). A Notices may be used from any goroutine.
type Notices struct {
	mu    sync.Mutex
	w     io.Writer
	route func(text string)
}

type noticesKey struct{}

// WithNotices returns ctx carrying a Notices that writes to w (stderr)
// until a view routes them, for the commands run under ctx.
func WithNotices(ctx context.Context, w io.Writer) (context.Context, *Notices) {
	n := &Notices{w: w}
	return context.WithValue(ctx, noticesKey{}, n), n
}

// Say shows text, a line or more without its ending newline: through the
// view that routes the notices, or on a line of its own. It does not
// wait for the view's lock to be free for long: a view holds it only
// while it draws.
func (n *Notices) Say(text string) {
	n.mu.Lock()
	route := n.route
	n.mu.Unlock()
	if route != nil {
		route(text)
		return
	}
	// The terminal echoed ^C where the cursor was: start a line below it.
	_, _ = io.WriteString(n.w, "\n"+text+"\n")
}

// RouteNotices sends the notices of ctx (none without WithNotices) to
// say until the returned function is called. A notice said just before
// that may still reach say after it: say must keep working (a closed view
// writes the text as it is).
func RouteNotices(ctx context.Context, say func(text string)) (restore func()) {
	n, _ := ctx.Value(noticesKey{}).(*Notices)
	if n == nil {
		return func() {}
	}
	n.mu.Lock()
	prev := n.route
	n.route = say
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		n.route = prev
		n.mu.Unlock()
	}
}
