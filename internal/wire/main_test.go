package wire

import (
	"errors"
	"io"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds waits in tests so a bug shows as a failure, not a hang.
// It is never a timing assertion.
const hangGuard = 10 * time.Second

// isKnown reports whether err is one of the errors a reader may see: the
// package's framing sentinels or an I/O end.
func isKnown(err error) bool {
	for _, target := range []error{ErrBadHeader, ErrFrameTooLarge, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
