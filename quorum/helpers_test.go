package quorum_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/quorum"
)

// guard bounds waits that only a bug would make long, so a bug fails a test
// instead of hanging it. No test asserts how long anything took.
const guard = 30 * time.Second

// env is a simulated Copilot server with a client connected to it.
type env struct {
	srv  *sim.Server
	c    *copilot.Client
	b    quorum.Backend
	wire *tee
}

func newEnv(t *testing.T, models ...sim.Model) *env {
	t.Helper()
	srv := sim.NewServer(sim.Options{Models: models})
	w := &tee{ReadWriteCloser: srv.Dial()}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	c, err := copilot.Connect(ctx, w, copilot.Options{})
	if err != nil {
		srv.Close()
		t.Fatalf("connecting to the simulator: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return &env{srv: srv, c: c, b: quorum.Copilot(c), wire: w}
}

// requireClean fails unless every session is gone from the server and no
// turn runs there. Destruction after a cancelled creation finishes in the
// background, so it polls (until guard) instead of looking once.
func (e *env) requireClean(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		live, running := e.srv.LiveSessions(), e.srv.Stats().RunningTurns
		if len(live) == 0 && running == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions left on the server: %v; turns still running: %d", live, running)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tee records what the client writes to the server.
type tee struct {
	io.ReadWriteCloser
	out testutil.Buffer
}

func (t *tee) Write(p []byte) (int, error) {
	t.out.Write(p)
	return t.ReadWriteCloser.Write(p)
}

func (t *tee) written() string { return t.out.String() }

// progress records events and notices if it is ever called concurrently.
type progress struct {
	mu      sync.Mutex
	events  []quorum.Progress
	inside  atomic.Int32
	overlap atomic.Bool
	// on, if set, is called with each event (outside mu).
	on func(quorum.Progress)
}

func (p *progress) fn(ev quorum.Progress) {
	if p.inside.Add(1) > 1 {
		p.overlap.Store(true)
	}
	defer p.inside.Add(-1)
	p.mu.Lock()
	p.events = append(p.events, ev)
	p.mu.Unlock()
	if p.on != nil {
		p.on(ev)
	}
}

func (p *progress) all() []quorum.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.events)
}

func (p *progress) kinds() []quorum.ProgressKind {
	var out []quorum.ProgressKind
	for _, ev := range p.all() {
		out = append(out, ev.Kind)
	}
	return out
}

// prompts returns the prompts sent in phase, by model.
func (p *progress) prompts(phase quorum.Phase) map[string]string {
	out := map[string]string{}
	for _, ev := range p.all() {
		if ev.Kind == quorum.ModelStarted && ev.Phase == phase {
			out[ev.Model] = ev.Text
		}
	}
	return out
}

// participants are the default simulated participants plus the moderator.
func participants() []sim.Model { return simquorum.Models() }

// override returns a simulated participant whose replies in phase come
// from respond instead.
func override(id string, phase quorum.Phase, respond func(sim.Turn) sim.Response) sim.Model {
	return simquorum.Model(id).With(sim.Rule{Name: "override " + string(phase), Match: simquorum.Is(phase), Respond: respond})
}

// barrier holds callers until n have arrived (or guard passes), and
// records the most that were ever inside at once.
type barrier struct {
	n       int
	mu      sync.Mutex
	arrived int
	inside  int
	most    int
	open    chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

func (b *barrier) wait() {
	b.mu.Lock()
	b.arrived++
	b.inside++
	b.most = max(b.most, b.inside)
	if b.arrived == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
	case <-time.After(guard):
	}
	b.mu.Lock()
	b.inside--
	b.mu.Unlock()
}

func (b *barrier) max() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.most
}

// failureOf returns the failure of model in phase, if any.
func failureOf(fs []quorum.Failure, model string, phase quorum.Phase) (quorum.Failure, bool) {
	for _, f := range fs {
		if f.Model == model && f.Phase == phase {
			return f, true
		}
	}
	return quorum.Failure{}, false
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// requireNoNull fails unless v marshals to JSON without a null: lists
// are [] when empty, never null.
func requireNoNull(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "null") {
		t.Errorf("JSON result has a null: %s", b)
	}
}

func ctxGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}
