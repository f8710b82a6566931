package sim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// Built-in tools and the session: unavailable without permission or a
// working directory, approved for the session, aborted while asking,
// shadowed by a client tool.

// Without requestPermission every built-in tool is denied, as on the real
// CLI; without a working directory the file tools and bash fail; a session
// whose availableTools leave them out does not have them.
func TestBuiltinToolsUnavailable(t *testing.T) {
	dir, _ := workdir(t)
	notes := filepath.Join(dir, "notes.txt")
	all := []sim.ToolCall{sim.ViewCall(notes), sim.CreateCall(filepath.Join(dir, "n.txt"), "x"), sim.BashCall("ls", "List"), sim.WebFetchCall("https://example.com/")}
	t.Run("no requestPermission", func(t *testing.T) {
		evs, turn := runBuiltins(t, fixedCalls(all...), approveOnce, map[string]any{"workingDirectory": dir})
		for _, r := range turn.ToolResults {
			if r.ResultType != "denied" || !strings.HasPrefix(r.Text, "Permission denied and could not request permission from user.") {
				t.Errorf("%+v", r)
			}
		}
		if count(evs, protocol.EventPermissionRequested) != 0 {
			t.Error("asked")
		}
	})
	t.Run("no working directory", func(t *testing.T) {
		var offered sim.Turn
		evs, turn := runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all }, approveOnce, map[string]any{"requestPermission": true})
		for _, r := range turn.ToolResults[:3] {
			if r.Error != "No working directory" || !strings.Contains(r.Text, "without one") {
				t.Errorf("%+v", r)
			}
		}
		if r := turn.ToolResults[3]; !r.OK() {
			t.Errorf("web_fetch needs no folder: %+v", r)
		}
		if count(evs, protocol.EventPermissionRequested) != 1 || offered.WorkingDirectory != "" {
			t.Errorf("events %v", types(evs))
		}
	})
	t.Run("availableTools", func(t *testing.T) {
		var offered sim.Turn
		_, turn := runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all }, approveOnce,
			map[string]any{"requestPermission": true, "workingDirectory": dir, "availableTools": []string{"view"}})
		if strings.Join(offered.Builtins, ",") != "view" || !turn.ToolResults[0].OK() {
			t.Errorf("offered %v, results %+v", offered.Builtins, turn.ToolResults)
		}
		for _, r := range turn.ToolResults[1:] {
			if r.Text != fmt.Sprintf("Tool '%s' does not exist.", r.Name) {
				t.Errorf("%+v", r)
			}
		}
		_, turn = runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all[:1] }, approveOnce,
			map[string]any{"requestPermission": true, "workingDirectory": dir, "availableTools": []string{}})
		if len(offered.Builtins) != 0 || turn.ToolResults[0].OK() {
			t.Errorf("availableTools []: offered %v, results %+v", offered.Builtins, turn.ToolResults)
		}
		_, turn = runBuiltins(t, func(turn sim.Turn) []sim.ToolCall { offered = turn; return all[2:3] }, approveOnce,
			map[string]any{"requestPermission": true, "workingDirectory": dir, "excludedTools": []string{"bash"}})
		if strings.Join(offered.Builtins, ",") != "view,create,edit,web_fetch" || turn.ToolResults[0].OK() {
			t.Errorf("excludedTools: offered %v, results %+v", offered.Builtins, turn.ToolResults)
		}
	})
}

// An approval for the session covers what CLI 1.0.102 was seen to let it
// cover: {kind:"commands"} those exact commands, {kind:"write"} every
// create and edit, {kind:"read"} every view; without an approval (the
// url request has none to offer) the tool is asked again.
func TestBuiltinApprovedForSession(t *testing.T) {
	dir, _ := workdir(t)
	rounds := [][]sim.ToolCall{
		{sim.BashCall("ls", "List")},
		{sim.BashCall("ls", "List")},
		{sim.BashCall("ls -a", "List")},
		{sim.CreateCall("c.txt", "c")},
		{sim.CreateCall("d.txt", "d")},
		{sim.EditCall("c.txt", "c", "C")},
		{sim.ViewCall("c.txt")},
		{sim.ViewCall("notes.txt")},
		{sim.WebFetchCall("https://example.com/x")},
		{sim.WebFetchCall("https://example.com/y")},
	}
	model := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call < len(rounds) {
			return sim.Response{ToolCalls: rounds[turn.Call]}
		}
		return sim.Text("done")
	}}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
	a := newAnswerer(c, "", nil, "")
	a.decide = func(r protocol.PermissionRequest) map[string]any {
		approval := map[string]any{"kind": r.Kind}
		switch r.Kind {
		case "shell":
			approval = map[string]any{"kind": "commands", "commandIdentifiers": []string{r.FullCommandText}}
		case "url":
			return map[string]any{"kind": "approve-for-session"}
		}
		return map[string]any{"kind": "approve-for-session", "approval": approval}
	}
	id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	a.check(t)
	var asked []string
	for _, r := range permissionRequests(t, evs) {
		asked = append(asked, r.Kind+" "+r.FullCommandText+r.FileName+r.Path+r.URL)
	}
	want := []string{"shell ls", "shell ls -a", "write " + filepath.Join(dir, "c.txt"), "read " + filepath.Join(dir, "c.txt"), "url https://example.com/x", "url https://example.com/y"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
	if got := readFile(t, filepath.Join(dir, "c.txt")); got != "C" {
		t.Errorf("c.txt = %q", got)
	}
}

// An abort while a built-in tool waits for its permission ends the turn
// and the tool never runs.
func TestBuiltinAbortWhileAsking(t *testing.T) {
	dir, _ := workdir(t)
	fresh := filepath.Join(dir, "new.txt")
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(sim.CreateCall(fresh, "x")), nil)}}))
	id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir})
	c.send(id, "go")
	var req struct{ RequestID string }
	mustUnmarshal(t, c.waitType(id, protocol.EventPermissionRequested).Data, &req)
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, nil)
	evs := c.waitIdle(id, 1)
	if evs[len(evs)-2].Type != protocol.EventAbort || count(evs, protocol.EventToolExecutionComplete) != 0 {
		t.Errorf("events %v", types(evs))
	}
	rerr := rpcError(t, c.call(protocol.MethodSessionPermissionsHandlePendingPermissionRequest,
		map[string]any{"sessionId": id, "requestId": req.RequestID, "result": approveOnce}, nil))
	if !strings.Contains(rerr.Message, "no pending permission request") {
		t.Errorf("late answer: %+v", rerr)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("the aborted create wrote its file")
	}
}

// A client tool of a built-in tool's name is the one called.
func TestClientToolShadowsBuiltin(t *testing.T) {
	dir, _ := workdir(t)
	var offered []string
	calls := func(turn sim.Turn) []sim.ToolCall {
		offered = turn.Builtins
		return []sim.ToolCall{sim.ViewCall("notes.txt")}
	}
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(calls, nil)}}))
	newAnswerer(c, "approve-once", map[string]any{"textResultForLlm": "from the client"}, "")
	id := c.createSession(map[string]any{"requestPermission": true, "workingDirectory": dir, "tools": []any{map[string]any{"name": "view"}}})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	if got := messageContent(t, evs); got != "view success: from the client" {
		t.Errorf("reply %q", got)
	}
	if strings.Join(offered, ",") != "bash,create,edit,web_fetch" {
		t.Errorf("Turn.Builtins %v", offered)
	}
}
