package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
)

// BenchmarkRealCLI is item 7: the real CLI, offline in the test sandbox,
// streams one turn of 64 sessions at once (Chunks pieces each, from a model
// API in a child process of its own); the client's CPU per event is set
// against the CLI's own. Metrics: client-ns/event, cli-ns/event and
// client-share (client CPU / CLI CPU). An op is one run.
//
// It needs the CLI: COPILOT_CLI_PATH, or the pinned install of
// .ci/install-copilot.sh.
func BenchmarkRealCLI(b *testing.B) {
	bin, err := clitest.Binary()
	if err != nil {
		b.Skip(err)
	}
	const sessions = 64
	chunks := size(100, 10)
	sb := clitest.NewSandbox(b)
	url := startModelAPI(b, sb, chunks)
	var client, cli, events float64
	for range b.N {
		c, e, ev := realRun(b, sb, bin, url, sessions, chunks)
		client, cli, events = client+float64(c), cli+float64(e), events+float64(ev)
	}
	b.ReportMetric(client/events, "client-ns/event")
	b.ReportMetric(cli/events, "cli-ns/event")
	b.ReportMetric(client/cli, "client-share")
	b.ReportMetric(events/float64(b.N), "events/run")
}

// startModelAPI serves the model API from a child process on a listener
// made inside the sandbox, and returns its URL.
func startModelAPI(b *testing.B, sb *clitest.Sandbox, chunks int) string {
	ln, err := sb.Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close() // the child holds its own copy
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	spec, _ := json.Marshal(Job{Role: RoleModelAPI, Chunks: chunks})
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	cmd.ExtraFiles = []*os.File{f}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	return "http://" + ln.Addr().String()
}

// realRun starts the CLI, creates the sessions, streams a turn of each at
// once and returns the client's and the CLI's CPU over the streaming, and
// the events the client got.
func realRun(b *testing.B, sb *clitest.Sandbox, bin, url string, sessions, chunks int) (client, cli time.Duration, events int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	c, err := copilot.Start(ctx, copilot.Options{
		CLIPath: bin, Env: clitest.OfflineEnv(b, url), WorkingDir: b.TempDir(),
		Command: func(bin string, args ...string) *exec.Cmd {
			cmd = sb.Command(context.Background(), bin, args...)
			return cmd
		},
		Args: []string{"--disable-builtin-mcps"},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	all, err := newSessionsOf(ctx, c, sessions, RealModel)
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	h := copilot.TurnHandlers{OnEvent: func(copilot.Event) { n.Add(1) }}
	cli0, err := processCPU(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	client0 := ProcessCPU()
	err = each(all, func(_ int, s *copilot.Session) error {
		_, err := s.Stream(ctx, "go", h)
		return err
	})
	client = ProcessCPU() - client0
	cli1, cerr := processCPU(cmd.Process.Pid)
	if err != nil || cerr != nil {
		b.Fatal(err, cerr)
	}
	return client, cli1 - cli0, n.Load()
}

// processCPU is the CPU time (user and system, all threads) of process pid
// so far, from /proc: fields 14 and 15 of its stat, in clock ticks of
// 10 ms (USER_HZ is 100 on Linux).
func processCPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count from after it.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("bench: /proc/%d/stat: %q", pid, stat)
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime: fields 14 and 15 of the whole line
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
