package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"time"
)

// Stream is a jsonrpc2.ObjectStream over a byte connection, with bounded
// reads and non-blocking writes. See the package doc.
type Stream struct {
	rwc   io.ReadWriteCloser
	r     *bufio.Reader
	codec *Codec
	out   *queueWriter

	writeMu sync.Mutex
	frame   bytes.Buffer // one encoded frame, handed to out in a single Write

	errMu    sync.Mutex
	readErr  error
	readDone chan struct{} // closed when ReadObject first fails

	closeOnce sync.Once
	closeErr  error
}

// Hooks observe a Stream. Each may be nil; none may block.
type Hooks struct {
	// DetachParams keeps the params of requests and notifications aside for
	// TakeDetached instead of decoding them into ReadObject's value; see
	// detach.go for why.
	DetachParams bool
	// RouteKey names the member of an object params whose string value
	// TakeDetached reports as Route, found in the same pass (the router's
	// is "sessionId"). Empty: none.
	RouteKey string

	// Malformed is called for every skipped frame (see Codec.ReadObject),
	// on the reading goroutine. body is valid only during the call.
	Malformed func(err error, body []byte)
}

// NewStream starts a Stream over rwc. The caller must Close it.
func NewStream(rwc io.ReadWriteCloser, limits Limits, hooks Hooks) *Stream {
	limits = limits.WithDefaults()
	out := newQueueWriter(rwc, limits.MaxWriteBacklogBytes)
	return &Stream{
		rwc:   rwc,
		r:     bufio.NewReaderSize(rwc, max(64<<10, limits.MaxHeaderBytes+16)),
		codec: newCodec(limits, hooks),
		out:   out,

		readDone: make(chan struct{}),
	}
}

// WriteObject queues obj as one frame. It returns before the peer reads it.
// The frame is queued whole or not at all: a write refused with
// ErrWriteBacklog leaves nothing of it on the wire.
func (s *Stream) WriteObject(obj any) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.frame.Reset()
	if err := s.codec.WriteObject(&s.frame, obj); err != nil {
		return err
	}
	_, err := s.out.Write(s.frame.Bytes()) // copies
	if s.frame.Cap() > keepBody {
		s.frame = bytes.Buffer{} // a rare huge frame need not pin its memory
	}
	return err
}

// ReadObject reads the next message into v. The first error is kept as the
// connection's cause of death (see Err).
func (s *Stream) ReadObject(v any) error {
	err := s.codec.ReadObject(s.r, v)
	if err != nil {
		s.errMu.Lock()
		if s.readErr == nil {
			s.readErr = err
			close(s.readDone)
		}
		s.errMu.Unlock()
	}
	return err
}

// ReadDone is closed once a read has failed: the reading loop is ending.
func (s *Stream) ReadDone() <-chan struct{} { return s.readDone }

// Err returns why the stream stopped working: the first read error, else the
// first write error, else nil. Close itself is not an error.
func (s *Stream) Err() error {
	s.errMu.Lock()
	err := s.readErr
	s.errMu.Unlock()
	if err != nil {
		return err
	}
	return s.out.failure()
}

// Close closes the connection, discards unwritten frames and waits for the
// writing goroutine to end; later writes fail with ErrStreamClosed. It is
// safe to call more than once.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		// Refuse writes first, so that the error a blocked write gets from
		// the closing connection is not taken for the peer's failure.
		s.out.close()
		s.closeErr = s.rwc.Close()
		if !s.out.wait(closeWait) && s.closeErr == nil {
			s.closeErr = errWriteStuck
		}
	})
	return s.closeErr
}

// closeWait bounds how long Close waits for a write blocked on the peer.
const closeWait = 2 * time.Second

var errWriteStuck = errors.New("wire: the connection's Close did not interrupt a blocked write; its goroutine ends when the write does")

// WriteFailed is closed when writing to the peer has failed: the connection
// is broken, and its owner should stop using it (see Err).
func (s *Stream) WriteFailed() <-chan struct{} { return s.out.failed }

func newCodec(limits Limits, hooks Hooks) *Codec {
	c := NewCodec(limits, hooks.Malformed)
	c.detach = hooks.DetachParams
	c.routeKey = hooks.RouteKey
	return c
}
