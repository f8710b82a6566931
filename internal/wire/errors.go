package wire

import "errors"

var (
	// ErrFrameTooLarge reports a Content-Length above Limits.MaxFrameBytes.
	// The stream cannot resynchronise without reading the body, so the
	// connection ends with this error.
	ErrFrameTooLarge = errors.New("wire: frame exceeds the size limit")

	// ErrBadHeader reports a frame header that cannot be parsed: a line that
	// is too long, too many lines, no Content-Length, or a bad line ending.
	ErrBadHeader = errors.New("wire: malformed frame header")

	// ErrMalformedMessage reports a well-framed body that is not a JSON-RPC
	// 2.0 message. Such frames are skipped; the error goes to Hooks.Malformed.
	ErrMalformedMessage = errors.New("wire: frame body is not a JSON-RPC message")

	// ErrWriteBacklog reports that the peer has not read what was already
	// written and the outgoing queue is full.
	ErrWriteBacklog = errors.New("wire: peer is not reading; outgoing queue is full")

	// ErrStreamClosed reports a write after the stream was closed.
	ErrStreamClosed = errors.New("wire: stream closed")
)
