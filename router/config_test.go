package router

import (
	"errors"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/wire"
	"github.com/quorum-go/quorum/session"
)

// A negative size is refused by Validate and by New, with an error naming
// the field and wrapping ErrInvalidConfig; New then starts nothing and
// leaves the connection open for its owner.
// Contract 10 (see the package doc).
func TestNewRefusesInvalidConfig(t *testing.T) {
	cases := map[string]struct {
		cfg  Config
		want string
	}{
		"MaxFrameBytes": {Config{MaxFrameBytes: -1},
			"router: invalid configuration: Config.MaxFrameBytes is -1; it must be positive (0 means the default, 16 MiB)"},
		"MaxWriteBacklogBytes": {Config{MaxWriteBacklogBytes: -2},
			"router: invalid configuration: Config.MaxWriteBacklogBytes is -2; it must be positive (0 means the default, 64 MiB)"},
		"MaxSessionBufferBytes": {Config{MaxSessionBufferBytes: -3},
			"router: invalid configuration: Config.MaxSessionBufferBytes is -3; it must be positive (0 means the default, 8 MiB)"},
		"MaxHeldBytes": {Config{MaxHeldBytes: -4},
			"router: invalid configuration: Config.MaxHeldBytes is -4; it must be positive (0 means the default, 1 MiB)"},
		"MaxSessionStall": {Config{MaxSessionStall: -time.Second},
			"router: invalid configuration: Config.MaxSessionStall is -1s; it must be positive (0 means the default, 1s)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if err := c.cfg.Validate(); !errors.Is(err, ErrInvalidConfig) || err.Error() != c.want {
				t.Errorf("Validate = %v, want %q", err, c.want)
			}
			conn := &brokenWriter{closed: make(chan struct{})}
			r, err := New(conn, c.cfg)
			if r != nil || !errors.Is(err, ErrInvalidConfig) || err.Error() != c.want {
				t.Fatalf("New = %v, %v; want nil, %q", r, err, c.want)
			}
			select {
			case <-conn.closed:
				t.Error("New closed the connection it refused to route")
			default:
			}
		})
	}
}

// Zero means the default, for every field.
// Contract 10 (see the package doc).
func TestZeroConfigMeansDefaults(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	if c.MaxFrameBytes != wire.DefaultMaxFrameBytes || c.MaxWriteBacklogBytes != wire.DefaultMaxWriteBacklogBytes ||
		c.MaxSessionBufferBytes != session.DefaultMaxBufferedBytes || c.MaxHeldBytes != DefaultMaxHeldBytes ||
		c.MaxSessionStall != session.DefaultMaxStall ||
		c.CreateMethod != "session.create" || c.Logger == nil {
		t.Errorf("DefaultConfig() = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}
