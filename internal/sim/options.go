package sim

import (
	"fmt"
	"time"
)

// Version is the version string the simulator reports in connect, status.get
// and session.start. It names the CLI release whose protocol it imitates.
const Version = "sim-1.0.102"

// ProtocolVersion is the protocol version the real CLI 1.0.102 reports.
const ProtocolVersion = 3

// StartOrder decides where the session.start event of a new session goes
// relative to the session.create response. The real CLI was seen doing both.
type StartOrder int

const (
	// StartBefore writes session.start (and session.lifecycle session.created)
	// before the create response: a client that registers its route only
	// after the response loses them. This is the default.
	StartBefore StartOrder = iota
	// StartAfter writes them right after the create response.
	StartAfter
	// StartRandom picks Before or After per creation from a generator seeded
	// with Options.Seed, so a run is repeatable.
	StartRandom
)

func (o StartOrder) String() string {
	switch o {
	case StartBefore:
		return "before"
	case StartAfter:
		return "after"
	case StartRandom:
		return "random"
	}
	return fmt.Sprintf("StartOrder(%d)", int(o))
}

// BusyPolicy decides what session.send does while the session's turn runs.
type BusyPolicy int

const (
	// BusyQueue accepts the prompt (the response carries its messageId at
	// once) and runs it as its own turn after the running one ends. Abort
	// discards queued prompts. This is the default.
	BusyQueue BusyPolicy = iota
	// BusyReject answers the send with a JSON-RPC error whose message contains
	// "session is busy".
	BusyReject
)

// ToolFlow decides how the simulator asks the client to run a client tool.
type ToolFlow int

const (
	// ToolFlowEvents is the protocol-3 flow of CLI 1.0.102: permission.requested
	// and external_tool.requested events answered by
	// session.permissions.handlePendingPermissionRequest and
	// session.tools.handlePendingToolCall. This is the default.
	ToolFlowEvents ToolFlow = iota
	// ToolFlowLegacyRequest is the protocol-2 flow: a server→client JSON-RPC
	// request tool.call whose result (or error) is the tool result. No
	// permission is asked.
	ToolFlowLegacyRequest
)

// Options configure a Server. The zero value is usable: it serves
// DefaultModels, reports protocol version 3, puts session.start before the
// create response and queues sends to busy sessions.
type Options struct {
	// Models the server offers, by ID. Empty means DefaultModels().
	Models []Model
	// DefaultModel is used when session.create names no model. Empty means
	// the first of Models.
	DefaultModel string

	// ProtocolVersion reported by connect, ping and status.get. Zero means 3.
	// Set another value to test a client's version check.
	ProtocolVersion int
	// NoConnect makes connect an unknown method (-32601), as on CLIs older than
	// the connect handshake, so a client's ping fallback can be tested.
	NoConnect bool
	// Unauthenticated makes auth.getStatus report isAuthenticated:false and
	// every turn fail with session.error errorType "authentication".
	Unauthenticated bool

	// PremiumQuota is the account's premium-request allowance that
	// account.getQuota and account.getCurrentAuth report. Nil means
	// DefaultQuota(). NoPremiumQuota reports none instead, as for an
	// account whose plan the CLI knows no allowance of (so does
	// Unauthenticated).
	PremiumQuota   *Quota
	NoPremiumQuota bool

	// StartOrder places session.start relative to the create response.
	StartOrder StartOrder
	// Seed seeds StartRandom's generator.
	Seed uint64
	// Busy decides what a send to a session with a running turn does.
	Busy BusyPolicy
	// ToolFlow selects the protocol-3 event flow or the legacy tool.call
	// request for client tools. ProtocolVersion 2 implies the legacy flow.
	ToolFlow ToolFlow
	// MaxToolRounds bounds how many times one turn may go back to the script
	// with tool results; past it the turn fails with session.error. Zero
	// means 16.
	MaxToolRounds int

	// WorkspaceRoot prefixes the workspacePath reported for each session. No
	// files are created there. Empty means "/tmp/copilot-sim/session-state".
	WorkspaceRoot string

	// MaxFrameBytes bounds the body of a frame the server accepts; a larger
	// Content-Length closes the connection. Zero means 64 MiB.
	MaxFrameBytes int64
	// OutboxFrames is how many outgoing frames may wait for the client before
	// a running turn pauses (requests are still read and answered: replies
	// never wait). Zero means 4096.
	OutboxFrames int

	// RepeatEvents makes every Nth event of a session go out a second time,
	// with the same id, RepeatDistance events of that session later — as
	// the real CLI 1.0.102 was seen to do under load. Zero sends each once.
	RepeatEvents int
	// RepeatDistance is how many of the session's events pass before a
	// repeat is sent. Zero means 1 (right after the next event).
	RepeatDistance int

	// EventCopies, when set, decides how many copies of each session event
	// go on the wire: 0 drops it (a notification lost on the way), 1 sends
	// it as usual, 2 or more repeat it with the same id. The event is part
	// of the session's chain and history either way: only the wire is
	// faulty. It is called for every event, under the session's lock, so it
	// must return at once and must not call the server.
	EventCopies func(sessionID, eventType string) int
	// RecordCalls keeps every request and notification received, with its
	// params, for Server.Received. Off, only their counts are kept (Stats):
	// a long run with many sessions would otherwise hold all its traffic.
	RecordCalls bool

	// Logf receives diagnostic lines (protocol errors, dropped frames). Nil
	// discards them.
	Logf func(format string, args ...any)
}

func (o Options) withDefaults() Options {
	if len(o.Models) == 0 {
		o.Models = DefaultModels()
	}
	if o.DefaultModel == "" {
		o.DefaultModel = o.Models[0].ID
	}
	q := DefaultQuota()
	if o.PremiumQuota != nil {
		q = *o.PremiumQuota
	}
	q = q.withDefaults(time.Now())
	o.PremiumQuota = &q // a copy: the caller's stays as it was
	if o.ProtocolVersion == 0 {
		o.ProtocolVersion = ProtocolVersion
	}
	if o.ProtocolVersion == 2 {
		o.ToolFlow = ToolFlowLegacyRequest
	}
	if o.MaxToolRounds <= 0 {
		o.MaxToolRounds = 16
	}
	if o.WorkspaceRoot == "" {
		o.WorkspaceRoot = "/tmp/copilot-sim/session-state"
	}
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = 64 << 20
	}
	if o.OutboxFrames <= 0 {
		o.OutboxFrames = 4096
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// validate reports configuration mistakes NewServer cannot serve with.
func (o Options) validate() error {
	seen := make(map[string]bool, len(o.Models))
	for i, m := range o.Models {
		if m.ID == "" {
			return fmt.Errorf("sim: Models[%d] has no ID", i)
		}
		if m.Respond == nil {
			return fmt.Errorf("sim: model %q has no Respond function", m.ID)
		}
		if seen[m.ID] {
			return fmt.Errorf("sim: model %q is listed twice", m.ID)
		}
		if err := validateMultiplier(m); err != nil {
			return err
		}
		seen[m.ID] = true
	}
	if !seen[o.DefaultModel] {
		return fmt.Errorf("sim: DefaultModel %q is not among Models", o.DefaultModel)
	}
	switch o.StartOrder {
	case StartBefore, StartAfter, StartRandom:
	default:
		return fmt.Errorf("sim: unknown %v", o.StartOrder)
	}
	if err := o.PremiumQuota.validate(); err != nil {
		return err
	}
	if o.RepeatEvents < 0 || o.RepeatDistance < 0 {
		return fmt.Errorf("sim: Options.RepeatEvents (%d) and RepeatDistance (%d) must not be negative", o.RepeatEvents, o.RepeatDistance)
	}
	return nil
}

// sleep waits for d or until done is closed; it reports whether the full
// duration passed.
func sleep(done <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}
