package vtscreen

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The screen emulator itself: cursor up, erase below, colours.
func TestScreen(t *testing.T) {
	s := &Screen{}
	s.Write([]byte("one\ntwo\nthree\n\x1b[2A\r\x1b[J\x1b[32m2\x1b[0m\n"))
	if got := strings.Join(s.Text(), "|"); got != "one|2" {
		t.Errorf("screen = %q", got)
	}
}

// A full-screen UI's frame: erase all, cursor positions, lines skipped
// with LF, a backspace, and sequences and characters split across
// writes.
func TestScreenFrames(t *testing.T) {
	s := &Screen{}
	stream := "junk\x1b[2J\x1b[H\rtitle\x1b[K\r\nbody one\r\n·status\x1b[3;1H" +
		"\x1b[H\nbody twX\bo\x1b[K\x1b[3;1H"
	for i := range len(stream) { // a byte at a time
		s.Write([]byte{stream[i]})
	}
	if got := strings.Join(s.Text(), "|"); got != "title|body two|·status" {
		t.Errorf("screen = %q", got)
	}
}
