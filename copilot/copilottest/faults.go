package copilottest

import (
	"slices"
	"sync"
)

// faults are the event faults in force: types dropped, types duplicated.
type faults struct {
	mu   sync.Mutex
	drop []string
	dup  []string
}

// copies is the engine's EventCopies: how many copies of an event go on
// the wire.
func (f *faults) copies(_, eventType string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case slices.Contains(f.drop, eventType):
		return 0
	case slices.Contains(f.dup, eventType):
		return 2
	}
	return 1
}

// DropEvents makes the server lose, from now on, every event of these
// types (protocol.Event… constants) on its way to the client, as a faulty
// connection would: the session's history still has it. Dropping
// session.idle leaves a turn without its end, which the client notices
// only by a deadline or copilot.SessionConfig.TurnInactivity; and after an
// aborted turn whose idle was lost, the session's next Stream waits for 2 s
// of quiet before it starts (copilot.Session.Stream says why), so give it a
// context longer than that.
func (s *Server) DropEvents(types ...string) {
	s.faults.mu.Lock()
	s.faults.drop = append(s.faults.drop, types...)
	s.faults.mu.Unlock()
}

// DuplicateEvents makes the server send, from now on, every event of these
// types twice, with the same id, as the CLI was seen to under load.
func (s *Server) DuplicateEvents(types ...string) {
	s.faults.mu.Lock()
	s.faults.dup = append(s.faults.dup, types...)
	s.faults.mu.Unlock()
}

// HealEvents ends DropEvents and DuplicateEvents: from now on every event
// goes out once.
func (s *Server) HealEvents() {
	s.faults.mu.Lock()
	s.faults.drop, s.faults.dup = nil, nil
	s.faults.mu.Unlock()
}
