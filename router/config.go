package router

import (
	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// Config configures a Router. The zero value of every field means its
// documented default; DefaultConfig returns them filled in.
type Config struct {
	// MaxFrameBytes is the largest message accepted from the peer; a larger
	// one ends the connection with an error wrapping wire.ErrFrameTooLarge.
	// Default 16 MiB.
	MaxFrameBytes int

	// MaxWriteBacklogBytes bounds what is queued for a peer that is not
	// reading; past it, a call fails with wire.ErrWriteBacklog instead of
	// waiting. Default 64 MiB.
	MaxWriteBacklogBytes int

	// MaxSessionBufferBytes bounds what one session may hold unread before
	// it fails with session.ErrFellBehind. Subscriptions use it too.
	// Default 8 MiB (session.DefaultMaxBufferedBytes).
	MaxSessionBufferBytes int

	// MaxHeldBytes bounds the messages held for a session whose
	// server-assigned id is not known yet (see CreateAssigned). Default 1 MiB.
	MaxHeldBytes int

	// CreateMethod names the method that creates a session (Create,
	// CreateAssigned). Default "session.create".
	CreateMethod string

	// Logger receives the router's diagnostics. Default: silent.
	Logger *zerolog.Logger
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config { return Config{}.withDefaults() }

func (c Config) withDefaults() Config {
	l := wire.Limits{MaxFrameBytes: c.MaxFrameBytes, MaxWriteBacklogBytes: c.MaxWriteBacklogBytes}.WithDefaults()
	c.MaxFrameBytes, c.MaxWriteBacklogBytes = l.MaxFrameBytes, l.MaxWriteBacklogBytes
	if c.MaxSessionBufferBytes <= 0 {
		c.MaxSessionBufferBytes = session.DefaultMaxBufferedBytes
	}
	if c.MaxHeldBytes <= 0 {
		c.MaxHeldBytes = 1 << 20
	}
	if c.CreateMethod == "" {
		c.CreateMethod = "session.create"
	}
	if c.Logger == nil {
		nop := zerolog.Nop()
		c.Logger = &nop
	}
	return c
}
