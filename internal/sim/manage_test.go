package sim_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// lifecycleOf lists the session.lifecycle types read for sessionID, in order.
func lifecycleOf(c *client, sessionID string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.wire {
		var l protocol.LifecycleNotification
		if e.Method == protocol.NotificationSessionLifecycle && json.Unmarshal(e.Params, &l) == nil && l.SessionID == sessionID {
			out = append(out, l.Type)
		}
	}
	return out
}

// listed returns the ids session.list lists.
func (c *client) listed() []string {
	c.t.Helper()
	var l protocol.SessionListResult
	c.mustCall(protocol.MethodSessionList, nil, &l)
	var ids []string
	for _, e := range l.Sessions {
		ids = append(ids, e.SessionID)
	}
	return ids
}

// metadata returns session.getMetadata's entry for id, or nil.
func (c *client) metadata(id string) *protocol.SessionListEntry {
	c.t.Helper()
	var m protocol.SessionMetadataResult
	c.mustCall(protocol.MethodSessionGetMetadata, map[string]any{"sessionId": id}, &m)
	return m.Session
}

// lastID returns session.getLastId's answer.
func (c *client) lastID() string {
	c.t.Helper()
	var r protocol.SessionIDResult
	c.mustCall(protocol.MethodSessionGetLastID, nil, &r)
	return r.SessionID
}

// deleteSession calls session.delete and returns its answer.
func (c *client) deleteSession(id string) protocol.SuccessResult {
	c.t.Helper()
	var r protocol.SuccessResult
	c.mustCall(protocol.MethodSessionDelete, map[string]any{"sessionId": id}, &r)
	return r
}

// A session is kept, listed and described once it has had a message; a
// destroy keeps it (it can be resumed, its history whole), a delete
// removes it; the methods outside the schema answer as CLI 1.0.102 does,
// refusals as results. (copilot's TestRealCLISessionManagement is the
// real CLI's side.)
func TestSessionManagementAsTheCLI(t *testing.T) {
	var histories [][]sim.Exchange
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		histories = append(histories, turn.History) // turns of one session run one at a time
		return sim.Echo(turn)
	}}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
	if id := c.lastID(); id != "" {
		t.Fatalf("a fresh server's last session: %q", id)
	}
	id := c.createSession(map[string]any{"model": "m", "workingDirectory": "/src/project"})
	if m := c.metadata(id); m != nil || len(c.listed()) != 0 || c.lastID() != "" {
		t.Fatalf("before the first message: metadata %+v, listed %v, last %q", m, c.listed(), c.lastID())
	}

	c.send(id, "first words\nand more")
	c.waitIdle(id, 1)
	m := c.metadata(id)
	if m == nil || m.SessionID != id || m.StartTime == "" || m.ModifiedTime < m.StartTime || m.Summary != "first words" ||
		m.Name != "first words" || m.ClientName != "sdk" || m.Context == nil || m.Context.Cwd != "/src/project" {
		t.Fatalf("metadata after the first message: %+v", m)
	}
	if got := c.listed(); !slices.Equal(got, []string{id}) || c.lastID() != id {
		t.Fatalf("listed %v, last %q; want %s", got, c.lastID(), id)
	}
	var fg protocol.SessionIDResult
	c.mustCall(protocol.MethodSessionGetForeground, nil, &fg)
	var set protocol.SuccessResult
	c.mustCall(protocol.MethodSessionSetForeground, map[string]any{"sessionId": id}, &set)
	if fg.SessionID != "" || set.Success || !strings.Contains(set.Error, "Not running in TUI+server mode") {
		t.Errorf("foreground %+v, setting it %+v", fg, set)
	}

	var res protocol.SuccessResult
	c.mustCall(protocol.MethodSessionDestroy, map[string]any{"sessionId": id}, &res)
	if !res.Success || !slices.Equal(c.listed(), []string{id}) || c.metadata(id) == nil {
		t.Fatalf("after destroy: %+v, listed %v", res, c.listed())
	}
	rerr := rpcError(t, c.call(protocol.MethodSessionSend, map[string]any{"sessionId": id, "prompt": "hello?"}, nil))
	if !strings.Contains(rerr.Message, "session not found") {
		t.Errorf("a send after destroy: %+v", rerr)
	}

	// Resumed, it goes on where it was: its history, its events.
	before := len(c.events(id))
	c.mustCall(protocol.MethodSessionResume, map[string]any{"sessionId": id}, nil)
	resume := c.waitType(id, protocol.EventSessionResume)
	var rd protocol.ResumeData
	mustUnmarshal(t, resume.Data, &rd)
	if rd.SelectedModel != "m" || rd.EventCount == 0 || rd.Context == nil || rd.Context.Cwd != "/src/project" {
		t.Errorf("%s %s", protocol.EventSessionResume, resume.Data)
	}
	c.send(id, "second")
	evs := c.waitIdle(id, 2)
	if h := histories[len(histories)-1]; len(h) != 1 || h[0].Prompt != "first words\nand more" {
		t.Errorf("the resumed session's history: %+v", h)
	}
	var msgs struct{ Events []sim.Event }
	c.mustCall(protocol.MethodSessionGetMessages, map[string]any{"sessionId": id}, &msgs)
	i := slices.IndexFunc(msgs.Events, func(e sim.Event) bool { return e.Type == protocol.EventSessionResume })
	if count(msgs.Events, protocol.EventUserMessage) != 2 || i < 1 || msgs.Events[i].ParentID == nil || *msgs.Events[i].ParentID != msgs.Events[i-1].ID {
		t.Errorf("the resumed session's messages: %v", types(msgs.Events))
	}
	if evs[before].Type != protocol.EventSessionResume {
		t.Errorf("events after the resume: %v", types(evs[before:]))
	}

	// Deleted, it is gone; a second delete, or one of an unknown id, is
	// refused as a result.
	if r := c.deleteSession(id); !r.Success {
		t.Fatalf("delete: %+v", r)
	}
	if c.metadata(id) != nil || len(c.listed()) != 0 || c.lastID() != "" {
		t.Fatalf("after delete: listed %v, last %q", c.listed(), c.lastID())
	}
	for _, gone := range []string{id, "no-such-session"} {
		if r := c.deleteSession(gone); r.Success || r.Error != "Session file not found for "+gone {
			t.Errorf("deleting %s: %+v", gone, r)
		}
	}
	rerr = rpcError(t, c.call(protocol.MethodSessionResume, map[string]any{"sessionId": id}, nil))
	if !strings.Contains(rerr.Message, "session not found") {
		t.Errorf("resuming a deleted session: %+v", rerr)
	}
	// Created twice, deleted twice; updated along the way.
	life := lifecycleOf(c, id)
	if life[0] != protocol.LifecycleSessionCreated || count2(life, protocol.LifecycleSessionCreated) != 2 ||
		count2(life, protocol.LifecycleSessionDeleted) != 2 || !slices.Equal(life[len(life)-2:], []string{protocol.LifecycleSessionDeleted, protocol.LifecycleSessionDeleted}) {
		t.Errorf("lifecycle %v", life)
	}

	// A live session deleted before its first message is deleted too.
	fresh := c.createSession(nil)
	if r := c.deleteSession(fresh); !r.Success || len(c.listed()) != 0 {
		t.Errorf("deleting a fresh session: %+v", r)
	}
}

func count2(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// Deleting a live session stops its turn at once: no event follows, the
// turn's goroutine ends, and a pending request is no longer pending.
func TestDeleteStopsALiveSession(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{toolModel(nil)}})
	c, _ := dial(t, srv)
	id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}})
	c.send(id, "go")
	var asked struct{ RequestID string }
	mustUnmarshal(t, c.waitType(id, protocol.EventPermissionRequested).Data, &asked)
	if r := c.deleteSession(id); !r.Success {
		t.Fatalf("delete: %+v", r)
	}
	if n := waitRunningTurns(t, srv, 0); n != 0 || len(srv.LiveSessions()) != 0 {
		t.Fatalf("running turns %d, live sessions %v", n, srv.LiveSessions())
	}
	rerr := rpcError(t, c.call(protocol.MethodSessionPermissionsHandlePendingPermissionRequest,
		map[string]any{"sessionId": id, "requestId": asked.RequestID, "result": map[string]any{"kind": "approve-once"}}, nil))
	if !strings.Contains(rerr.Message, "session not found") {
		t.Errorf("answering the deleted session's question: %+v", rerr)
	}
	if evs := c.events(id); evs[len(evs)-1].Type != protocol.EventPermissionRequested {
		t.Errorf("events after the delete: %v", types(evs))
	}
}

// Every persisted event is followed by session.lifecycle session.updated,
// as on CLI 1.0.102; ephemeral events are not.
func TestLifecycleUpdatedAfterEachPersistedEvent(t *testing.T) {
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Text("hello there"))}}))
	id := c.createSession(map[string]any{"streaming": true})
	c.send(id, "hi")
	c.waitIdle(id, 1)
	c.mustCall(protocol.MethodPing, nil, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.wire {
		if e.Session != id {
			continue
		}
		var se sessionEvent
		mustUnmarshal(t, e.Params, &se)
		next := i+1 < len(c.wire) && isLifecycle(c.wire[i+1], protocol.LifecycleSessionUpdated)
		if next == se.Event.Ephemeral {
			t.Errorf("%s (ephemeral %v) followed by session.updated: %v", se.Event.Type, se.Event.Ephemeral, next)
		}
		if next {
			var l struct {
				Metadata struct{ StartTime, ModifiedTime string }
			}
			mustUnmarshal(t, c.wire[i+1].Params, &l)
			if l.Metadata.ModifiedTime != se.Event.Timestamp || l.Metadata.StartTime == "" {
				t.Errorf("session.updated after %s: %s", se.Event.Type, c.wire[i+1].Params)
			}
		}
	}
}

// The sessions kept on disk are the server's, as a CLI process's are: a
// session outlives the connection that made it, another connection lists,
// resumes or deletes it, and deleting stops it where it is live.
func TestKeptSessionsAreTheServers(t *testing.T) {
	srv := newServer(t, sim.Options{Models: []sim.Model{textModel("m", sim.Text("ok")), textModel("hang", sim.Hang())}})
	a, aConn := dial(t, srv)
	kept := a.createSession(map[string]any{"model": "m"})
	a.send(kept, "remember me")
	a.waitIdle(kept, 1)
	busy := a.createSession(map[string]any{"model": "hang"})
	a.send(busy, "wait")
	a.waitType(busy, protocol.EventAssistantTurnStart)

	b, _ := dial(t, srv)
	if got := b.listed(); !slices.Equal(got, []string{busy, kept}) {
		t.Fatalf("another connection lists %v, want [%s %s] (last modified first)", got, busy, kept)
	}
	rerr := rpcError(t, b.call(protocol.MethodSessionResume, map[string]any{"sessionId": busy}, nil))
	if !strings.Contains(rerr.Message, "in use by another connection") {
		t.Errorf("resuming a session live elsewhere: %+v", rerr)
	}
	if r := b.deleteSession(busy); !r.Success || slices.Contains(srv.LiveSessions(), busy) {
		t.Fatalf("deleting a session live elsewhere: %+v, live %v", r, srv.LiveSessions())
	}
	if n := waitRunningTurns(t, srv, 0); n != 0 {
		t.Errorf("running turns %d", n)
	}

	aConn.Close()
	<-aConn.Done()
	b.mustCall(protocol.MethodSessionResume, map[string]any{"sessionId": kept}, nil)
	b.send(kept, "again")
	if evs := b.waitIdle(kept, 1); messageContent(t, evs) != "ok" {
		t.Errorf("the resumed session's turn: %v", types(evs))
	}
	if got := b.listed(); !slices.Equal(got, []string{kept}) || b.lastID() != kept {
		t.Errorf("listed %v, last %q", got, b.lastID())
	}
}

// A resume while a turn runs changes the session's settings under its lock
// (go test -race keeps it so): the turn's next model call sees them.
func TestResumeDuringATurn(t *testing.T) {
	rounds := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call < 10 {
			return sim.Response{ToolCalls: []sim.ToolCall{sim.Call("lookup", nil)}}
		}
		return sim.Text(strings.Join(turn.Tools, ","))
	}}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{rounds}}))
	newAnswerer(c, "approve-once", map[string]any{"textResultForLlm": "ok"}, "")
	skip := map[string]any{"name": "lookup", "skipPermission": true}
	id := c.createSession(map[string]any{"streaming": true, "tools": []any{skip}})
	c.send(id, "go")
	more := map[string]any{"name": "other", "skipPermission": true}
	resume := map[string]any{"sessionId": id, "streaming": true, "requestPermission": true, "tools": []any{skip, more}}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := c.call(protocol.MethodSessionResume, resume, nil); err != nil {
				t.Errorf("resume: %v", err)
				return
			}
		}
	}()
	c.waitType(id, protocol.EventExternalToolCompleted)
	evs := c.waitIdle(id, 1)
	close(stop)
	<-stopped
	if got := messageContent(t, evs); got != "lookup,other" {
		t.Errorf("the last call saw tools %q", got)
	}
}
