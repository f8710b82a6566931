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
