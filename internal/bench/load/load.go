// Package load makes CPU contention for tests and benchmarks: test support,
// never on the production path. It imports nothing of the project, so any
// package's tests may use it.
package load

import (
	"runtime"
	"sync"
)

// Burn keeps every core busy, with one spinning goroutine per
// GOMAXPROCS, until the returned stop is called; stop waits for them. Under
// it, the goroutines of the code under test wait for a core as on a loaded
// machine: the condition to test a policy against, never a clock.
func Burn() (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := 0; ; x++ {
				if x%1_000_000 == 0 {
					select {
					case <-quit:
						return
					default:
					}
				}
			}
		}()
	}
	return func() {
		close(quit)
		wg.Wait()
	}
}
