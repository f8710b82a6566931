package testutil

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that the code under test may write from its
// goroutines while the test reads it: a log sink, a record of what a
// client wrote.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
