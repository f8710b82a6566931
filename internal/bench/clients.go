package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/router"
)

// The jobs of this project's clients, as a user's program would run them:
// package copilot over TCP to the simulated server.

// connectQuorum connects a copilot.Client to the simulator at addr.
func connectQuorum(ctx context.Context, addr string) (*copilot.Client, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c, err := copilot.Connect(ctx, conn, copilot.Options{})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// newSessions creates n sessions of BenchModel, up to 64 at a time.
func newSessions(ctx context.Context, c *copilot.Client, n int, cfg copilot.SessionConfig) ([]*copilot.Session, error) {
	cfg.Model = BenchModel
	return newSessionsWith(ctx, c, n, cfg)
}

// newSessionsOf creates n sessions of model, up to 64 at a time.
func newSessionsOf(ctx context.Context, c *copilot.Client, n int, model string) ([]*copilot.Session, error) {
	return newSessionsWith(ctx, c, n, copilot.SessionConfig{Model: model})
}

func newSessionsWith(ctx context.Context, c *copilot.Client, n int, cfg copilot.SessionConfig) ([]*copilot.Session, error) {
	sessions := make([]*copilot.Session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	slots := make(chan struct{}, 64)
	for i := range sessions {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			sessions[i], errs[i] = c.NewSession(ctx, cfg)
		}()
	}
	wg.Wait()
	return sessions, errors.Join(errs...)
}

// withSessions connects to the simulator, creates job.Sessions sessions
// and runs f with them. before, if not nil, runs once connected, before
// the creations.
func withSessions(ctx context.Context, job Job, before func(), f func([]*copilot.Session) (Result, error)) (Result, error) {
	c, err := connectQuorum(ctx, job.Addr)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	if before != nil {
		before()
	}
	sessions, err := newSessions(ctx, c, job.Sessions, copilot.SessionConfig{})
	if err != nil {
		return Result{}, err
	}
	return f(sessions)
}

// quorumStream streams one turn of every session at once and measures
// the streaming phase.
func quorumStream(ctx context.Context, job Job) (Result, error) {
	return withSessions(ctx, job, nil, func(sessions []*copilot.Session) (Result, error) {
		return stream(ctx, job, sessions)
	})
}

func stream(ctx context.Context, job Job, sessions []*copilot.Session) (Result, error) {
	var res Result
	var events, text atomic.Int64
	h := copilot.TurnHandlers{
		OnDelta: func(d string) { text.Add(int64(len(d))) },
		OnEvent: func(ev copilot.Event) {
			// A session's session.start, sent at its creation, may still
			// be waiting when its turn begins: not an event of the turn.
			if ev.Type != protocol.EventSessionStart {
				events.Add(1)
			}
		},
	}
	m := startMeter()
	err := each(sessions, func(_ int, s *copilot.Session) error {
		_, err := s.Stream(ctx, Prompt(job.Chunks), h)
		return err
	})
	m.stop(&res)
	res.Events = events.Load()
	if want := int64(20 * job.Chunks * job.Sessions); err == nil && text.Load() < want {
		err = fmt.Errorf("bench: %d bytes of text streamed, want %d", text.Load(), want)
	}
	return res, err
}

// each runs f for every session at once and returns the errors.
func each(sessions []*copilot.Session, f func(int, *copilot.Session) error) error {
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i, s)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// quorumIsolation streams a turn of every session at once, session 0's
// consumer blocked and session 1's taking SlowDelay per event (none of that
// in the control run, SlowDelay zero), and measures how long the others
// take: the slowest of them, from the start of all turns.
func quorumIsolation(ctx context.Context, job Job) (Result, error) {
	return withSessions(ctx, job, nil, func(sessions []*copilot.Session) (Result, error) {
		return isolation(ctx, job, sessions)
	})
}

func isolation(ctx context.Context, job Job, sessions []*copilot.Session) (res Result, err error) {
	release := make(chan struct{})
	troubled, cancelTroubled := context.WithCancel(ctx)
	defer cancelTroubled()
	others := make(chan time.Duration, len(sessions))
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range sessions {
		h := copilot.TurnHandlers{}
		turnCtx := ctx
		switch {
		case job.SlowDelay > 0 && i == 0:
			h.OnEvent = func(copilot.Event) {
				select {
				case <-release:
				case <-troubled.Done():
				}
			}
			turnCtx = troubled
		case job.SlowDelay > 0 && i == 1:
			h.OnEvent = func(copilot.Event) { time.Sleep(job.SlowDelay) }
			turnCtx = troubled
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Stream(turnCtx, Prompt(job.Chunks), h)
			if i >= 2 {
				if err != nil {
					others <- -1
					return
				}
				others <- time.Since(start)
			}
		}()
	}
	timeout := time.NewTimer(job.Patience)
	defer timeout.Stop()
	for range len(sessions) - 2 {
		select {
		case d := <-others:
			if d < 0 {
				err = errors.New("bench: a session neither slow nor blocked failed its turn")
			}
			res.Wall = max(res.Wall, d)
		case <-timeout.C:
			res.Stalled = true
		}
		if res.Stalled {
			break
		}
	}
	close(release)
	cancelTroubled()
	wg.Wait()
	return res, err
}

// quorumIdle creates Sessions sessions and leaves them idle; it reports
// the goroutines and heap each costs.
func quorumIdle(ctx context.Context, job Job) (Result, error) {
	var f0 footprint
	return withSessions(ctx, job, func() { f0 = idleFootprint() }, func(sessions []*copilot.Session) (Result, error) {
		var res Result
		perSession(&res, f0, idleFootprint(), job.Sessions)
		runtime.KeepAlive(sessions)
		return res, nil
	})
}

// routerIdle is quorumIdle for package router alone: each session created
// with router.Create and its session.start read, so that nothing waits.
func routerIdle(ctx context.Context, job Job) (Result, error) {
	var res Result
	conn, err := net.Dial("tcp", job.Addr)
	if err != nil {
		return res, err
	}
	r, err := router.New(conn, router.Config{})
	if err != nil {
		conn.Close()
		return res, err
	}
	defer r.Close()
	f0 := idleFootprint()
	for i := range job.Sessions {
		id := fmt.Sprintf("idle-%06d", i)
		ch, err := r.Create(ctx, id, map[string]any{"sessionId": id, "model": BenchModel, "streaming": true}, nil)
		if err != nil {
			return res, err
		}
		if _, err := ch.Receive(ctx); err != nil {
			return res, err
		}
	}
	perSession(&res, f0, idleFootprint(), job.Sessions)
	return res, nil
}

// footprint is what a process holds: goroutines, live heap, and goroutine
// stacks.
type footprint struct {
	goroutines   int
	heap, stacks uint64
}

// idleFootprint returns the footprint, collected.
func idleFootprint() footprint {
	time.Sleep(50 * time.Millisecond) // let what settles settle
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return footprint{runtime.NumGoroutine(), ms.HeapAlloc, ms.StackInuse}
}

// perSession fills res with what each of n sessions added between f0 and
// f1.
func perSession(res *Result, f0, f1 footprint, n int) {
	res.Goroutines = float64(f1.goroutines-f0.goroutines) / float64(n)
	res.HeapBytes = (float64(f1.heap) - float64(f0.heap)) / float64(n)
	res.StackBytes = (float64(f1.stacks) - float64(f0.stacks)) / float64(n)
}

// quorumCreate creates Sessions sessions at once and measures it.
func quorumCreate(ctx context.Context, job Job) (Result, error) {
	var res Result
	c, err := connectQuorum(ctx, job.Addr)
	if err != nil {
		return res, err
	}
	defer c.Close()
	cfg := copilot.SessionConfig{Model: BenchModel, AssignedID: job.Assigned}
	sessions := make([]*copilot.Session, job.Sessions)
	errs := make([]error, job.Sessions)
	var wg sync.WaitGroup
	m := startMeter()
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sessions[i], errs[i] = c.NewSession(ctx, cfg)
		}()
	}
	wg.Wait()
	m.stop(&res)
	return res, errors.Join(errs...)
}

// decodeStream is the decode-only reader as a client: it creates the
// sessions and sends their prompts with hand-written frames, and reads
// everything with the decode-only reader, measuring the streaming phase.
func decodeStream(ctx context.Context, job Job) (Result, error) {
	var res Result
	conn, err := net.Dial("tcp", job.Addr)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	d := NewDecoder(conn)
	w := bufio.NewWriter(conn)
	ids := make([]string, job.Sessions)
	call := func(id int, method, params string) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	awaitResponses := func(n int) error {
		for n > 0 {
			method, _, err := d.Next()
			if err != nil {
				return err
			}
			if method == "" {
				n--
			}
		}
		return nil
	}
	for i := range ids {
		ids[i] = fmt.Sprintf("decode-%06d", i)
		call(i+1, protocol.MethodSessionCreate, fmt.Sprintf(`{"sessionId":%q,"model":%q,"streaming":true}`, ids[i], BenchModel))
	}
	if err := w.Flush(); err != nil {
		return res, err
	}
	if err := awaitResponses(len(ids)); err != nil {
		return res, err
	}
	m := startMeter()
	d.Events, d.Text = 0, 0
	for i, id := range ids {
		call(len(ids)+i+1, protocol.MethodSessionSend, fmt.Sprintf(`{"sessionId":%q,"prompt":%q}`, id, Prompt(job.Chunks)))
	}
	if err := w.Flush(); err != nil {
		return res, err
	}
	for idle := 0; idle < len(ids); {
		before := len(d.Idle)
		if _, _, err := d.Next(); err != nil {
			return res, err
		}
		idle += len(d.Idle) - before
	}
	m.stop(&res)
	res.Events = int64(d.Events)
	if want := 20 * job.Chunks * job.Sessions; d.Text < want {
		return res, fmt.Errorf("bench: %d bytes of text decoded, want %d", d.Text, want)
	}
	return res, nil
}
