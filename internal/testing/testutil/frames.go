package testutil

import (
	"bytes"
	"fmt"
	"strconv"
)

// Frames reassembles the Content-Length frames of a JSON-RPC byte stream
// from its pieces, however they were cut: a record of a connection's
// traffic must only ever hold whole frames, since a frame is written (or
// read) in more than one piece as often as not. Not safe for concurrent
// use.
type Frames struct {
	buf []byte
}

var headerEnd = []byte("\r\n\r\n")

// Feed adds b and returns the bodies of the frames it completed. A header
// without a valid Content-Length is an error, and what was buffered is
// dropped: the stream cannot be realigned.
func (f *Frames) Feed(b []byte) ([][]byte, error) {
	f.buf = append(f.buf, b...)
	var bodies [][]byte
	for {
		i := bytes.Index(f.buf, headerEnd)
		if i < 0 {
			return bodies, nil
		}
		n, err := contentLength(f.buf[:i])
		if err != nil {
			f.buf = nil
			return bodies, err
		}
		start := i + len(headerEnd)
		if len(f.buf)-start < n {
			return bodies, nil
		}
		bodies = append(bodies, append([]byte(nil), f.buf[start:start+n]...))
		f.buf = f.buf[start+n:]
	}
}

func contentLength(header []byte) (int, error) {
	for _, line := range bytes.Split(header, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n < 0 {
				return 0, fmt.Errorf("bad Content-Length %q", value)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("frame header without Content-Length: %q", header)
}
