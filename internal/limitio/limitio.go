// Package limitio holds the one bounded writer the project's children
// write into: git's output read by quorum review, quorum mcp and agent
// mode, and the simulator's played commands.
package limitio

import "bytes"

// Buffer keeps the first Max bytes written to it and counts the rest
// away: a write never fails and never blocks, so a child writing more
// than anyone reads is neither stopped nor stuck on a full pipe.
type Buffer struct {
	Max  int
	buf  bytes.Buffer
	over bool
}

// Write keeps what fits within Max and reports all of p written.
func (b *Buffer) Write(p []byte) (int, error) {
	if room := b.Max - b.buf.Len(); room < len(p) {
		b.over = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Over reports whether more than Max bytes were written.
func (b *Buffer) Over() bool { return b.over }

// Bytes returns what was kept.
func (b *Buffer) Bytes() []byte { return b.buf.Bytes() }

// String returns what was kept.
func (b *Buffer) String() string { return b.buf.String() }
