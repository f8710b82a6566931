package iostreams

import (
	"bytes"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/internal/testing/ptytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A pseudo-terminal is a terminal of the width it was given; a pipe, a
// buffer and a regular file are not terminals at all.
func TestTerminalOrNot(t *testing.T) {
	master, slave, err := ptytest.Open(93, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if ok, width := TerminalWidth(slave); !ok || width != 93 {
		t.Errorf("a pseudo-terminal of 93 columns: terminal %v, width %d", ok, width)
	}
	if !IsTerminal(slave) {
		t.Error("a pseudo-terminal is not a terminal to read from")
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, f := range map[string]*os.File{"a pipe": w, "a file": file} {
		if ok, width := TerminalWidth(f); ok || width != 0 {
			t.Errorf("%s: terminal %v, width %d", name, ok, width)
		}
	}
	if ok, _ := TerminalWidth(&bytes.Buffer{}); ok {
		t.Error("a buffer is a terminal")
	}
	if IsTerminal(r) || IsTerminal(&bytes.Buffer{}) {
		t.Error("a pipe or a buffer is a terminal to read from")
	}
}
