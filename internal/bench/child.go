package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Every client the suite measures runs in a process of its own, so that
// its CPU time, allocations and goroutines are its own and not the
// simulated server's: the suite's program (or test binary) runs itself
// again with a Job in the environment, and the child prints a Result as
// one JSON line. The official SDK's driver (official.go) speaks the same
// Job and Result, so that the two are measured alike.

// childEnv carries a child's Job.
const childEnv = "QUORUM_BENCH_JOB"

// A Job is one measurement a child process makes.
type Job struct {
	// Role is what to measure: RoleStream, RoleIsolation, RoleIdle,
	// RoleCreate.
	Role string `json:"role"`
	// Client is ClientQuorum, ClientDecode or ClientRouter (the router
	// alone, for RoleIdle). The official driver ignores it.
	Client string `json:"client,omitempty"`
	// Addr is the simulated server's TCP address.
	Addr string `json:"addr"`
	// Sessions is how many sessions take part.
	Sessions int `json:"sessions"`
	// Chunks is how many text pieces each session's turn streams.
	Chunks int `json:"chunks,omitempty"`
	// Assigned has the server assign session ids (RoleCreate).
	Assigned bool `json:"assigned,omitempty"`
	// SlowDelay is how long the slow consumer takes per event
	// (RoleIsolation); zero means none is slow and none blocked: the
	// control run.
	SlowDelay time.Duration `json:"slowDelay,omitempty"`
	// Patience is how long the others may take before they count as
	// stalled (RoleIsolation).
	Patience time.Duration `json:"patience,omitempty"`
}

// Result is what a child measured.
type Result struct {
	// Events counts the session events its consumers got.
	Events int64 `json:"events"`
	// CPU is its CPU time (user and system, all threads) over the measured
	// part; Mallocs and Bytes its heap allocations over the same part.
	CPU     time.Duration `json:"cpu"`
	Mallocs uint64        `json:"mallocs"`
	Bytes   uint64        `json:"bytes"`
	// Wall is the measured part's wall time: the streaming phase, the
	// creations, or (RoleIsolation) the slowest of the sessions that were
	// neither slow nor blocked.
	Wall time.Duration `json:"wall"`
	// Stalled reports that the others did not finish within Patience.
	Stalled bool `json:"stalled,omitempty"`
	// Goroutines, HeapBytes (live heap) and StackBytes (goroutine stacks)
	// are per idle session (RoleIdle).
	Goroutines float64 `json:"goroutines,omitempty"`
	HeapBytes  float64 `json:"heapBytes,omitempty"`
	StackBytes float64 `json:"stackBytes,omitempty"`
	// Err is why the measurement failed.
	Err string `json:"err,omitempty"`
}

// Roles.
const (
	RoleStream    = "stream"
	RoleIsolation = "isolation"
	RoleIdle      = "idle"
	RoleCreate    = "create"
)

// Clients of this project's own.
const (
	ClientQuorum = "quorum" // package copilot, as users use it
	ClientRouter = "router" // package router alone
	ClientDecode = "decode" // the decode-only reader (decodeonly.go)
)

// MaybeChild runs the Job in the environment, if there is one, prints its
// Result and exits; otherwise it returns. Call it first in main and in
// TestMain.
func MaybeChild() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	var job Job
	res := Result{}
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		res.Err = err.Error()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		res = runJob(ctx, job)
		cancel()
	}
	line, _ := json.Marshal(res)
	fmt.Println(string(line))
	os.Exit(0)
}

// runJob runs a job of this project's clients.
func runJob(ctx context.Context, job Job) Result {
	var (
		res Result
		err error
	)
	switch {
	case job.Role == RoleStream && job.Client == ClientDecode:
		res, err = decodeStream(ctx, job)
	case job.Role == RoleStream:
		res, err = quorumStream(ctx, job)
	case job.Role == RoleIsolation:
		res, err = quorumIsolation(ctx, job)
	case job.Role == RoleIdle && job.Client == ClientRouter:
		res, err = routerIdle(ctx, job)
	case job.Role == RoleIdle:
		res, err = quorumIdle(ctx, job)
	case job.Role == RoleCreate:
		res, err = quorumCreate(ctx, job)
	case job.Role == RoleModelAPI:
		res, err = serveModelAPI(ctx, job)
	default:
		err = fmt.Errorf("bench: no role %q for client %q", job.Role, job.Client)
	}
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

// RunChild runs job in a child process of exe and returns its Result.
func RunChild(ctx context.Context, exe string, job Job) (Result, error) {
	spec, _ := json.Marshal(job)
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		return res, fmt.Errorf("bench: %s %s/%s: no result (%v; exit: %v): %s", exe, job.Role, job.Client, err, runErr, tail(errOut.String()))
	}
	if res.Err != "" {
		return res, errors.New(res.Err)
	}
	return res, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// meter measures CPU and allocations over a part of a child's run.
type meter struct {
	cpu   time.Duration
	ms    runtime.MemStats
	start time.Time
}

func startMeter() *meter {
	m := &meter{}
	runtime.ReadMemStats(&m.ms)
	m.cpu, m.start = ProcessCPU(), time.Now()
	return m
}

// stop fills in res's CPU, allocations and wall time.
func (m *meter) stop(res *Result) {
	res.Wall = time.Since(m.start)
	res.CPU = ProcessCPU() - m.cpu
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.Mallocs = ms.Mallocs - m.ms.Mallocs
	res.Bytes = ms.TotalAlloc - m.ms.TotalAlloc
}
