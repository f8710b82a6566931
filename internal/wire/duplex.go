package wire

import (
	"errors"
	"io"
)

// Duplex joins a read end and a write end into one connection: a child's
// stdout and stdin, a process's own stdin and stdout, or two pipes in a
// benchmark. Closing it closes both ends, the write end first so the peer
// sees end of input even when the read end's Close would block or fail.
type Duplex struct {
	R io.ReadCloser
	W io.WriteCloser
}

func (d Duplex) Read(p []byte) (int, error)  { return d.R.Read(p) }
func (d Duplex) Write(p []byte) (int, error) { return d.W.Write(p) }

// Close closes the write end, then the read end, and joins their errors.
func (d Duplex) Close() error {
	werr := d.W.Close()
	return errors.Join(werr, d.R.Close())
}
