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

// await runs f on its own goroutine and returns its error, failing the test
// if f has not returned within hangGuard. If it never returns, the test's
// cleanup (closing the pipe) must end it for goleak to pass.
func await(t *testing.T, what string, f func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- f() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(hangGuard):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

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
