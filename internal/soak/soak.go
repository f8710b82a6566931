// Package soak is a development tool, not on the production path: it runs
// waves of sessions against the simulated Copilot CLI, with faults, and
// checks that what the client holds returns to its baseline and that what
// it saw adds up. internal/cmd/soak runs it for minutes; its test runs a
// short version in CI.
//
// Each wave opens a client on a fresh simulator, runs Sessions sessions
// concurrently and ends them, under one fault:
//
//   - plain: stream, then delete;
//   - cancel: half the turns are cancelled mid-stream, then every session
//     runs a second turn (a cancelled turn must leave the session usable);
//   - duplicates: the simulator sends events twice (same id), as the real
//     CLI does under load; each session's deltas must still join to its
//     reply exactly;
//   - slow: a third of the consumers dawdle on every delta; none may fail,
//     and the others are not held up;
//   - crash: the connection is cut mid-stream; every waiter must be
//     released with copilot.ErrStopped;
//   - stop: the CLI stops answering (nothing arrives); Liveness must
//     release every waiter with copilot.ErrUnresponsive.
//
// After every wave the client and simulator are closed, and the process's
// goroutines and live heap are measured after a GC. A run fails when a
// wave's own checks fail, or when goroutines or heap do not come back to
// the baseline measured after the first wave.
package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// Config says how long and how hard to soak.
type Config struct {
	// Duration is how long to run waves; at least one of each fault runs.
	Duration time.Duration
	// Sessions is how many sessions each wave runs at once. Default 32.
	Sessions int
	// Chunks is how many deltas each reply streams. Default 40.
	Chunks int
	// Report, if set, gets one line per wave.
	Report io.Writer
	// OnWave, if set, is called with each wave once it is measured. Run
	// keeps no record of its waves (a long run would grow the very heap it
	// measures): keep what you need here.
	OnWave func(Wave)
}

// Summary is what a run did: how many waves, the first (the baseline) and
// the last.
type Summary struct {
	Waves       int
	First, Last Wave
}

// Wave is what one wave did and left behind.
type Wave struct {
	N          int
	Fault      string
	Sessions   int
	Turns      int // turns that completed with the full reply
	Released   int // turns ended by the fault, with the error the fault must cause
	Goroutines int // after the wave, after a GC
	HeapBytes  uint64
	Elapsed    time.Duration
	// The wave's router's counters at its end: every message it read, those
	// routed to a session, those dropped (router.Stats DroppedUnknown plus
	// DroppedRefused), and the answers it could not queue.
	Read, Routed, Dropped, RepliesFailed uint64
}

func (w Wave) String() string {
	return fmt.Sprintf("wave %3d %-10s sessions %4d  turns ok %4d  released %4d  read %6d  routed %6d  dropped %4d  goroutines %4d  heap %6.1f MiB  %v",
		w.N, w.Fault, w.Sessions, w.Turns, w.Released, w.Read, w.Routed, w.Dropped, w.Goroutines, float64(w.HeapBytes)/(1<<20), w.Elapsed.Round(time.Millisecond))
}

// faults are the waves, in the order they rotate.
var faults = []struct {
	name string
	run  func(ctx context.Context, cfg Config, w *Wave) error
}{
	{"plain", plainWave},
	{"cancel", cancelWave},
	{"duplicates", duplicatesWave},
	{"slow", slowWave},
	{"crash", crashWave},
	{"stop", stopWave},
}

// Run soaks until cfg.Duration has passed and every fault ran once, or ctx
// ends. It returns what it did, and an error when a check failed.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Sessions <= 0 {
		cfg.Sessions = 32
	}
	if cfg.Chunks <= 0 {
		cfg.Chunks = 40
	}
	var sum Summary
	start := time.Now()
	for n := 0; n < len(faults) || time.Since(start) < cfg.Duration; n++ {
		if ctx.Err() != nil {
			break
		}
		f := faults[n%len(faults)]
		w := Wave{N: n, Fault: f.name, Sessions: cfg.Sessions}
		began := time.Now()
		if err := f.run(ctx, cfg, &w); err != nil {
			return sum, fmt.Errorf("wave %d (%s): %w", n, f.name, err)
		}
		w.Elapsed = time.Since(began)
		w.Goroutines, w.HeapBytes = settle()
		if cfg.Report != nil {
			fmt.Fprintln(cfg.Report, w)
		}
		if cfg.OnWave != nil {
			cfg.OnWave(w)
		}
		if n == 0 {
			sum.First = w
		}
		sum.Waves, sum.Last = n+1, w
	}
	if sum.Waves == 0 {
		return sum, ctx.Err()
	}
	return sum, checkBaseline(sum.First, sum.Last)
}

// settle measures goroutines and live heap once they stop falling: Close
// returns once the client's goroutines have ended, but the simulator's
// and the wave's own may take a moment longer.
func settle() (goroutines int, heap uint64) {
	goroutines = runtime.NumGoroutine()
	for still := 0; still < 3; {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n < goroutines {
			still = 0
		} else {
			still++
		}
		goroutines = n
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return goroutines, ms.HeapAlloc
}

// checkBaseline fails when the last wave left more than a handful of
// goroutines, or more than twice the heap (plus slack for the allocator's
// own caches), than the first.
func checkBaseline(base, last Wave) error {
	if last.Goroutines > base.Goroutines+8 {
		return fmt.Errorf("goroutines did not return to baseline: %d after the last wave, %d after the first", last.Goroutines, base.Goroutines)
	}
	if last.HeapBytes > 2*base.HeapBytes+16<<20 {
		return fmt.Errorf("heap did not return to baseline: %d bytes after the last wave, %d after the first", last.HeapBytes, base.HeapBytes)
	}
	return nil
}

// text is the reply of session i: distinct per session and per turn, so a
// delta delivered twice or to the wrong session shows.
func text(i, turn, chunks int) string {
	var b strings.Builder
	for c := 0; c < chunks; c++ {
		fmt.Fprintf(&b, "<%d.%d.%d>", i, turn, c)
	}
	return b.String()
}

// env is one wave's simulator and client.
type env struct {
	srv    *sim.Server
	client *copilot.Client
	conn   *sim.Conn
}

// setup is how a wave's simulator and client are made.
type setup struct {
	sim    sim.Options
	client copilot.Options
	// paced streams a chunk a millisecond, so that a fault lands while
	// turns run; otherwise the model streams as fast as it can.
	paced bool
	// wrap, if set, wraps the client's end of the connection.
	wrap func(io.ReadWriteCloser) io.ReadWriteCloser
}

// open starts a simulator whose model streams text(i, turn) for the
// prompt "i turn", and a client on it.
func open(ctx context.Context, cfg Config, st setup) (*env, error) {
	chunks := cfg.Chunks
	st.sim.Models = []sim.Model{{ID: "soak", Respond: func(t sim.Turn) sim.Response {
		var i, turn int
		fmt.Sscanf(t.Prompt, "%d %d", &i, &turn)
		return sim.Response{Text: text(i, turn, chunks), Chunks: chunks}
	}}}
	if st.paced {
		st.sim.Models = sim.Paced(st.sim.Models, time.Millisecond, time.Millisecond)
	}
	srv := sim.NewServer(st.sim)
	rwc, conn := srv.DialConn()
	if st.wrap != nil {
		rwc = st.wrap(rwc)
	}
	c, err := copilot.Connect(ctx, rwc, st.client)
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &env{srv: srv, client: c, conn: conn}, nil
}

// close ends the wave's client and simulator, keeping the router's
// counters in w.
func (e *env) close(w *Wave) {
	st := e.client.Router().Stats()
	w.Read, w.Routed, w.Dropped, w.RepliesFailed = st.Read(), st.Routed, st.DroppedUnknown+st.DroppedRefused, st.RepliesFailed
	e.client.Close()
	e.srv.Close()
}

// turn runs turn number `turn` of session i on s and checks that its
// deltas join to its reply and the reply is what the model sent.
func turn(ctx context.Context, s *copilot.Session, i, n, chunks int, onDelta func()) error {
	var streamed strings.Builder
	r, err := s.Stream(ctx, fmt.Sprintf("%d %d", i, n), copilot.TurnHandlers{OnDelta: func(d string) {
		streamed.WriteString(d)
		if onDelta != nil {
			onDelta()
		}
	}})
	if err != nil {
		return err
	}
	want := text(i, n, chunks)
	if r.Text != want || streamed.String() != want {
		return fmt.Errorf("session %d turn %d: reply %d bytes, deltas %d bytes, want %d of each", i, n, len(r.Text), streamed.Len(), len(want))
	}
	return nil
}

// each runs fn for every session concurrently, on sessions it creates and
// deletes, and gathers the errors fn returns.
func each(ctx context.Context, e *env, n int, cfg copilot.SessionConfig, fn func(i int, s *copilot.Session) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := e.client.NewSession(ctx, cfg)
			if err != nil {
				errs[i] = err
				return
			}
			defer func() {
				dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = s.Delete(dctx) // may fail after a crash: the client then owns nothing of it
			}()
			errs[i] = fn(i, s)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// counted is a thread-safe counter for the wave's tallies.
type counted struct {
	mu sync.Mutex
	n  *int
}

func (c *counted) add() {
	c.mu.Lock()
	*c.n++
	c.mu.Unlock()
}

// leftovers checks that a wave that ended its sessions left none on the
// simulator and no route on the client, and that the router's counters add
// up to what the simulator wrote.
func leftovers(ctx context.Context, e *env) error {
	if live := e.srv.LiveSessions(); len(live) != 0 {
		return fmt.Errorf("%d sessions left on the simulator after delete", len(live))
	}
	if n := e.client.Router().Stats().Sessions; n != 0 {
		return fmt.Errorf("%d routes left on the client after delete", n)
	}
	return countersAddUp(ctx, e)
}

// countersAddUp checks that the router counted every message the simulator
// wrote exactly once (Stats.Read sums the counters each message lands in),
// that none was malformed and that every answer was queued. The two sides
// count at slightly different moments (the simulator once its write
// returned, the router once it handled what it read), so they are
// compared until they agree, within a bound: a message lost or counted
// twice never agrees.
func countersAddUp(ctx context.Context, e *env) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		st, sent := e.client.Router().Stats(), e.srv.Stats().Sent
		if st.Read() == uint64(sent) {
			if st.Malformed != 0 || st.RepliesFailed != 0 {
				return fmt.Errorf("router counters: %d malformed, %d answers not queued: %+v", st.Malformed, st.RepliesFailed, st)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the router counted %d messages read, the simulator wrote %d: %+v", st.Read(), sent, st)
		case <-time.After(time.Millisecond):
		}
	}
}

// steadyWave runs a wave whose sessions all end normally: a simulator
// and client made with st, fn on every session, then check (if set), and
// nothing left behind with the counters adding up (leftovers).
func steadyWave(ctx context.Context, cfg Config, w *Wave, st setup, fn func(i int, s *copilot.Session) error, check func(e *env) error) error {
	e, err := open(ctx, cfg, st)
	if err != nil {
		return err
	}
	defer e.close(w)
	if err := each(ctx, e, cfg.Sessions, copilot.SessionConfig{Model: "soak"}, fn); err != nil {
		return err
	}
	if check != nil {
		if err := check(e); err != nil {
			return err
		}
	}
	return leftovers(ctx, e)
}

func plainWave(ctx context.Context, cfg Config, w *Wave) error {
	ok := counted{n: &w.Turns}
	return steadyWave(ctx, cfg, w, setup{}, func(i int, s *copilot.Session) error {
		if err := turn(ctx, s, i, 0, cfg.Chunks, nil); err != nil {
			return err
		}
		ok.add()
		return nil
	}, nil)
}

func cancelWave(ctx context.Context, cfg Config, w *Wave) error {
	ok, released := counted{n: &w.Turns}, counted{n: &w.Released}
	return steadyWave(ctx, cfg, w, setup{}, func(i int, s *copilot.Session) error {
		if i%2 == 0 {
			tctx, cancel := context.WithCancel(ctx)
			deltas := 0
			err := turn(tctx, s, i, 0, cfg.Chunks, func() {
				if deltas++; deltas == cfg.Chunks/4 {
					cancel()
				}
			})
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("session %d: a cancelled turn ended with %w", i, err)
			}
			released.add()
		}
		if err := turn(ctx, s, i, 1, cfg.Chunks, nil); err != nil {
			return fmt.Errorf("the turn after a cancelled one: %w", err)
		}
		ok.add()
		return nil
	}, nil)
}

func duplicatesWave(ctx context.Context, cfg Config, w *Wave) error {
	ok := counted{n: &w.Turns}
	var mu sync.Mutex
	var dropped int64
	return steadyWave(ctx, cfg, w, setup{sim: sim.Options{RepeatEvents: 3, RepeatDistance: 5}}, func(i int, s *copilot.Session) error {
		if err := turn(ctx, s, i, 0, cfg.Chunks, nil); err != nil {
			return err
		}
		ok.add()
		mu.Lock()
		dropped += s.Channel().Duplicates() // the turn is over: the channel may be handed over
		mu.Unlock()
		return nil
	}, func(*env) error {
		if dropped == 0 {
			return errors.New("the simulator repeated no event: the wave tested nothing")
		}
		return nil
	})
}

func slowWave(ctx context.Context, cfg Config, w *Wave) error {
	ok := counted{n: &w.Turns}
	return steadyWave(ctx, cfg, w, setup{}, func(i int, s *copilot.Session) error {
		var dawdle func()
		if i%3 == 0 {
			dawdle = func() { time.Sleep(time.Millisecond) }
		}
		if err := turn(ctx, s, i, 0, cfg.Chunks, dawdle); err != nil {
			return err
		}
		ok.add()
		return nil
	}, func(e *env) error {
		if fb := e.client.Router().Stats().FellBehind; fb != 0 {
			return fmt.Errorf("%d slow sessions fell behind", fb)
		}
		return nil
	})
}

// faultWave starts every session's turn, waits until each has streamed,
// injects the fault, and checks every turn was released with want.
func faultWave(ctx context.Context, cfg Config, w *Wave, e *env, inject func(), want error) error {
	released := counted{n: &w.Released}
	var started sync.WaitGroup
	started.Add(cfg.Sessions)
	var once sync.Once
	go func() {
		started.Wait()
		once.Do(inject)
	}()
	// The model streams slowly enough that the fault lands mid-turn.
	err := each(ctx, e, cfg.Sessions, copilot.SessionConfig{Model: "soak"}, func(i int, s *copilot.Session) error {
		first := true
		err := turn(ctx, s, i, 0, cfg.Chunks, func() {
			if first {
				first = false
				started.Done()
			}
		})
		if first { // no delta came before the fault
			started.Done()
		}
		if err == nil {
			return nil // finished before the fault: allowed, not counted
		}
		if !errors.Is(err, want) {
			return fmt.Errorf("session %d: released with %v, want %v", i, err, want)
		}
		released.add()
		return nil
	})
	once.Do(inject)
	return err
}

func crashWave(ctx context.Context, cfg Config, w *Wave) error {
	e, err := open(ctx, cfg, setup{paced: true})
	if err != nil {
		return err
	}
	defer e.close(w)
	return faultWave(ctx, cfg, w, e, func() { _ = e.conn.CloseAbruptly() }, copilot.ErrStopped)
}

func stopWave(ctx context.Context, cfg Config, w *Wave) error {
	var gate *testutil.Freezer
	e, err := open(ctx, cfg, setup{
		paced:  true,
		client: copilot.Options{Liveness: &copilot.Liveness{Interval: 20 * time.Millisecond, Timeout: 200 * time.Millisecond}},
		wrap: func(rwc io.ReadWriteCloser) io.ReadWriteCloser {
			gate = testutil.NewFreezer(rwc)
			return gate
		},
	})
	if err != nil {
		return err
	}
	defer e.close(w)
	return faultWave(ctx, cfg, w, e, gate.Freeze, copilot.ErrUnresponsive)
}
