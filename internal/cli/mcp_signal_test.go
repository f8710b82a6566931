package cli

import (
	"bufio"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// quorum mcp stopped by a signal, serving over stdio (its stdin still
// open) or Streamable HTTP: it shuts down and exits 130 or 143, as every
// quorum command does, saying so on stderr.
func TestMCPStoppedByASignal(t *testing.T) {
	bin := quorumBinary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		args []string
	}{
		{syscall.SIGINT, cmdutil.ExitInterrupted, []string{"mcp", "--sim", "--http", "127.0.0.1:0"}},
		{syscall.SIGTERM, cmdutil.ExitTerminated, []string{"mcp", "--sim", "--http", "127.0.0.1:0"}},
		{syscall.SIGTERM, cmdutil.ExitTerminated, []string{"mcp", "--sim"}},
	} {
		t.Run(strings.Join(c.args[1:], " ")+" "+c.sig.String(), func(t *testing.T) {
			cmd := commandFor(t, bin, nil, c.args...)
			stdin, err := cmd.StdinPipe() // open until the test ends: the signal stops it
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Serving, its signal handling in place: over HTTP it says
			// where it listens; over stdio it answers initialize.
			if len(c.args) > 2 {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() && !strings.Contains(sc.Text(), "serving MCP over Streamable HTTP") {
				}
			} else {
				if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`+"\n"); err != nil {
					t.Fatal(err)
				}
				if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
					t.Fatalf("no answer to initialize: %q, %v", line, err)
				}
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(stderr)
			err = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.code || !strings.Contains(string(rest), "quorum: "+(&cmdutil.Interrupted{Signal: c.sig}).Error()) {
				t.Errorf("exit %d (%v), want %d; stderr %q", code, err, c.code, rest)
			}
		})
	}
}
