// Package testutil is test support, never on the production path: the small
// helpers that keep a broken test from hanging instead of failing.
//
// Every wait in the project's tests is bounded by a hang guard: a bound far
// above anything a passing run needs, so that a bug shows as a failure with a
// message rather than as a stuck CI job. A guard is never a timing assertion
// (the machines are shared and noisy); each package picks its own, larger
// for the real CLI than for in-memory pipes.
package testutil

import (
	"context"
	"testing"
	"time"
)

// Context returns a context that ends after guard or when the test ends,
// whichever is first.
func Context(t testing.TB, guard time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// Await runs f on its own goroutine and returns its error, failing the test
// if f has not returned within guard. If f never returns, the test's cleanup
// (closing a pipe, say) must end it for goleak to pass.
func Await(t testing.TB, what string, guard time.Duration, f func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- f() }()
	return Receive(t, what, guard, errc)
}

// Receive returns the next value from c, failing the test if none comes
// within guard.
func Receive[T any](t testing.TB, what string, guard time.Duration, c <-chan T) T {
	t.Helper()
	timer := time.NewTimer(guard)
	defer timer.Stop()
	select {
	case v := <-c:
		return v
	case <-timer.C:
		t.Fatalf("%s: nothing within %v", what, guard)
		var zero T
		return zero
	}
}
