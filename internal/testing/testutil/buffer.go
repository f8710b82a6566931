package testutil

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that the code under test may write from its
// goroutines while the test reads it: a log sink, a record of what a
// client wrote, a child's stderr.
type Buffer struct {
	// Max, if positive, bounds what is kept: the first Max bytes, enough to
	// diagnose a failure, so that a chatty writer cannot grow the test's
	// memory. Writes past it are taken and dropped.
	Max int

	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p, or what of it fits under Max.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := p
	if b.Max > 0 {
		keep = p[:min(len(p), max(b.Max-b.buf.Len(), 0))]
	}
	b.buf.Write(keep)
	return len(p), nil
}

// String returns everything kept so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
