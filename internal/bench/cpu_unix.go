//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used so far, user and
// system, all threads: what the OS bills a client for.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
