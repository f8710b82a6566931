package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/ptytest"
	"github.com/quorum-go/quorum/internal/testing/vtscreen"
	"github.com/quorum-go/quorum/quorum"
)

// ptyOutput reads all that a program writes to a pseudo-terminal, and
// lets a test wait for a text to show.
type ptyOutput struct {
	mu   sync.Mutex
	buf  []byte
	grew chan struct{} // closed and replaced each time buf grows
	done chan struct{} // closed when the terminal closes
}

func readPTY(master *os.File) *ptyOutput {
	o := &ptyOutput{grew: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			o.mu.Lock()
			o.buf = append(o.buf, b[:n]...)
			close(o.grew)
			o.grew = make(chan struct{})
			o.mu.Unlock()
			if err != nil {
				return // EIO once the last slave is closed
			}
		}
	}()
	return o
}

// waitFor waits until the terminal has shown want, failing the test if
// it closes first or after a hang guard.
func (o *ptyOutput) waitFor(t *testing.T, want string) {
	t.Helper()
	guard := time.After(30 * time.Second)
	for {
		o.mu.Lock()
		s, grew := string(o.buf), o.grew
		o.mu.Unlock()
		if strings.Contains(s, want) {
			return
		}
		select {
		case <-grew:
		case <-o.done:
			t.Fatalf("the terminal closed before showing %q:\n%q", want, s)
		case <-guard:
			t.Fatalf("waited for %q:\n%q", want, s)
		}
	}
}

// Ctrl-C on a terminal while a phase runs, at 80 and 100 columns: the
// terminal echoes ^C, and the stopping notice is drawn through the live
// view, which erases its rows (and the ^C) and draws them again below
// the notice, so no spinner row is left frozen above the failure rows.
// The notice is wrapped to the terminal, and the report says the models
// were stopped by the interruption, not that they dropped out.
func TestCtrlCOnATerminalLeavesNoFrozenRows(t *testing.T) {
	for _, width := range []int{80, 100} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			master, slave, err := ptytest.Open(width, 50)
			if err != nil {
				t.Fatalf("a pseudo-terminal is needed: %v", err)
			}
			defer master.Close()
			screen := readPTY(master)
			ctx, cancelRun := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancelRun()
			ctx, notices := cmdutil.WithNotices(ctx, slave)
			ctx, interrupt := context.WithCancelCause(ctx)
			defer interrupt(nil)

			// Ctrl-C once sim-gamma hangs in the review phase and the
			// others' reviews are in: the live rows of the phase are on
			// the screen.
			var mu sync.Mutex
			reviewed, hangs := 0, false
			ready := make(chan struct{})
			onEvent := func(ev quorum.Progress) {
				mu.Lock()
				defer mu.Unlock()
				if ev.Phase != quorum.PhaseReview || reviewed == 2 && hangs {
					return
				}
				switch {
				case ev.Kind == quorum.ModelFinished && ev.Err == nil:
					reviewed++
				case ev.Kind == quorum.Delta && strings.HasSuffix(ev.Text, hangingText):
					hangs = true
				}
				if reviewed == 2 && hangs {
					close(ready)
				}
			}
			go func() {
				select {
				case <-ready:
				case <-ctx.Done():
					return
				}
				screen.waitFor(t, "review    sim-gamma      reviewing")
				// The terminal echoes ^C where the cursor is, as it does
				// when a person presses it.
				if _, err := master.WriteString("\x03"); err != nil {
					t.Error(err)
				}
				screen.waitFor(t, "^C")
				stopFor(os.Interrupt, notices, interrupt)
			}()
			var stdout strings.Builder
			e := &env{&cmdutil.Factory{
				In: strings.NewReader(""), Out: &stdout, ErrOut: slave,
				Getenv:    func(string) string { return "" },
				ConfigDir: func() (string, error) { return t.TempDir(), nil },
				SimModels: paced(pace{first: 20 * time.Millisecond, chunk: 5 * time.Millisecond}, simWith(hanging("sim-gamma", quorum.PhaseReview))),
			}}
			err = e.run(ctx, []string{"discuss", "--sim", "--no-color", goldenTopic}, func(inv *cmdutil.Invocation, run modelRun) error { return run(inv, onEvent) })
			slave.Close()
			<-screen.done
			if ExitCode(err) != cmdutil.ExitInterrupted {
				t.Fatalf("exit %d (%v):\n%s", ExitCode(err), err, stdout.String())
			}

			scr := &vtscreen.Screen{}
			scr.Write(screen.buf)
			lines := scr.Text()
			final := strings.Join(lines, "\n")
			if isSpinner(final) {
				t.Errorf("a spinner row is left frozen on the terminal:\n%s", final)
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "quorum: interrupted (Ctrl-C);") {
					break // the command's last word, which the terminal wraps
				}
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("a line of %d columns on a terminal of %d: %q", n, width, l)
				}
			}
			if strings.Contains(final, "^C") {
				t.Errorf("the ^C echo is left on the terminal:\n%s", final)
			}
			notice := strings.Index(final, "quorum: stopping: aborting the turns, then printing what was collected;")
			if notice < 0 || strings.Count(final, "quorum: stopping:") != 1 || !strings.Contains(strings.Join(strings.Fields(final[notice:]), " "), stoppingNotice) {
				t.Fatalf("the stopping notice is not on the terminal once, whole:\n%s", final)
			}
			for _, m := range []string{"sim-alpha", "sim-beta", "sim-gamma"} {
				row := "review    " + m
				if strings.Count(final, row) != 1 || strings.Index(final, row) < notice {
					t.Errorf("the review row of %s is not once, below the notice:\n%s", m, final)
				}
			}
			if !strings.Contains(final, "✗ review    sim-gamma      failed after ") || !strings.Contains(final, "✓ review    sim-alpha      done ") {
				t.Errorf("the finished rows are not on the terminal:\n%s", final)
			}
			if !strings.Contains(flat(stdout.String()), "Participants: sim-alpha, sim-beta, sim-gamma (stopped in the review phase: the run was interrupted by Ctrl-C) ") {
				t.Errorf("the report does not say the run was stopped in the review phase:\n%.800s", stdout.String())
			}
		})
	}
}
