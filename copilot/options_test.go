package copilot

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/router"
)

// invalidOptions are Options that Validate refuses, each with the field its
// error must name.
var invalidOptions = []struct {
	name  string
	opts  Options
	field string
}{
	{"unknown transport", Options{Transport: 7}, "Transport is Transport(7)"},
	{"negative start timeout", Options{StartTimeout: -time.Second}, "StartTimeout"},
	{"negative shutdown timeout", Options{ShutdownTimeout: -time.Second}, "ShutdownTimeout"},
	{"negative restart attempts", Options{Restart: &RestartPolicy{MaxAttempts: -1}}, "Restart.MaxAttempts"},
	{"negative initial interval", Options{Restart: &RestartPolicy{InitialInterval: -time.Second}}, "Restart.InitialInterval"},
	{"negative max interval", Options{Restart: &RestartPolicy{MaxInterval: -time.Second}}, "Restart.MaxInterval"},
	{"max interval below initial", Options{Restart: &RestartPolicy{InitialInterval: time.Second, MaxInterval: time.Millisecond}}, "Restart.MaxInterval"},
	{"negative router size", Options{Router: router.Config{MaxFrameBytes: -1}}, "MaxFrameBytes"},
}

func TestOptionsValidateNamesTheField(t *testing.T) {
	for _, tc := range invalidOptions {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("Validate() = %v, want ErrInvalidOptions naming %s", err, tc.field)
			}
		})
	}
	if err := invalidOptions[len(invalidOptions)-1].opts.Validate(); !errors.Is(err, router.ErrInvalidConfig) {
		t.Errorf("a Router refused by the router: err = %v, want it to wrap router.ErrInvalidConfig too", err)
	}
}

func TestOptionsValidateTakesZeroAsDefault(t *testing.T) {
	for _, o := range []Options{
		{},
		{Transport: TCP, Restart: &RestartPolicy{}},
		{StartTimeout: time.Second, ShutdownTimeout: time.Second, Restart: &RestartPolicy{MaxAttempts: 1, InitialInterval: time.Second, MaxInterval: time.Second}},
	} {
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", o, err)
		}
	}
}

func TestStartRefusesInvalidOptionsBeforeStartingAnything(t *testing.T) {
	for _, tc := range invalidOptions {
		t.Run(tc.name, func(t *testing.T) {
			// A CLI that does not exist: had Start looked for it, the error
			// would be ErrCLINotFound.
			o := tc.opts
			o.CLIPath = "/nonexistent/copilot"
			c, err := Start(testutil.Context(t, hangGuard), o)
			if !errors.Is(err, ErrInvalidOptions) || errors.Is(err, ErrCLINotFound) || c != nil {
				t.Fatalf("Start = %v, %v; want ErrInvalidOptions", c, err)
			}
		})
	}
}

// closeRecorder is a connection that only records being closed.
type closeRecorder struct{ closed bool }

func (c *closeRecorder) Read([]byte) (int, error)  { return 0, errors.New("not readable") }
func (c *closeRecorder) Write([]byte) (int, error) { return 0, errors.New("not writable") }
func (c *closeRecorder) Close() error              { c.closed = true; return nil }

func TestConnectRefusesInvalidOptionsAndClosesConn(t *testing.T) {
	for _, tc := range invalidOptions {
		t.Run(tc.name, func(t *testing.T) {
			conn := &closeRecorder{}
			c, err := Connect(testutil.Context(t, hangGuard), conn, tc.opts)
			if !errors.Is(err, ErrInvalidOptions) || c != nil {
				t.Fatalf("Connect = %v, %v; want ErrInvalidOptions", c, err)
			}
			if !conn.closed {
				t.Error("conn was left open; the client owns it")
			}
		})
	}
}

func TestDefaultsLeaveTheCallersRestartPolicy(t *testing.T) {
	p := &RestartPolicy{}
	o := Options{Restart: p}.withDefaults()
	if *p != (RestartPolicy{}) {
		t.Errorf("the caller's policy was filled in: %+v", *p)
	}
	want := RestartPolicy{MaxAttempts: defaultMaxAttempts, InitialInterval: defaultInitialInterval, MaxInterval: defaultMaxInterval}
	if *o.Restart != want || o.StartTimeout != defaultStartTimeout || o.ShutdownTimeout != defaultShutdownTimeout {
		t.Errorf("defaults = %+v, restart %+v", o, *o.Restart)
	}
}
