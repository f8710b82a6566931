package router

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/copilot/protocol"

	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// Config configures a Router. The zero value of every field means its
// documented default; DefaultConfig returns them filled in. New refuses a
// Config that Validate refuses.
type Config struct {
	// MaxFrameBytes is the largest message accepted from the peer; a larger
	// one ends the connection with an error wrapping ErrFrameTooLarge.
	// Default 16 MiB.
	MaxFrameBytes int

	// MaxWriteBacklogBytes bounds what is queued for a peer that is not
	// reading; past it, a call fails with ErrWriteBacklog instead of
	// waiting. Default 64 MiB.
	MaxWriteBacklogBytes int

	// MaxSessionBufferBytes bounds what one session may hold unread while
	// its consumer does not receive: past it, the session fails with
	// session.ErrFellBehind once its consumer has received nothing for
	// MaxSessionStall, and at four times it whatever the consumer does (see
	// the package doc). Subscriptions use it too. Default 8 MiB
	// (session.DefaultMaxBufferedBytes).
	MaxSessionBufferBytes int

	// MaxSessionStall is how long a session's consumer may go without
	// receiving while more than MaxSessionBufferBytes wait. Default 1 s
	// (session.DefaultMaxStall).
	MaxSessionStall time.Duration

	// MaxTurnTextBytes bounds the text a session's turn read accumulates
	// (session.Config.MaxTurnTextBytes): past it the read fails with
	// session.ErrTurnTooLarge. Default 16 MiB (session.DefaultMaxTurnTextBytes).
	MaxTurnTextBytes int

	// MaxHeldBytes bounds the messages held for a session whose
	// server-assigned id is not known yet (see CreateAssigned). Default 1 MiB
	// (DefaultMaxHeldBytes).
	MaxHeldBytes int

	// MaxSessions bounds the sessions routed at once (Open, Create,
	// CreateAssigned); past it, they fail with an error wrapping
	// ErrTooManySessions. Default 65,536 (DefaultMaxSessions).
	MaxSessions int

	// CreateMethod names the method that creates a session (Create,
	// CreateAssigned). Default "session.create".
	CreateMethod string

	// Logger receives the router's diagnostics. Default: silent.
	Logger *zerolog.Logger
}

// DefaultMaxSessions is the default of Config.MaxSessions: far more than
// the CLI serves at once, few enough that their routes stay small.
const DefaultMaxSessions = 1 << 16

// DefaultMaxHeldBytes is the default of Config.MaxHeldBytes.
const DefaultMaxHeldBytes = 1 << 20

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config { return Config{}.withDefaults() }

// Validate reports the first field of c that New refuses, naming it, in an
// error wrapping ErrInvalidConfig. A size or a time may not be negative;
// zero is never refused, since it means the field's default.
func (c Config) Validate() error {
	for _, f := range c.sizes() {
		if *f.value < 0 {
			// Every default is a whole number of MiB.
			return fmt.Errorf("%w: Config.%s is %d; it must be positive (0 means the default, %d MiB)",
				ErrInvalidConfig, f.name, *f.value, f.def>>20)
		}
	}
	if c.MaxSessions < 0 {
		return fmt.Errorf("%w: Config.MaxSessions is %d; it must be positive (0 means the default, %d)",
			ErrInvalidConfig, c.MaxSessions, DefaultMaxSessions)
	}
	if c.MaxSessionStall < 0 {
		return fmt.Errorf("%w: Config.MaxSessionStall is %v; it must be positive (0 means the default, %v)",
			ErrInvalidConfig, c.MaxSessionStall, session.DefaultMaxStall)
	}
	return nil
}

// sizeField is one of Config's byte sizes, with its default.
type sizeField struct {
	name  string
	value *int
	def   int
}

// sizes lists c's byte sizes. Validate and withDefaults both go through
// it, so no size is checked without its default being filled, or the other
// way round.
func (c *Config) sizes() []sizeField {
	return []sizeField{
		{"MaxFrameBytes", &c.MaxFrameBytes, wire.DefaultMaxFrameBytes},
		{"MaxWriteBacklogBytes", &c.MaxWriteBacklogBytes, wire.DefaultMaxWriteBacklogBytes},
		{"MaxSessionBufferBytes", &c.MaxSessionBufferBytes, session.DefaultMaxBufferedBytes},
		{"MaxHeldBytes", &c.MaxHeldBytes, DefaultMaxHeldBytes},
		{"MaxTurnTextBytes", &c.MaxTurnTextBytes, session.DefaultMaxTurnTextBytes},
	}
}

// withDefaults fills every zero field with its default. c must be valid.
func (c Config) withDefaults() Config {
	for _, f := range c.sizes() {
		if *f.value == 0 {
			*f.value = f.def
		}
	}
	if c.MaxSessionStall == 0 {
		c.MaxSessionStall = session.DefaultMaxStall
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.CreateMethod == "" {
		c.CreateMethod = protocol.MethodSessionCreate
	}
	if c.Logger == nil {
		nop := zerolog.Nop()
		c.Logger = &nop
	}
	return c
}
