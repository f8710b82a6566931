package copilot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/internal/wire"
)

// child is one running Copilot CLI process and the connection to it.
type child struct {
	cmd    *exec.Cmd
	conn   io.ReadWriteCloser
	stdin  *os.File // our end of the child's stdin; closing it asks stdio mode to exit
	stderr *tailBuffer
	log    zerolog.Logger

	tcp     bool          // TCP mode: closing stdin does not ask it to exit
	exited  chan struct{} // closed once the process has been reaped
	exitErr error         // set before exited closes

	drains     sync.WaitGroup // stdout (TCP) and stderr readers
	stderrDone chan struct{}  // closed when stderr has been read to its end
	supervised chan struct{}  // closed when a supervisor has taken up its death
	outputs    []*os.File     // our ends of the pipes the drains read
}

// childCommand is the command that runs the CLI at bin as a headless
// server, as o says. o's slices are copied, never appended to: the
// caller's Env keeps its contents (and the token stays out of it).
func childCommand(bin string, o Options) *exec.Cmd {
	args := []string{"--headless", "--no-auto-update", "--no-auto-login"}
	if o.Transport == TCP {
		args = append(args, "--port", "0")
	} else {
		args = append(args, "--stdio")
	}
	env := slices.Clone(o.Env)
	if env == nil {
		env = os.Environ()
	}
	if o.AuthToken != "" {
		env = append(env, "COPILOT_SDK_AUTH_TOKEN="+o.AuthToken)
	}
	if o.AuthToken != "" || hasEnv(env, "COPILOT_SDK_AUTH_TOKEN") {
		args = append(args, "--auth-token-env", "COPILOT_SDK_AUTH_TOKEN")
	}
	if o.LogLevel != "" {
		args = append(args, "--log-level", o.LogLevel)
	}
	if o.LogDir != "" {
		args = append(args, "--log-dir", o.LogDir)
	}
	args = append(args, o.Args...)

	newCmd := exec.Command
	if o.Command != nil {
		newCmd = o.Command
	}
	cmd := newCmd(bin, args...)
	cmd.Dir = o.WorkingDir
	cmd.Env = env
	return cmd
}

var portLine = regexp.MustCompile(`listening on port (\d+)`)

// startChild starts the CLI in headless server mode and connects to it.
// Everything it starts is stopped again if it fails.
func startChild(ctx context.Context, o Options) (*child, error) {
	bin, err := FindCLI(o.CLIPath)
	if err != nil {
		return nil, err
	}
	cmd := childCommand(bin, o)
	// Its own process group, so that Close can end the CLI and anything it
	// started without touching ours.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true

	// Pipes of our own rather than cmd.StdoutPipe: exec.Cmd.Wait closes
	// those, and Wait runs while the router still reads.
	var ours, theirs []*os.File
	pipe := func() (r, w *os.File) {
		if err == nil {
			r, w, err = os.Pipe()
		}
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	ours, theirs = []*os.File{inW, outR, errR}, []*os.File{inR, outW, errW}
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	if err != nil {
		closeAll(ours)
		closeAll(theirs)
		return nil, fmt.Errorf("copilot: creating pipes: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	c := &child{
		cmd:        cmd,
		stdin:      inW,
		stderr:     &tailBuffer{max: 8 << 10},
		log:        o.Logger.With().Str("component", "copilot-cli").Logger(),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		supervised: make(chan struct{}),
		tcp:        o.Transport == TCP,
	}
	if err := cmd.Start(); err != nil {
		closeAll(ours)
		closeAll(theirs)
		return nil, fmt.Errorf("copilot: starting %s: %w", bin, err)
	}
	closeAll(theirs) // the child holds them now; keeping ours would hide its EOF
	c.log.Debug().Int("pid", cmd.Process.Pid).Strs("args", cmd.Args[1:]).Msg("started the Copilot CLI")

	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	c.outputs = append(c.outputs, errR)
	c.drains.Add(1)
	go c.drainStderr(errR)

	if o.Transport != TCP {
		c.conn = &exitAwareConn{ReadWriteCloser: wire.Duplex{R: outR, W: inW}, c: c}
		return c, nil
	}
	ports := make(chan string, 1)
	c.outputs = append(c.outputs, outR)
	c.drains.Add(1)
	go c.drainStdout(outR, ports)
	timer := time.NewTimer(o.StartTimeout)
	defer timer.Stop()
	var port string
	select {
	case port = <-ports:
	case <-c.exited:
		err = c.exitCause()
	case <-timer.C:
		err = fmt.Errorf("%w: no `listening on port` line within %v; stderr: %s", ErrStartTimeout, o.StartTimeout, c.stderrTail())
	case <-ctx.Done():
		err = ctx.Err()
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: no `listening on port` line before the deadline; stderr: %s", ErrStartTimeout, c.stderrTail())
		}
	}
	if err == nil {
		dial := (&net.Dialer{Timeout: o.StartTimeout}).DialContext
		if o.Dial != nil {
			dial = o.Dial
		}
		var conn net.Conn
		if conn, err = dial(ctx, "tcp", net.JoinHostPort("127.0.0.1", port)); err == nil {
			c.conn = &exitAwareConn{ReadWriteCloser: conn, c: c}
			return c, nil
		}
		err = fmt.Errorf("copilot: dialling the CLI on port %s: %w", port, err)
	}
	c.stop(0)
	return nil, err
}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// drainStderr keeps reading the child's stderr, so a full pipe never blocks
// it, remembering the end for error messages.
func (c *child) drainStderr(r *os.File) {
	defer c.drains.Done()
	defer close(c.stderrDone)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		c.stderr.Write(append(sc.Bytes(), '\n'))
		c.log.Debug().Str("stream", "stderr").Msg(sc.Text())
	}
	io.Copy(io.Discard, r) // after a line too long for the scanner
}

// drainStdout reports the TCP port line, then keeps draining.
func (c *child) drainStdout(r *os.File, ports chan<- string) {
	defer c.drains.Done()
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sent := false
	for sc.Scan() {
		line := sc.Text()
		if m := portLine.FindStringSubmatch(line); m != nil && !sent {
			ports <- m[1]
			sent = true
		}
		c.log.Debug().Str("stream", "stdout").Msg(line)
	}
	io.Copy(io.Discard, r)
}

func (c *child) stderrTail() string {
	s := strings.TrimSpace(c.stderr.String())
	if s == "" {
		return "(empty)"
	}
	return s
}

// exitCause describes the child's end; call it after exited is closed.
func (c *child) exitCause() error {
	// Its last words may still be in the pipe; a grandchild holding stderr
	// open must not hold us up for long.
	select {
	case <-c.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	status := "exit status 0"
	if c.exitErr != nil {
		status = c.exitErr.Error()
	}
	return fmt.Errorf("%w (%s); its stderr ended with: %s", ErrCLIExited, status, c.stderrTail())
}

// stop ends the child: it asks it to exit (stdin closed, then SIGTERM), waits
// up to grace, then kills its process group, and waits for it to be reaped
// and for its pipes to drain. It is safe to call more than once.
func (c *child) stop(grace time.Duration) {
	c.stdin.Close()
	if c.conn != nil {
		c.conn.Close()
	}
	pgid := c.cmd.Process.Pid
	if grace > 0 {
		term := time.After(grace / 2) // stdio: closed stdin asks it to exit first
		if c.tcp {
			term = time.After(0)
		}
		select {
		case <-c.exited:
		case <-term:
			syscall.Kill(-pgid, syscall.SIGTERM)
			select {
			case <-c.exited:
			case <-time.After(grace / 2):
			}
		}
	}
	// Also after a clean exit: whatever the CLI started must not outlive it.
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		c.log.Debug().Err(err).Msg("killing the CLI's process group")
	}
	<-c.exited
	// A grandchild that left the group (setsid) may hold the pipes open
	// and outlive the kill: drain briefly, then close our ends, which ends
	// the draining reads.
	drained := make(chan struct{})
	go func() {
		c.drains.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(time.Second):
		for _, f := range c.outputs {
			f.Close()
		}
		<-drained
	}
}

// exitAwareConn reports the child's exit, rather than a bare EOF, as the
// end of the connection: the reader usually sees the pipe close a moment
// before the process is reaped, and "EOF" tells a user nothing.
type exitAwareConn struct {
	io.ReadWriteCloser
	c      *child
	closed atomic.Bool
}

func (e *exitAwareConn) Close() error {
	e.closed.Store(true)
	return e.ReadWriteCloser.Close()
}

func (e *exitAwareConn) Read(p []byte) (int, error) {
	n, err := e.ReadWriteCloser.Read(p)
	if err == nil || n > 0 {
		return n, err
	}
	return 0, e.cause(err)
}

// Write does the same for a write that fails because the child is gone
// (a broken pipe usually comes before the reader's EOF).
func (e *exitAwareConn) Write(p []byte) (int, error) {
	n, err := e.ReadWriteCloser.Write(p)
	if err == nil {
		return n, nil
	}
	return n, e.cause(err)
}

// cause is the child's exit, if it exits within a second, else err.
func (e *exitAwareConn) cause(err error) error {
	if e.closed.Load() {
		return err
	}
	select {
	case <-e.c.exited:
		return e.c.exitCause()
	case <-time.After(time.Second):
		return err // the child lives on: the connection itself ended
	}
}
