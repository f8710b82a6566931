//go:build !unix

package bench

import "time"

// ProcessCPU is not measured on this system: it is always zero, and the
// CPU figures say n/a.
func ProcessCPU() time.Duration { return 0 }
