package chat

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/ptytest"
	"github.com/quorum-go/quorum/internal/testing/vtscreen"
)

// This file runs the chat on a real pseudo-terminal, in-process: Run (or
// RunPlain) gets the terminal's slave side as its input and output, as
// `quorum chat` gets the person's terminal; the test types on the master
// side and reads the screen the chat draws there (vtscreen replays it).

// terminal is a chat running on a pseudo-terminal.
type terminal struct {
	t      *testing.T
	master *os.File

	mu     sync.Mutex
	screen vtscreen.Screen
	grew   chan struct{} // closed and replaced each time the screen grows
	closed chan struct{} // closed when the terminal has nothing more to read
}

// runOnTerminal runs the chat of o on a terminal of cols×rows: full
// screen (Run), or line by line (RunPlain). The chat ends with the test,
// as the person leaves it; then the terminal is closed.
func runOnTerminal(t *testing.T, o Options, cols, rows int, plain bool) *terminal {
	t.Helper()
	master, slave, err := ptytest.Open(cols, rows)
	if err != nil {
		t.Fatalf("a pseudo-terminal is needed: %v", err)
	}
	p := &terminal{t: t, master: master, grew: make(chan struct{}), closed: make(chan struct{})}
	go func() {
		defer close(p.closed)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.screen.Write(buf[:n])
			close(p.grew)
			p.grew = make(chan struct{})
			p.mu.Unlock()
			if err != nil {
				return // EIO once the slave side is closed
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		var err error
		if plain {
			_, err = RunPlain(ctx, o, slave, slave)
		} else {
			_, err = Run(ctx, o, slave, slave)
		}
		ran <- err
	}()
	t.Cleanup(func() {
		defer cancel()
		// The person leaves: a cancelled context would leave bubbletea's
		// input reader behind (it waits for it only when the program
		// quits). Line by line, Ctrl-D ends the input; full screen,
		// Ctrl-C clears the input, or leaves at an empty one, where
		// Ctrl-D leaves.
		leave := "\x04"
		if !plain {
			leave = "\x03\x04"
		}
		master.WriteString(leave)
		select {
		case err := <-ran:
			if err != nil {
				t.Errorf("the chat ended with %v", err)
			}
		case <-time.After(guard):
			t.Error("the chat did not end at Ctrl-D")
			cancel()
			<-ran
		}
		slave.Close() // the master's reads end (EIO): then it can close
		<-p.closed
		master.Close()
	})
	return p
}

// keys types s on the terminal.
func (p *terminal) keys(s string) {
	p.t.Helper()
	if _, err := p.master.WriteString(s); err != nil {
		p.t.Fatal(err)
	}
}

// waitFor waits until the screen's lines satisfy ok, and returns them; it
// fails the test, showing the screen, if the terminal closes first or
// after a guard only a hang reaches.
func (p *terminal) waitFor(what string, ok func(lines []string) bool) []string {
	p.t.Helper()
	deadline := time.After(guard)
	for {
		p.mu.Lock()
		lines, grew := p.screen.Text(), p.grew
		p.mu.Unlock()
		if ok(lines) {
			return lines
		}
		select {
		case <-grew:
		case <-p.closed:
			p.t.Fatalf("the terminal closed before it showed %s:\n%s", what, strings.Join(lines, "\n"))
		case <-deadline:
			p.t.Fatalf("waited for %s:\n%s", what, strings.Join(lines, "\n"))
		}
	}
}

// Predicates on the full screen's lines: the title first, the status
// last.

// roundsEnded: the title counts n rounds and the status line times the
// last one: the round is over and its frame drawn whole (the status line
// is the frame's last).
func roundsEnded(n int) func([]string) bool {
	return func(lines []string) bool {
		return len(lines) > 1 && strings.Contains(lines[0], fmt.Sprintf(" %d round(s)", n)) &&
			strings.Contains(lines[len(lines)-1], "· last ")
	}
}

// showing: some line holds s.
func showing(s string) func([]string) bool {
	return func(lines []string) bool { return lineWith(lines, s) >= 0 }
}

// lineWith is the index of the first line holding s, -1 for none.
func lineWith(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// folded is the lines as one text, each run of blanks one space: what
// wrapping split at some width reads whole.
func folded(lines []string) string {
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}
