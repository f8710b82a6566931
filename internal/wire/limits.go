package wire

// Limits bound what one peer can make the other buffer. The zero value of
// each field means its default.
type Limits struct {
	// MaxFrameBytes is the largest accepted Content-Length. The Copilot CLI's
	// largest observed message is a model.messages_snapshot of a few hundred
	// KB after a long reply; the default leaves a wide margin. Default 16 MiB.
	MaxFrameBytes int

	// MaxHeaderBytes bounds one frame's header section (all lines together).
	// Default 4 KiB.
	MaxHeaderBytes int

	// MaxWriteBacklogBytes bounds the bytes queued for the peer but not yet
	// written. Default 64 MiB.
	MaxWriteBacklogBytes int
}

// Default limits.
const (
	DefaultMaxFrameBytes        = 16 << 20
	DefaultMaxHeaderBytes       = 4 << 10
	DefaultMaxWriteBacklogBytes = 64 << 20
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxFrameBytes <= 0 {
		l.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxWriteBacklogBytes <= 0 {
		l.MaxWriteBacklogBytes = DefaultMaxWriteBacklogBytes
	}
	return l
}
