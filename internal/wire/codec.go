package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// Codec is a jsonrpc2.ObjectCodec for Content-Length framing whose reading
// side enforces Limits. Only one goroutine may call ReadObject at a time (the
// jsonrpc2 read loop); WriteObject may be called concurrently by the stream's
// callers, which serialise it.
type Codec struct {
	limits Limits
	// Malformed is called, on the reading goroutine, for every skipped frame.
	malformed func(err error, body []byte)
	// body and line are reused between frames: json.Unmarshal copies what
	// it keeps.
	body, line []byte

	// With detach, the params of a request or notification are kept here
	// for TakeDetached instead of being decoded into v (see detach.go).
	detach   bool
	routeKey string
	kept     bool
	detached Detached
	methods  map[string]string // interned method names
}

// NewCodec returns a codec with the given limits. malformed, if not nil, is
// called for every well-framed body that is skipped because it is not a
// JSON-RPC message; it must not block, and body is valid only during the
// call (the codec reuses it).
func NewCodec(limits Limits, malformed func(err error, body []byte)) *Codec {
	return &Codec{limits: limits.WithDefaults(), malformed: malformed}
}

// WriteObject writes obj with jsonrpc2's own VS Code framing.
func (c *Codec) WriteObject(stream io.Writer, obj any) error {
	return jsonrpc2.VSCodeObjectCodec{}.WriteObject(stream, obj)
}

// keepBody is the largest body buffer kept between frames; a rare huge frame
// should not pin its memory for the connection's life.
const keepBody = 256 << 10

// ReadObject reads frames until one decodes into v. A frame with intact
// framing but a body that is not a JSON-RPC message is reported and skipped:
// the next frame is still aligned, so one bad message need not end the
// connection. Framing errors end it, since the stream cannot be realigned.
// After a skipped frame v is reset to its zero value, so nothing of the
// failed decode leaks into the next. v must be a non-nil pointer; otherwise
// ReadObject returns a *json.InvalidUnmarshalError and reads nothing.
func (c *Codec) ReadObject(stream *bufio.Reader, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		// Every frame would fail to decode; skipping them all as malformed
		// would swallow the connection.
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	for {
		n, err := c.readHeader(stream)
		if err != nil {
			return err
		}
		if cap(c.body) < n || cap(c.body) > keepBody && n <= keepBody {
			c.body = make([]byte, n, max(n, 4<<10))
		}
		body := c.body[:n]
		if _, err := io.ReadFull(stream, body); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("wire: reading a %d-byte frame body: %w", n, err)
		}
		c.kept, c.detached = false, Detached{}
		if c.detach && c.decodeDetached(body, v) {
			return nil
		}
		if err := json.Unmarshal(body, v); err != nil {
			// Clear anything the failed decode left behind before the next try.
			reflect.ValueOf(v).Elem().SetZero()
			if c.malformed != nil {
				c.malformed(fmt.Errorf("%w: %w", ErrMalformedMessage, err), body)
			}
			continue
		}
		return nil
	}
}

var contentLength = []byte("content-length")

// readHeader reads one header section and returns the Content-Length.
func (c *Codec) readHeader(r *bufio.Reader) (int, error) {
	length := -1
	total := 0
	for {
		line, err := c.readLine(r, c.limits.MaxHeaderBytes-total)
		total += len(line)
		if err != nil {
			if err == io.EOF && total > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if len(line) < 2 || line[len(line)-2] != '\r' {
			return 0, fmt.Errorf("%w: header line %q does not end in \\r\\n", ErrBadHeader, truncate(line))
		}
		line = line[:len(line)-2]
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			return 0, fmt.Errorf("%w: header line %q has no colon", ErrBadHeader, truncate(line))
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), contentLength) {
			continue // Content-Type and any other header carry nothing we use.
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: bad Content-Length %q", ErrBadHeader, truncate(value))
		}
		if n > int64(c.limits.MaxFrameBytes) {
			return 0, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", ErrFrameTooLarge, n, c.limits.MaxFrameBytes)
		}
		length = int(n)
	}
	if length < 0 {
		return 0, fmt.Errorf("%w: no Content-Length header", ErrBadHeader)
	}
	return length, nil
}

// readLine reads through the next '\n', failing once more than limit bytes
// came without one. Byte by byte from the buffer: a header is a few dozen
// bytes, and ReadSlice would wait for a full buffer before it could tell an
// endless line from a long one.
func (c *Codec) readLine(r *bufio.Reader, limit int) ([]byte, error) {
	c.line = c.line[:0]
	for {
		b, err := r.ReadByte()
		if err != nil {
			return c.line, err
		}
		c.line = append(c.line, b)
		if b == '\n' {
			return c.line, nil
		}
		if len(c.line) >= limit {
			return c.line, fmt.Errorf("%w: header longer than %d bytes", ErrBadHeader, c.limits.MaxHeaderBytes)
		}
	}
}

func truncate(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
