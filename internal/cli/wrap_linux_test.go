package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// On a terminal, a streamed answer is wrapped at spaces to its width:
// every line fits, and every word of the answer arrives whole.
func TestAskWrapsOnATerminal(t *testing.T) {
	const width = 30
	plain := newHarness(t).run("ask", "--sim", "-q", "-m", "sim-beta", goldenTopic)
	if plain.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", plain.code, plain.stderr)
	}
	slave, finish := capturePTY(t, width, 50)
	var errb bytes.Buffer
	e := &env{&cmdutil.Factory{In: strings.NewReader(""), Out: slave, ErrOut: &errb,
		Getenv:    func(string) string { return "" },
		ConfigDir: func() (string, error) { return t.TempDir(), nil },
		SimModels: unpaced(nil)}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := e.run(ctx, []string{"ask", "--sim", "-q", "-m", "sim-beta", goldenTopic}, nil)
	out := string(finish())
	if err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	lines := strings.Split(strings.TrimRight(out, "\r\n"), "\r\n")
	if len(lines) < 3 {
		t.Fatalf("not wrapped:\n%q", out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > width {
			t.Errorf("a line of %d columns on a terminal of %d: %q", n, width, l)
		}
	}
	if got, want := strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(plain.stdout), " "); got != want {
		t.Errorf("the words changed:\n%s\nwant\n%s", got, want)
	}
}
