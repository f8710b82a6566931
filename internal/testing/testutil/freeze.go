package testutil

import (
	"io"
	"sync"
)

// Freezer is a connection that can stop delivering what the peer sends,
// as a stopped or deadlocked CLI would: nothing arrives, and no error.
type Freezer struct {
	io.ReadWriteCloser
	mu     sync.Mutex
	gate   chan struct{} // closed while the connection flows
	closed chan struct{}
	once   sync.Once
}

// NewFreezer wraps rwc, flowing.
func NewFreezer(rwc io.ReadWriteCloser) *Freezer {
	f := &Freezer{ReadWriteCloser: rwc, gate: make(chan struct{}), closed: make(chan struct{})}
	close(f.gate)
	return f
}

// wait blocks while frozen.
func (f *Freezer) wait() error {
	f.mu.Lock()
	gate := f.gate
	f.mu.Unlock()
	select {
	case <-gate:
		return nil
	case <-f.closed:
		return io.ErrClosedPipe
	}
}

// Read holds back what arrives while frozen, before and after the read.
func (f *Freezer) Read(p []byte) (int, error) {
	if err := f.wait(); err != nil {
		return 0, err
	}
	n, err := f.ReadWriteCloser.Read(p)
	if werr := f.wait(); werr != nil {
		return 0, werr
	}
	return n, err
}

func (f *Freezer) Close() error {
	f.once.Do(func() { close(f.closed) })
	return f.ReadWriteCloser.Close()
}

// Freeze stops delivery until Thaw.
func (f *Freezer) Freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gate = make(chan struct{})
}

// Thaw lets what was held back, and what follows, through.
func (f *Freezer) Thaw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.gate)
}
