package sim

import (
	"maps"
	"slices"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Managing sessions, as CLI 1.0.102 does it: session.destroy disconnects a
// session and keeps it on disk (the server's store) once it has had a
// message; session.delete removes it, stopping it first if it is live;
// session.list, getMetadata and getLastId read what is on disk;
// session.resume takes up a kept session again.

// sessionParams decodes params that name one session and returns its id.
func sessionParams(r *request) (string, error) {
	var p protocol.SessionIDParams
	if err := r.decode(&p); err != nil {
		return "", err
	}
	if p.SessionID == "" {
		return "", invalidParams("invalid params for %s: sessionId is required", r.method)
	}
	return p.SessionID, nil
}

// handleDestroy stops a live session of this connection and forgets it
// here; a session that has had a message stays on disk. As on the real CLI,
// a session that is not live on the connection is answered success:false,
// not with an error.
func (c *Conn) handleDestroy(r *request) (any, error) {
	id, err := sessionParams(r)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	s := c.sessions[id]
	delete(c.sessions, id)
	c.mu.Unlock()
	if s == nil {
		return protocol.SuccessResult{Success: false}, nil
	}
	s.kill()
	return protocol.SuccessResult{Success: true}, nil
}

// deleteNotFound is the real CLI's answer to deleting a session it does not
// keep.
const deleteNotFound = "Session file not found for "

// handleDelete removes a session: a live one (of any connection) is stopped
// first, its turn ended without another event, and it leaves the disk. It
// is announced by session.lifecycle session.deleted, twice, as CLI 1.0.102
// does. A session neither live nor kept is answered success:false with the
// CLI's reason, not with an error.
func (c *Conn) handleDelete(r *request) (any, error) {
	id, err := sessionParams(r)
	if err != nil {
		return nil, err
	}
	live := c.srv.takeLive(id)
	if live != nil {
		live.kill()
	}
	kept := c.srv.store.remove(id)
	if live == nil && !kept {
		return protocol.SuccessResult{Success: false, Error: deleteNotFound + id}, nil
	}
	started, modified := now(), now()
	if live != nil {
		live.mu.Lock()
		started, modified = live.started, live.modified
		live.mu.Unlock()
	}
	c.lifecycle(protocol.LifecycleSessionDeleted, id, started, modified)
	c.lifecycle(protocol.LifecycleSessionDeleted, id, started, modified)
	return protocol.SuccessResult{Success: true}, nil
}

// takeLive removes the live session id from whichever connection has it and
// returns it, or nil.
func (srv *Server) takeLive(id string) *session {
	for _, c := range srv.Conns() {
		c.mu.Lock()
		s := c.sessions[id]
		delete(c.sessions, id)
		c.mu.Unlock()
		if s != nil {
			return s
		}
	}
	return nil
}

// liveElsewhere reports whether a connection other than c has session id
// live.
func (srv *Server) liveElsewhere(c *Conn, id string) bool {
	for _, other := range srv.Conns() {
		if other != c && other.session(id) != nil {
			return true
		}
	}
	return false
}

func (c *Conn) handleSessionList(r *request) (any, error) {
	return protocol.SessionListResult{Sessions: c.srv.store.list()}, nil
}

// handleGetMetadata answers {"session": entry} for a kept session and {} for
// any other, one not yet written to disk (no message yet) included.
func (c *Conn) handleGetMetadata(r *request) (any, error) {
	id, err := sessionParams(r)
	if err != nil {
		return nil, err
	}
	meta, _, ok := c.srv.store.get(id)
	if !ok {
		return protocol.SessionMetadataResult{}, nil
	}
	return protocol.SessionMetadataResult{Session: &meta}, nil
}

// handleGetLastID answers the last modified kept session, or {}.
func (c *Conn) handleGetLastID(r *request) (any, error) {
	return protocol.SessionIDResult{SessionID: c.srv.store.last()}, nil
}

// handleGetForeground answers {}: only a CLI with a terminal UI has a
// foreground session, and the simulator is headless.
func (c *Conn) handleGetForeground(r *request) (any, error) {
	return protocol.SessionIDResult{}, nil
}

// notForeground is the headless CLI's refusal of session.setForeground.
const notForeground = "Not running in TUI+server mode - no foreground session change handler registered"

func (c *Conn) handleSetForeground(r *request) (any, error) {
	if _, err := sessionParams(r); err != nil {
		return nil, err
	}
	return protocol.SuccessResult{Success: false, Error: notForeground}, nil
}

// handleResume takes a session up with new settings (tools, permissions,
// the requests the client answers; the model when it names one). A session
// live on this connection is re-attached as it is; a kept one (destroyed,
// or left by a connection that ended) becomes live here again, with its
// history, and a session.resume event says so.
func (c *Conn) handleResume(r *request) (any, error) {
	var p createParams
	if err := r.decode(&p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, invalidParams("invalid params for %s: sessionId is required", r.method)
	}
	if p.Model != "" && c.srv.model(p.Model) == nil {
		return nil, c.srv.unknownModel(p.Model)
	}
	if s := c.session(p.SessionID); s != nil {
		s.mu.Lock()
		model := s.cfg.model
		if p.Model != "" {
			model = p.Model
		}
		s.cfg = p.settings(model)
		s.mu.Unlock()
		return protocol.SessionCreateResult{SessionID: s.id, WorkspacePath: s.workspace}, nil
	}
	if c.srv.liveElsewhere(c, p.SessionID) {
		return nil, refused("session %s is in use by another connection", p.SessionID)
	}
	_, old, ok := c.srv.store.get(p.SessionID)
	if !ok {
		return nil, sessionNotFound(p.SessionID)
	}
	s := c.resumeFrom(old, p)

	c.mu.Lock()
	switch {
	case c.closing:
		c.mu.Unlock()
		return nil, refused("connection is closing")
	case c.sessions[s.id] != nil:
		c.mu.Unlock()
		return nil, refused("session already exists: %s", s.id)
	}
	c.sessions[s.id] = s
	c.mu.Unlock()

	s.mu.Lock()
	data := protocol.ResumeData{
		ResumeTime:    now(),
		EventCount:    int64(len(s.log)),
		SelectedModel: s.cfg.model,
	}
	if s.cwd != "" {
		data.Context = &protocol.WorkingDirectoryContext{Cwd: s.cwd}
	}
	s.emitLocked(protocol.EventSessionResume, data)
	s.mu.Unlock()
	return protocol.SessionCreateResult{SessionID: s.id, WorkspacePath: s.workspace}, nil
}

// resumeFrom returns a session of c that continues old (a session no
// longer live) with the settings of p.
func (c *Conn) resumeFrom(old *session, p createParams) *session {
	old.mu.Lock()
	defer old.mu.Unlock()
	model := old.cfg.model
	if p.Model != "" {
		model = p.Model
	}
	if p.WorkingDirectory == "" {
		p.WorkingDirectory = old.cwd
	}
	if p.ClientName == "" {
		p.ClientName = old.clientName
	}
	s := c.newSession(old.id, p, old.system, model)
	s.started = old.started
	s.lastID = old.lastID
	s.log = slices.Clone(old.log)
	s.turns = old.turns
	s.history = slices.Clone(old.history)
	s.persisted, s.summary, s.modified = old.persisted, old.summary, old.modified
	s.lastModel = old.lastModel
	maps.Copy(s.approved, old.approved)
	s.resumed = true
	return s
}
