package sim

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// A session's state and how its events are emitted: the event chain, the
// settings a turn reads, the turn queue, and the one path (act, under the
// session's lock) by which a turn emits, so nothing is sent for a session
// after it is destroyed or for a turn after its abort. The requests that
// change it are sessionmethods.go's and manage.go's; turns are turn.go's.

// Event is one session event, as carried by a session.event notification and
// returned by session.getMessages.
//
// It is not protocol.Event because the schema requires parentId on every
// event, null for the first, and protocol.Event leaves a nil ParentID out.
type Event struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	ParentID  *string         `json:"parentId"`
	Ephemeral bool            `json:"ephemeral,omitempty"`
	// AgentID names the sub-agent the event belongs to; empty (and left
	// out) for the main agent, as on the real CLI.
	AgentID string `json:"agentId,omitempty"`
}

// timestampLayout is RFC 3339 with milliseconds, as JavaScript's toISOString.
const timestampLayout = "2006-01-02T15:04:05.000Z07:00"

func now() string { return time.Now().UTC().Format(timestampLayout) }

// errStopped tells a turn that it was aborted, its session destroyed or its
// connection closed: it returns without emitting anything more.
var errStopped = errors.New("sim: turn stopped")

// session is one simulated session. Its events form a chain (parentId) in
// emission order; emission happens under mu, so nothing can be emitted for it
// after it is destroyed and nothing from an aborted turn after the abort.
type session struct {
	conn       *Conn
	id         string
	system     string
	workspace  string
	cwd        string
	started    string
	clientName string

	mu        sync.Mutex
	cfg       settings // what session.resume and session.model.switchTo change
	destroyed bool
	lastID    *string // the last non-ephemeral event, parent of the next event
	log       []Event // non-ephemeral events, for session.getMessages
	cur       *turn   // the turn whose events are flowing, if any
	queue     []*turn // accepted sends waiting for the runner
	running   bool    // a runner goroutine exists
	turns     int     // sends accepted so far
	history   []Exchange
	pending   map[string]*pendingAnswer // by requestId

	// On disk: a session is kept (the server's store, session.list) from
	// its first user.message on; modified is its last persisted event's
	// time.
	persisted bool
	summary   string
	modified  string

	lastModel    string          // the model of the last model call, for the switch notice
	approved     map[string]bool // tools approved for the rest of the session
	shells       int             // bash commands played: the next one's shellId
	hooksStarted bool            // the sessionStart hook has run
	resumed      bool            // taken up by session.resume: sessionStart's source is "resume"

	// The RepeatEvents fault: events sent so far, and copies waiting to
	// be sent again once emitted reaches their due count.
	emitted int
	repeats []repeat
}

// settings are what a client sets at session.create and may change later:
// session.resume replaces them, session.model.switchTo and the auto-mode
// switch change the model. A turn reads them under the session's lock
// (session.settings) at each model call.
type settings struct {
	// model is the model id the next model call asks for. Once switched it
	// may be any id, as on the real CLI: one the server does not offer
	// fails the turn that asks for it.
	model                 string
	streaming             bool
	requestPermission     bool
	requestUserInput      bool
	requestAutoModeSwitch bool
	requestElicitation    bool // the client fills in forms (Response.Elicit)
	hooks                 bool
	tools                 []protocol.ToolDefinition // replaced, never changed in place
	// builtins are the built-in tools (builtinTools) the session offers;
	// replaced, never changed in place.
	builtins []string
	// sandbox is the session's sandboxConfig (sandbox.go); nil or not
	// enabled: none.
	sandbox *protocol.SandboxConfig
}

// settings returns the session's settings as they are now.
func (s *session) settings() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// repeat is an event to send a second time.
type repeat struct {
	due    int
	params json.RawMessage
}

// turn is one session.send being served.
type turn struct {
	number    int
	prompt    string
	messageID string
	ctx       context.Context
	cancel    context.CancelFunc
	aborted   bool // guarded by the session's mu
	// permissions are the ToolCall.Permission requests of the current
	// model call's tool calls, by toolCallId; only the turn's goroutine
	// touches them.
	permissions map[string]json.RawMessage
}

// tool returns the client tool called name among tools.
func tool(tools []protocol.ToolDefinition, name string) (protocol.ToolDefinition, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return protocol.ToolDefinition{}, false
}

// emitLocked appends a main-agent event to the chain and queues its
// notification. s.mu is held. Whether the event is ephemeral is the
// schema's call (protocol.IsEphemeral), so the simulator cannot disagree
// with the CLI about what session.getMessages keeps.
func (s *session) emitLocked(typ string, data any) {
	s.emitEventLocked("", typ, data, protocol.IsEphemeral(typ))
}

// emitEventLocked is emitLocked with the agent and ephemerality given, for
// sub-agents and for injected events. Ephemeral events point at the last
// persisted event but are not parents themselves, so the persisted log is a
// chain on its own.
func (s *session) emitEventLocked(agentID, typ string, data any, ephemeral bool) {
	raw, err := json.Marshal(data)
	if err != nil {
		raw, _ = json.Marshal(map[string]string{"error": "sim: unmarshalable event data: " + err.Error()})
	}
	ev := Event{Type: typ, Data: raw, ID: uuid.NewString(), Timestamp: now(), ParentID: s.lastID, Ephemeral: ephemeral, AgentID: agentID}
	if !ephemeral {
		id := ev.ID
		s.lastID = &id
		s.log = append(s.log, ev)
		s.modified = ev.Timestamp
		if m, ok := data.(protocol.UserMessageData); ok && typ == protocol.EventUserMessage && !s.persisted {
			s.persisted, s.summary = true, summaryOf(m.Content)
		}
	}
	params := eventParams(s.id, ev)
	copies := 1
	if f := s.conn.srv.opts.EventCopies; f != nil {
		copies = f(s.id, typ)
	}
	for range copies {
		s.conn.notify(protocol.NotificationSessionEvent, params)
	}
	s.repeatLocked(params)
	if !ephemeral {
		// As CLI 1.0.102 does: each persisted event updates the session's
		// file, which session.lifecycle session.updated announces.
		if s.persisted {
			s.conn.srv.store.put(s.metaLocked(), s)
		}
		s.conn.lifecycle(protocol.LifecycleSessionUpdated, s.id, s.started, s.modified)
	}
}

// metaLocked is what session.list and session.getMetadata say of s. s.mu
// is held.
func (s *session) metaLocked() protocol.SessionListEntry {
	m := protocol.SessionListEntry{
		SessionID:    s.id,
		StartTime:    s.started,
		ModifiedTime: s.modified,
		Summary:      s.summary,
		Name:         s.summary,
		ClientName:   s.clientName,
		IsDetached:   ptr(false),
	}
	if s.cwd != "" {
		m.Context = &protocol.SessionContext{Cwd: s.cwd}
	}
	return m
}

// repeatLocked implements Options.RepeatEvents: it sends the copies that
// are due and schedules one of the event just sent when its turn comes.
func (s *session) repeatLocked(params json.RawMessage) {
	opts := s.conn.srv.opts
	if opts.RepeatEvents <= 0 {
		return
	}
	s.emitted++
	for len(s.repeats) > 0 && s.repeats[0].due <= s.emitted {
		s.conn.notify(protocol.NotificationSessionEvent, s.repeats[0].params)
		s.repeats = s.repeats[1:]
	}
	if s.emitted%opts.RepeatEvents == 0 {
		s.repeats = append(s.repeats, repeat{due: s.emitted + max(opts.RepeatDistance, 1), params: params})
	}
}

func eventParams(sessionID string, ev Event) json.RawMessage {
	raw, _ := json.Marshal(struct {
		SessionID string `json:"sessionId"`
		Event     Event  `json:"event"`
	}{sessionID, ev})
	return raw
}

// stoppedLocked reports whether t may no longer emit. s.mu is held.
func (s *session) stoppedLocked(t *turn) bool {
	return s.destroyed || t.aborted || t.ctx.Err() != nil
}

// emit is emitLocked for a turn: it waits for room in the outbox first (the
// only place the simulator applies backpressure) and drops the event if the
// turn was stopped meanwhile.
func (s *session) emit(t *turn, typ string, data any) error {
	return s.emitThen(t, "", typ, data, nil)
}

// emitAgent is emit for an event of the sub-agent agentID.
func (s *session) emitAgent(t *turn, agentID, typ string, data any) error {
	return s.emitThen(t, agentID, typ, data, nil)
}

// emitThen is emit that also runs fn under the same hold of s.mu, so that
// state changes land atomically with the event (the end of a turn, a pending
// request being registered).
func (s *session) emitThen(t *turn, agentID, typ string, data any, fn func()) error {
	return s.act(t, func() {
		s.emitEventLocked(agentID, typ, data, protocol.IsEphemeral(typ))
		if fn != nil {
			fn()
		}
	})
}

// act runs fn, which emits, for the turn t under s.mu, once there is room in
// the outbox (the only place the simulator applies backpressure), unless
// the turn was stopped meanwhile (errStopped).
func (s *session) act(t *turn, fn func()) error {
	if err := s.conn.out.waitRoom(t.ctx); err != nil {
		return errStopped
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stoppedLocked(t) {
		return errStopped
	}
	fn()
	return nil
}

// stopLocked stops the running turn and drops queued ones. It reports
// whether there was anything to stop. s.mu is held.
func (s *session) stopLocked() bool {
	stopped := false
	if t := s.cur; t != nil {
		t.aborted = true
		t.cancel()
		s.cur = nil
		stopped = true
	}
	for _, t := range s.queue {
		t.aborted = true
		t.cancel()
		stopped = true
	}
	s.queue = nil
	clear(s.pending)
	return stopped
}

// kill ends the session without a word, for a closing connection.
func (s *session) kill() {
	s.mu.Lock()
	s.destroyed = true
	s.stopLocked()
	s.mu.Unlock()
}

// defaultClientName is the clientName CLI 1.0.102 records for a session
// created without one.
const defaultClientName = "sdk"

// newSession returns a session of c, not yet registered, for the params of
// a create or resume.
func (c *Conn) newSession(id string, p createParams, system, model string) *session {
	client := p.ClientName
	if client == "" {
		client = defaultClientName
	}
	return &session{
		conn:       c,
		id:         id,
		cfg:        p.settings(model),
		system:     system,
		workspace:  path.Join(c.srv.opts.WorkspaceRoot, id),
		cwd:        p.WorkingDirectory,
		started:    now(),
		clientName: client,
		pending:    map[string]*pendingAnswer{},
		approved:   map[string]bool{},
	}
}

// lifecycle queues a session.lifecycle notification whose metadata holds the
// session's start and last modification times, as the real CLI's do.
func (c *Conn) lifecycle(typ, sessionID, started, modified string) {
	meta, _ := json.Marshal(struct {
		StartTime    string `json:"startTime"`
		ModifiedTime string `json:"modifiedTime"`
	}{started, modified})
	raw, _ := json.Marshal(protocol.LifecycleNotification{Type: typ, SessionID: sessionID, Metadata: meta})
	c.notify(protocol.NotificationSessionLifecycle, raw)
}
