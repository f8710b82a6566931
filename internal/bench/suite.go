package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Suite is one run of the whole suite: the measurements 1 to 6,
// each beside its reference measured in the same run, and how to run the
// seventh (the real CLI), which needs a test's sandbox.
type Suite struct {
	// Exe is the program the clients run as (this one, see MaybeChild).
	Exe string
	// Official is the official SDK's driver (BuildOfficial), or empty with
	// NoOfficial saying why.
	Official   string
	NoOfficial error
	// Short makes every measurement small: for CI, so that the suite
	// cannot rot; its figures mean little.
	Short bool
	// Repeats is how many times each CPU and throughput figure is measured;
	// the table shows the median. Default 3, 1 when Short.
	Repeats int
	// Events is how many events each CPU run streams. Default 100,000;
	// 5,000 when Short.
	Events int
	// Only, when not empty, names the measurements to run (1 to 6).
	Only []int
	// Log gets progress lines; nil discards them.
	Log io.Writer
}

func (s *Suite) defaults() {
	if s.Repeats <= 0 {
		s.Repeats = 3
		if s.Short {
			s.Repeats = 1
		}
	}
	if s.Events <= 0 {
		s.Events = 100_000
		if s.Short {
			s.Events = 5_000
		}
	}
	if s.Log == nil {
		s.Log = io.Discard
	}
}

// size is full, or short in a short run.
func (s *Suite) size(full, short int) int {
	if s.Short {
		return short
	}
	return full
}

// Targets are the issue's, as ratios measured in one run.
const (
	TargetVsOfficial     = 0.5
	TargetVsDecode       = 1.5
	TargetAllocs         = 10
	TargetThroughput64   = 0.7
	TargetThroughput512  = 0.5
	TargetIsolation      = 1.1
	TargetIdleGoroutines = 1
	TargetIdleBytes      = 4 << 10
)

// Run runs the suite against a simulator of its own and writes the
// tables to w.
func (s *Suite) Run(ctx context.Context, w io.Writer) error {
	s.defaults()
	srv, err := StartServer()
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(w, "quorum benchmark suite: %s %s/%s, %d CPUs; %d-event runs, median of %d",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), s.Events, s.Repeats)
	if s.Short {
		fmt.Fprint(w, " (short: the figures mean little)")
	}
	fmt.Fprintln(w)
	if s.Official != "" {
		fmt.Fprintf(w, "official Go SDK: built from %s=%s\n", SDKDirEnv, os.Getenv(SDKDirEnv))
	} else {
		fmt.Fprintf(w, "official Go SDK: NOT MEASURED: %v\n", s.NoOfficial)
	}
	var errs []error
	for i, item := range []func(context.Context, io.Writer, string) error{s.cpu, s.throughput, s.latency, s.isolation, s.footprint, s.creation} {
		if len(s.Only) > 0 && !slices.Contains(s.Only, i+1) {
			continue
		}
		fmt.Fprintln(w)
		if err := item(ctx, w, srv.Addr()); err != nil {
			fmt.Fprintf(w, "  failed: %v\n", err)
			errs = append(errs, err)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "7. The real CLI streaming 64 sessions offline: client CPU per event as a share of the CLI's own.")
	fmt.Fprintln(w, "   It needs the test sandbox (a network namespace, a local model API); run it with")
	fmt.Fprintln(w, "     COPILOT_CLI_PATH=/path/to/copilot go test -run '^$' -bench BenchmarkRealCLI -benchtime 1x ./internal/bench")
	return errors.Join(errs...)
}

// table is a tabwriter for one section.
func table(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	return tw
}

// median returns the median of xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// ratio formats a/b as "0.42×", with a mark against the target: ≤ target
// (atMost) or ≥ target.
func ratio(a, b, target float64, atMost bool) string {
	if a == 0 || b == 0 {
		return "—"
	}
	r := a / b
	mark := "ok"
	if atMost && r > target || !atMost && r < target {
		mark = "MISSED"
	}
	if target == 0 {
		return fmt.Sprintf("%.2f×", r)
	}
	cmp := "≤"
	if !atMost {
		cmp = "≥"
	}
	return fmt.Sprintf("%.2f× (%s %.1f %s)", r, cmp, target, mark)
}

// perEvent is a stream run's figures per event.
type perEvent struct{ cpu, allocs, bytes []float64 }

func (p *perEvent) add(r Result) {
	n := float64(max(r.Events, 1))
	p.cpu = append(p.cpu, float64(r.CPU.Nanoseconds())/n/1e3)
	p.allocs = append(p.allocs, float64(r.Mallocs)/n)
	p.bytes = append(p.bytes, float64(r.Bytes)/n)
}

// clients returns the clients of the CPU, isolation, footprint and
// creation runs: this project's, and the official SDK's when built.
func (s *Suite) run(ctx context.Context, client string, job Job) (Result, error) {
	exe := s.Exe
	if client == "official" {
		exe = s.Official
	}
	job.Client = client
	return RunChild(ctx, exe, job)
}

func (s *Suite) withOfficial(clients ...string) []string {
	if s.Official != "" {
		clients = append(clients, "official")
	}
	return clients
}

// cpu is item 1: CPU and allocations per event.
func (s *Suite) cpu(ctx context.Context, w io.Writer, addr string) error {
	fmt.Fprintf(w, "1. CPU per event and allocations, client process only, streaming phase (simulator over loopback TCP)\n")
	tw := table(w, "sessions\tclient\tµs CPU/event\tallocs/event\tB/event\tvs official\tvs decode-only\t")
	for _, n := range []int{8, 64, 512} {
		job := Job{Role: RoleStream, Addr: addr, Sessions: n, Chunks: ChunksFor(s.Events, n)}
		clients := s.withOfficial(ClientQuorum, ClientDecode)
		got := map[string]*perEvent{}
		for r := range s.Repeats {
			for _, c := range clients {
				fmt.Fprintf(s.Log, "cpu: %d sessions, %s, run %d\n", n, c, r+1)
				res, err := s.run(ctx, c, job)
				if err != nil {
					return fmt.Errorf("%s, %d sessions: %w", c, n, err)
				}
				if got[c] == nil {
					got[c] = &perEvent{}
				}
				got[c].add(res)
			}
		}
		official, decode := 0.0, median(got[ClientDecode].cpu)
		if got["official"] != nil {
			official = median(got["official"].cpu)
		}
		for _, c := range clients {
			p := got[c]
			cpu := median(p.cpu)
			vsOfficial, vsDecode := "", ""
			switch c {
			case ClientQuorum:
				vsOfficial = ratio(cpu, official, TargetVsOfficial, true)
				vsDecode = ratio(cpu, decode, TargetVsDecode, true)
			case "official":
				vsDecode = ratio(cpu, decode, 0, true)
			}
			allocs := fmt.Sprintf("%.1f", median(p.allocs))
			if c == ClientQuorum {
				allocs += mark(median(p.allocs) <= TargetAllocs, fmt.Sprintf(" (≤ %d", TargetAllocs))
			}
			fmt.Fprintf(tw, "%d\t%s\t%.2f\t%s\t%.0f\t%s\t%s\t\n", n, c, cpu, allocs, median(p.bytes), vsOfficial, vsDecode)
		}
	}
	return tw.Flush()
}

func mark(ok bool, prefix string) string {
	if ok {
		return prefix + " ok)"
	}
	return prefix + " MISSED)"
}

// throughput is item 2.
func (s *Suite) throughput(ctx context.Context, w io.Writer, _ string) error {
	events := 4 * s.Events
	fmt.Fprintf(w, "2. Throughput: a pre-built feed of %d events written as fast as the reader takes it\n", events)
	tw := table(w, "transport\tsessions\treader\tevents/s\tMB/s\tvs decode-only\t")
	for _, t := range []Transport{Pipe, TCP} {
		for _, n := range []int{64, 512} {
			f := NewFeed(n, 32)
			rates := map[string][]Rate{}
			readers := []string{ReaderCopy, ReaderDecode, ReaderQuorum}
			for r := range s.Repeats {
				for _, reader := range readers {
					fmt.Fprintf(s.Log, "throughput: %s, %d sessions, %s, run %d\n", t, n, reader, r+1)
					rate, err := Throughput(t, f, events, reader)
					if err != nil {
						return fmt.Errorf("%s over %s: %w", reader, t, err)
					}
					rates[reader] = append(rates[reader], rate)
				}
			}
			med := func(reader string, f func(Rate) float64) float64 {
				var xs []float64
				for _, r := range rates[reader] {
					xs = append(xs, f(r))
				}
				return median(xs)
			}
			decode := med(ReaderDecode, Rate.EventsPerSecond)
			target := TargetThroughput64
			if n == 512 {
				target = TargetThroughput512
			}
			for _, reader := range readers {
				eps, vs := fmt.Sprintf("%.0f", med(reader, Rate.EventsPerSecond)), ""
				switch reader {
				case ReaderCopy:
					eps = "—"
				case ReaderQuorum:
					vs = ratio(med(reader, Rate.EventsPerSecond), decode, target, false)
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%s\t\n", t, n, reader, eps, med(reader, Rate.MBPerSecond), vs)
			}
		}
	}
	return tw.Flush()
}

// latency is item 3.
func (s *Suite) latency(ctx context.Context, w io.Writer, _ string) error {
	const rate = 10_000
	d := time.Duration(s.size(3000, 300)) * time.Millisecond
	fmt.Fprintf(w, "3. Delivery latency, write to text in the consumer's hands, at a steady %d events/s for %v (OS pipe)\n", rate, d)
	tw := table(w, "sessions\treader\tp50\tp99\tdeltas\t")
	for _, n := range []int{7, 64} {
		f := NewFeed(n, 32)
		for _, reader := range []string{ReaderDecode, ReaderQuorum} {
			fmt.Fprintf(s.Log, "latency: %d sessions, %s\n", n, reader)
			lat, err := Latency(Pipe, f, d, rate, reader)
			if err != nil {
				return fmt.Errorf("%s, %d sessions: %w", reader, n, err)
			}
			fmt.Fprintf(tw, "%d\t%s\t%v\t%v\t%d\t\n", n, reader, round(lat.Quantile(0.5)), round(lat.Quantile(0.99)), len(lat))
		}
	}
	return tw.Flush()
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d > time.Microsecond:
		return d.Round(100 * time.Nanosecond)
	}
	return d
}

// isolation is item 4.
func (s *Suite) isolation(ctx context.Context, w io.Writer, addr string) error {
	const slow = 10 * time.Millisecond
	chunks := s.size(500, 20)
	fmt.Fprintf(w, "4. Isolation: 8 sessions stream %d events each; in the test run one consumer is blocked and one takes %v an event;\n", EventsPerTurn(chunks), slow)
	fmt.Fprintf(w, "   the other six's completion time (the slowest of them), test run vs control run; stalled: not done in 20 times the control's\n")
	tw := table(w, "client\tcontrol\twith blocked+slow\tratio (median of pairs)\t")
	for _, c := range s.withOfficial(ClientQuorum) {
		job := Job{Role: RoleIsolation, Addr: addr, Sessions: 8, Chunks: chunks}
		// Control and test runs alternate, and the ratio is taken within
		// each pair, so that the load of a shared machine, which drifts,
		// weighs on both sides of a ratio alike.
		var control, test, ratios []float64
		stalled := false
		for r := range max(s.Repeats, 5) {
			fmt.Fprintf(s.Log, "isolation: %s, run %d\n", c, r+1)
			job.SlowDelay, job.Patience = 0, time.Minute
			res, err := s.run(ctx, c, job)
			if err != nil {
				return fmt.Errorf("%s control: %w", c, err)
			}
			control = append(control, float64(res.Wall))
			job.SlowDelay, job.Patience = slow, patience(res.Wall)
			tres, err := s.run(ctx, c, job)
			if err != nil {
				return fmt.Errorf("%s test: %w", c, err)
			}
			if stalled = tres.Stalled; stalled {
				break // once is enough to know, and each takes long
			}
			test = append(test, float64(tres.Wall))
			ratios = append(ratios, float64(tres.Wall)/float64(res.Wall))
		}
		ctl := time.Duration(median(control))
		if stalled {
			fmt.Fprintf(tw, "%s\t%v\tstalled\t—\t\n", c, round(ctl))
			continue
		}
		r := median(ratios)
		cell := fmt.Sprintf("%.2f×", r)
		if c == ClientQuorum {
			cell += mark(r <= TargetIsolation, fmt.Sprintf(" (≤ %.1f", TargetIsolation))
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\t\n", c, round(ctl), round(time.Duration(median(test))), cell)
	}
	return tw.Flush()
}

// patience is how long the others may take in a test run before they
// count as stalled: far more than the control run took.
func patience(control time.Duration) time.Duration {
	return max(20*control, 2*time.Second)
}

// footprint is item 5.
func (s *Suite) footprint(ctx context.Context, w io.Writer, addr string) error {
	n := s.size(1000, 100)
	fmt.Fprintf(w, "5. Footprint: %d idle sessions; per session, goroutines, live heap and goroutine stacks\n", n)
	tw := table(w, "client\tgoroutines/session\theap KiB\tstack KiB\ttotal KiB\ttarget\t")
	for _, c := range s.withOfficial(ClientQuorum, ClientRouter) {
		fmt.Fprintf(s.Log, "footprint: %s\n", c)
		res, err := s.run(ctx, c, Job{Role: RoleIdle, Addr: addr, Sessions: n})
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		total := res.HeapBytes + res.StackBytes
		target := ""
		if c != "official" {
			target = mark(res.Goroutines <= TargetIdleGoroutines && total <= TargetIdleBytes, "(≤ 1, ≤ 4 KiB")
		}
		name := map[string]string{ClientQuorum: "quorum (package copilot)", ClientRouter: "quorum (package router)"}[c]
		if name == "" {
			name = c
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", name, res.Goroutines, res.HeapBytes/1024, res.StackBytes/1024, total/1024, target)
	}
	return tw.Flush()
}

// creation is item 6.
func (s *Suite) creation(ctx context.Context, w io.Writer, addr string) error {
	n := s.size(500, 50)
	fmt.Fprintf(w, "6. Creation: %d sessions at once\n", n)
	tw := table(w, "client\tids\twall\tCPU\tvs official\t")
	type row struct {
		client   string
		assigned bool
	}
	rows := []row{{ClientQuorum, false}, {ClientQuorum, true}}
	if s.Official != "" {
		rows = append(rows, row{"official", false})
	}
	walls := map[row][]float64{}
	cpus := map[row][]float64{}
	for r := range s.Repeats {
		for _, rw := range rows {
			fmt.Fprintf(s.Log, "creation: %s assigned=%v, run %d\n", rw.client, rw.assigned, r+1)
			res, err := s.run(ctx, rw.client, Job{Role: RoleCreate, Addr: addr, Sessions: n, Assigned: rw.assigned})
			if err != nil {
				return fmt.Errorf("%s: %w", rw.client, err)
			}
			walls[rw] = append(walls[rw], float64(res.Wall))
			cpus[rw] = append(cpus[rw], float64(res.CPU))
		}
	}
	official := median(walls[row{"official", false}])
	for _, rw := range rows {
		ids := "client-chosen"
		if rw.assigned {
			ids = "server-assigned"
		}
		vs := ""
		if rw.client == ClientQuorum {
			vs = ratio(median(walls[rw]), official, 0, true)
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%v\t%s\t\n", rw.client, ids, round(time.Duration(median(walls[rw]))), round(time.Duration(median(cpus[rw]))), vs)
	}
	if s.Official != "" {
		fmt.Fprintln(tw, "official\tserver-assigned\t—\t—\t(the SDK always chooses ids)\t")
	}
	return tw.Flush()
}

// Describe says what the suite measures, for the command's help.
func Describe() string {
	return strings.TrimSpace(`
Measures, each beside its reference in the same run:
 1. client CPU and allocations per event at 8, 64, 512 sessions: this project
    (package copilot), the decode-only reader, the official Go SDK
 2. throughput over an OS pipe and loopback TCP vs the decode-only reader
    and io.Copy
 3. delivery latency p50/p99 at 7 and 64 sessions under steady load
 4. isolation: one consumer blocked, one slow; the others' time vs control
 5. footprint: goroutines and memory per idle session
 6. creation: 500 sessions at once, client-chosen and server-assigned ids
 7. (a go test benchmark) the real CLI: client CPU as a share of the CLI's`)
}
