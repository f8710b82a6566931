package wire

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// Stream is a jsonrpc2.ObjectStream over a byte connection, with bounded
// reads and non-blocking writes. See the package doc.
type Stream struct {
	rwc   io.ReadWriteCloser
	r     *bufio.Reader
	codec *Codec
	out   *queueWriter
	w     *bufio.Writer // frames one object into out with a single Write

	writeMu sync.Mutex

	errMu    sync.Mutex
	readErr  error
	readDone chan struct{} // closed when ReadObject first fails

	closeOnce sync.Once
	closeErr  error
}

// Hooks observe a Stream. Each may be nil; none may block.
type Hooks struct {
	// Malformed is called for every skipped frame (see Codec.ReadObject).
	Malformed func(err error, body []byte)
}

// NewStream starts a Stream over rwc. The caller must Close it.
func NewStream(rwc io.ReadWriteCloser, limits Limits, hooks Hooks) *Stream {
	limits = limits.WithDefaults()
	out := newQueueWriter(rwc, limits.MaxWriteBacklogBytes)
	return &Stream{
		rwc:   rwc,
		r:     bufio.NewReaderSize(rwc, max(64<<10, limits.MaxHeaderBytes+16)),
		codec: NewCodec(limits, hooks.Malformed),
		out:   out,
		w:     bufio.NewWriterSize(out, 8<<10),

		readDone: make(chan struct{}),
	}
}

// WriteObject queues obj as one frame. It returns before the peer reads it.
func (s *Stream) WriteObject(obj any) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.codec.WriteObject(s.w, obj); err != nil {
		s.w.Reset(s.out) // drop a half-framed object
		return err
	}
	return s.w.Flush()
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
// first write error, else nil.
func (s *Stream) Err() error {
	s.errMu.Lock()
	err := s.readErr
	s.errMu.Unlock()
	if err != nil {
		return err
	}
	if err := s.out.failure(); err != nil && !errors.Is(err, ErrStreamClosed) {
		return err
	}
	return nil
}

// Close closes the connection, discards unwritten frames and waits for the
// writing goroutine to end. It is safe to call more than once.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.rwc.Close()
		s.out.stop()
	})
	return s.closeErr
}
