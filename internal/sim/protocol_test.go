package sim_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

func TestHandshake(t *testing.T) {
	srv := newServer(t, sim.Options{})
	c, _ := dial(t, srv)

	var conn struct {
		OK              bool   `json:"ok"`
		ProtocolVersion int    `json:"protocolVersion"`
		Version         string `json:"version"`
	}
	c.mustCall(protocol.MethodConnect, map[string]any{}, &conn)
	if !conn.OK || conn.ProtocolVersion != 3 || conn.Version != sim.Version {
		t.Errorf("%s = %+v", protocol.MethodConnect, conn)
	}

	// The schema's PingResult: the timestamp is an ISO-8601 string, as the
	// real CLI sends it.
	var ping protocol.PingResult
	c.mustCall(protocol.MethodPing, map[string]any{"message": "hi"}, &ping)
	if _, err := time.Parse(time.RFC3339, ping.Timestamp); ping.Message != "pong: hi" || err != nil || ping.ProtocolVersion != 3 {
		t.Errorf("%s = %+v (timestamp: %v)", protocol.MethodPing, ping, err)
	}

	var status struct {
		Version         string `json:"version"`
		ProtocolVersion int    `json:"protocolVersion"`
	}
	c.mustCall(protocol.MethodStatusGet, nil, &status)
	if status.Version != sim.Version || status.ProtocolVersion != 3 {
		t.Errorf("%s = %+v", protocol.MethodStatusGet, status)
	}

	var auth struct {
		IsAuthenticated bool   `json:"isAuthenticated"`
		AuthType        string `json:"authType"`
		Login           string `json:"login"`
	}
	c.mustCall(protocol.MethodAuthGetStatus, nil, &auth)
	if !auth.IsAuthenticated || auth.AuthType != "token" || auth.Login != "sim" {
		t.Errorf("%s = %+v", protocol.MethodAuthGetStatus, auth)
	}

	var models struct {
		Models []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"models"`
	}
	c.mustCall(protocol.MethodModelsList, nil, &models)
	var ids []string
	for _, m := range models.Models {
		ids = append(ids, m.ID)
		if m.Name == "" {
			t.Errorf("model %s has no name", m.ID)
		}
	}
	if strings.Join(ids, ",") != "sim-fast,sim-thorough,sim-skeptic" {
		t.Errorf("%s ids = %v", protocol.MethodModelsList, ids)
	}

	// A session is on disk, and listed, only once it has had a message
	// (manage_test.go has the rest).
	c.createSession(map[string]any{"model": "sim-fast"})
	var list protocol.SessionListResult
	c.mustCall(protocol.MethodSessionList, nil, &list)
	if list.Sessions == nil || len(list.Sessions) != 0 {
		t.Errorf("%s = %+v, want no session before a message", protocol.MethodSessionList, list)
	}

	err := c.call("status", nil, nil)
	if rerr := rpcError(t, err); rerr.Code != -32601 || rerr.Message != "Unhandled method status" {
		t.Errorf("unknown method: %+v", rerr)
	}

	st := srv.Stats()
	if st.Calls[protocol.MethodConnect] != 1 || st.Calls[protocol.MethodPing] != 1 || st.Calls["status"] != 1 || st.Calls[protocol.MethodSessionCreate] != 1 {
		t.Errorf("calls = %v", st.Calls)
	}
	if st.LiveSessions != 1 || st.Connections != 1 {
		t.Errorf("stats = %+v", st)
	}
	// Sent counts what the client read: every response and notification.
	// The server counts once its write has returned, which may be just
	// after the client read it: wait for the two to agree.
	c.mu.Lock()
	read := len(c.wire)
	c.mu.Unlock()
	for deadline := time.Now().Add(guard); srv.Stats().Sent != read; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Sent = %d, the client read %d messages", srv.Stats().Sent, read)
		}
	}
}

func TestHandshakeOptions(t *testing.T) {
	t.Run("protocol version", func(t *testing.T) {
		c, _ := dial(t, newServer(t, sim.Options{ProtocolVersion: 7}))
		var res struct{ ProtocolVersion int }
		c.mustCall(protocol.MethodConnect, nil, &res)
		if res.ProtocolVersion != 7 {
			t.Errorf("protocolVersion = %d, want 7", res.ProtocolVersion)
		}
		c.mustCall(protocol.MethodPing, nil, &res)
		if res.ProtocolVersion != 7 {
			t.Errorf("%s protocolVersion = %d, want 7", protocol.MethodPing, res.ProtocolVersion)
		}
	})
	t.Run("no connect", func(t *testing.T) {
		c, _ := dial(t, newServer(t, sim.Options{NoConnect: true}))
		rerr := rpcError(t, c.call(protocol.MethodConnect, map[string]any{}, nil))
		if rerr.Code != -32601 || rerr.Message != "Unhandled method connect" {
			t.Errorf("%s: %+v", protocol.MethodConnect, rerr)
		}
		var ping struct{ Message string }
		c.mustCall(protocol.MethodPing, map[string]any{"message": "x"}, &ping)
		if ping.Message != "pong: x" {
			t.Errorf("%s = %+v", protocol.MethodPing, ping)
		}
	})
	t.Run("unauthenticated", func(t *testing.T) {
		c, _ := dial(t, newServer(t, sim.Options{Unauthenticated: true}))
		var auth struct{ IsAuthenticated bool }
		auth.IsAuthenticated = true
		c.mustCall(protocol.MethodAuthGetStatus, nil, &auth)
		if auth.IsAuthenticated {
			t.Errorf("isAuthenticated = true")
		}
		id := c.createSession(nil)
		c.send(id, "hello")
		evs := c.waitIdle(id, 1)
		var e struct{ ErrorType, Message string }
		mustUnmarshal(t, c.waitType(id, protocol.EventSessionError).Data, &e)
		if e.ErrorType != "authentication" {
			t.Errorf("errorType = %q", e.ErrorType)
		}
		if got := types(evs); got[len(got)-2] != protocol.EventSessionError {
			t.Errorf("turn = %v", got)
		}
	})
}

func TestCreateIDs(t *testing.T) {
	srv := newServer(t, sim.Options{})
	c, _ := dial(t, srv)

	assigned := c.createSession(map[string]any{"model": "sim-fast"})
	if _, err := uuid.Parse(assigned); err != nil {
		t.Errorf("server-assigned id %q is not a UUID: %v", assigned, err)
	}
	start := c.waitType(assigned, protocol.EventSessionStart)
	var data struct {
		SessionID     string `json:"sessionId"`
		SelectedModel string `json:"selectedModel"`
	}
	mustUnmarshal(t, start.Data, &data)
	if data.SessionID != assigned || data.SelectedModel != "sim-fast" {
		t.Errorf("%s data = %s", protocol.EventSessionStart, start.Data)
	}

	mine := uuid.NewString()
	var res struct {
		SessionID     string `json:"sessionId"`
		WorkspacePath string `json:"workspacePath"`
	}
	c.mustCall(protocol.MethodSessionCreate, map[string]any{"sessionId": mine, "model": "sim-skeptic"}, &res)
	if res.SessionID != mine {
		t.Errorf("client-supplied id %q came back as %q", mine, res.SessionID)
	}
	if !strings.HasSuffix(res.WorkspacePath, "/"+mine) {
		t.Errorf("workspacePath = %q", res.WorkspacePath)
	}
	c.waitType(mine, protocol.EventSessionStart)

	rerr := rpcError(t, c.call(protocol.MethodSessionCreate, map[string]any{"sessionId": mine}, nil))
	if !strings.Contains(rerr.Message, "already exists") {
		t.Errorf("duplicate id: %+v", rerr)
	}
	rerr = rpcError(t, c.call(protocol.MethodSessionCreate, map[string]any{"model": "gpt-nope"}, nil))
	if !strings.Contains(rerr.Message, `"gpt-nope" is not available`) || !strings.Contains(rerr.Message, "sim-fast") {
		t.Errorf("unknown model: %+v", rerr)
	}

	// No model: the default model.
	def := c.createSession(nil)
	mustUnmarshal(t, c.waitType(def, protocol.EventSessionStart).Data, &data)
	if data.SelectedModel != "sim-fast" {
		t.Errorf("default model = %q", data.SelectedModel)
	}

	if got, want := srv.LiveSessions(), 3; len(got) != want {
		t.Errorf("live sessions = %v, want %d", got, want)
	}

	var lifecycle []string
	for _, e := range c.waitWire("lifecycle", func(w []wireEntry) bool { return true }) {
		if e.Method == protocol.NotificationSessionLifecycle {
			var l struct {
				Type      string         `json:"type"`
				SessionID string         `json:"sessionId"`
				Metadata  map[string]any `json:"metadata"`
			}
			mustUnmarshal(t, e.Params, &l)
			if l.Metadata == nil {
				t.Errorf("lifecycle without metadata: %s", e.Params)
			}
			lifecycle = append(lifecycle, l.Type+" "+l.SessionID)
		}
	}
	// Each creation is announced twice, as CLI 1.0.102 does, around the
	// session.updated that session.start brings.
	var want []string
	for _, id := range []string{assigned, mine, def} {
		want = append(want, protocol.LifecycleSessionCreated+" "+id, protocol.LifecycleSessionUpdated+" "+id, protocol.LifecycleSessionCreated+" "+id)
	}
	if strings.Join(lifecycle, "\n") != strings.Join(want, "\n") {
		t.Errorf("lifecycle = %q, want %q", lifecycle, want)
	}
}

// TestStartOrder checks where session.start lands relative to the create
// response, as seen by the client's read loop.
func TestStartOrder(t *testing.T) {
	// position returns, for each creation, whether session.start was read
	// before the create response.
	position := func(t *testing.T, order sim.StartOrder, n int) []bool {
		c, _ := dial(t, newServer(t, sim.Options{StartOrder: order, Seed: 42}))
		var out []bool
		for range n {
			id := c.createSession(nil)
			wire := c.waitWire(protocol.EventSessionStart, func(w []wireEntry) bool {
				return slices.ContainsFunc(w, func(e wireEntry) bool { return e.Session == id })
			})
			// The create response is the last response read before or
			// after the event; find the event and the last response.
			startAt, respAt := -1, -1
			for i, e := range wire {
				if e.Response {
					respAt = i
				}
				if e.Session == id && startAt < 0 {
					startAt = i
				}
			}
			out = append(out, startAt < respAt)
		}
		return out
	}
	t.Run("before", func(t *testing.T) {
		for i, before := range position(t, sim.StartBefore, 5) {
			if !before {
				t.Errorf("creation %d: session.start came after the response", i)
			}
		}
	})
	t.Run("after", func(t *testing.T) {
		for i, before := range position(t, sim.StartAfter, 5) {
			if before {
				t.Errorf("creation %d: session.start came before the response", i)
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		got := position(t, sim.StartRandom, 24)
		if !slicesContains(got, true) || !slicesContains(got, false) {
			t.Errorf("24 random creations all on one side: %v", got)
		}
		// Same seed, same sequence.
		if again := position(t, sim.StartRandom, 24); !slicesEqual(got, again) {
			t.Errorf("seeded order not repeatable:\n%v\n%v", got, again)
		}
	})
}

func slicesContains(s []bool, v bool) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBadParams(t *testing.T) {
	c, _ := dial(t, newServer(t, sim.Options{}))
	id := c.createSession(nil)
	cases := []struct {
		method string
		params any
		code   int64
		msg    string
	}{
		{protocol.MethodSessionSend, map[string]any{"sessionId": id}, -32602, "prompt is required"},
		{protocol.MethodSessionSend, map[string]any{"prompt": "x"}, -32602, "sessionId is required"},
		{protocol.MethodSessionSend, nil, -32602, "sessionId is required"},
		{protocol.MethodSessionSend, []any{id, "x"}, -32602, "invalid params for session.send"},
		{protocol.MethodSessionSend, map[string]any{"sessionId": 5, "prompt": "x"}, -32602, "invalid params for session.send"},
		{protocol.MethodSessionCreate, map[string]any{"tools": "nope"}, -32602, "invalid params for session.create"},
		{protocol.MethodSessionCreate, map[string]any{"tools": []any{map[string]any{"description": "x"}}}, -32602, "has no name"},
		{protocol.MethodSessionCreate, map[string]any{"systemMessage": 3}, -32602, "systemMessage"},
		{protocol.MethodSessionSend, map[string]any{"sessionId": "nope", "prompt": "x"}, -32603, "session not found: nope"},
		{protocol.MethodSessionAbort, map[string]any{"sessionId": "nope"}, -32603, "session not found"},
		{protocol.MethodSessionGetMessages, map[string]any{"sessionId": "nope"}, -32603, "session not found"},
		{protocol.MethodSessionPermissionsHandlePendingPermissionRequest, map[string]any{"sessionId": id, "requestId": "r1", "result": map[string]any{"kind": "approve-once"}}, -32603, "no pending permission request"},
		{protocol.MethodSessionPermissionsHandlePendingPermissionRequest, map[string]any{"sessionId": id, "requestId": "r1"}, -32602, "result.kind is required"},
		{protocol.MethodSessionToolsHandlePendingToolCall, map[string]any{"sessionId": id, "requestId": "r1"}, -32602, "result or error is required"},
		{protocol.MethodSessionToolsHandlePendingToolCall, map[string]any{"sessionId": id, "requestId": "r1", "result": map[string]any{"textResultForLlm": "x"}}, -32603, "no pending tool call"},
		{protocol.MethodPing, map[string]any{"message": 5}, -32602, "invalid params for ping"},
	}
	for _, tc := range cases {
		err := c.call(tc.method, tc.params, nil)
		if err == nil {
			t.Errorf("%s %v: no error", tc.method, tc.params)
			continue
		}
		rerr := rpcError(t, err)
		if rerr.Code != tc.code || !strings.Contains(rerr.Message, tc.msg) {
			t.Errorf("%s %v: got %d %q, want %d containing %q", tc.method, tc.params, rerr.Code, rerr.Message, tc.code, tc.msg)
		}
	}
	// The connection survives all of that.
	var ping struct{ Message string }
	c.mustCall(protocol.MethodPing, map[string]any{"message": "still here"}, &ping)
	if ping.Message != "pong: still here" {
		t.Errorf("%s = %+v", protocol.MethodPing, ping)
	}
}

func TestSystemMessageShapes(t *testing.T) {
	seen := make(chan string, 2)
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		seen <- turn.SystemMessage
		return sim.Text("ok")
	}}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
	for _, sm := range []any{"be brief", map[string]any{"mode": "append", "content": "be brief"}} {
		id := c.createSession(map[string]any{"systemMessage": sm})
		c.send(id, "x")
		c.waitIdle(id, 1)
		if got := <-seen; got != "be brief" {
			t.Errorf("systemMessage %v reached the script as %q", sm, got)
		}
	}
	_ = json.Valid
}
