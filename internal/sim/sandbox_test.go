package sim_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
)

// In a sandboxed session a command, once allowed, is recorded as confined
// (policy resolved, spawned, engaged), and a read under a denied path is
// refused before any permission request; every event passes the schema
// schemas of CLI 1.0.102, the sandbox.decision events among them.
func TestSandboxedSessionRecords(t *testing.T) {
	dir := sideBySideDir(t)
	calls := []sim.ToolCall{sim.BashCall("pwd", "Where"), sim.ViewCall(filepath.Join(dir, "sub", "a.go"))}
	calls[0].ID, calls[1].ID = "call_00", "call_01"
	got := make(chan sim.Turn, 1)
	srv := newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(calls...), got)}})
	tap := schemacheck.Check(t, schemacheck.Default(t), srv.Dial())
	c := newClient(t, tap)
	a := newAnswerer(c, "", nil, "")
	a.decision = map[string]any{"kind": "approve-once"}
	id := c.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": dir,
		"sandboxConfig": map[string]any{"enabled": true, "userPolicy": map[string]any{"filesystem": map[string]any{"deniedPaths": []string{filepath.Join(dir, "sub")}}}}})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	<-got
	records := sandboxRecords(t, evs)
	if want := "[policy_resolved process resolved  shell ][spawn_completed process succeeded  shell ][enforcement_state process engaged  shell ]"; records["call_00"] != want {
		t.Errorf("the command's records %q, want %q", records["call_00"], want)
	}
	if want := "[access_denied filesystem denied filesystem_read builtin_filesystem ]"; records["call_01"] != want {
		t.Errorf("the refused read's records %q, want %q", records["call_01"], want)
	}
	if u := tap.Unchecked(); u[protocol.EventSandboxDecision] != 0 || u[protocol.EventPermissionRequested] != 0 {
		t.Errorf("events not checked against the schemas: %v", u)
	}
	for _, e := range evs {
		if e.Type == protocol.EventPermissionRequested {
			var p struct {
				PermissionRequest struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"permissionRequest"`
			}
			mustUnmarshal(t, e.Data, &p)
			if p.PermissionRequest.ToolCallID == "call_01" {
				t.Error("the refused read asked for permission")
			}
		}
	}
}

// What the sandbox does to commands, on the simulator alone and checked
// against CLI 1.0.102's schemas (TestSandboxedCommandsMatchTheRealCLI
// compares it with the real CLI): a denied folder is empty, a denied file
// unreadable with an access_denied record read from the output, a
// detached command asks to bypass the sandbox (declined: not run;
// approved: started unconfined), and every built-in call says sandboxed.
func TestSandboxedCommands(t *testing.T) {
	dir := sideBySideDir(t)
	calls := []sim.ToolCall{
		sim.BashCall("ls sub", ""), sim.BashCall("cat b.txt", ""),
		sim.Call(sim.ToolBash, map[string]any{"command": "echo hi", "description": "d", "mode": "async", "detach": true}),
		sim.Call(sim.ToolBash, map[string]any{"command": "pwd", "description": "d", "mode": "async", "detach": true}),
	}
	for i := range calls {
		calls[i].ID = fmt.Sprintf("call_%02d", i)
	}
	got := make(chan sim.Turn, 1)
	srv := newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(calls...), got)}})
	tap := schemacheck.Check(t, schemacheck.Default(t), srv.Dial())
	c := newClient(t, tap)
	a := newAnswerer(c, "", nil, "")
	a.decide = func(p protocol.PermissionRequest) map[string]any {
		if p.ToolCallID == "call_02" {
			return map[string]any{"kind": "reject", "feedback": "no"}
		}
		return map[string]any{"kind": "approve-once"}
	}
	id := c.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": dir,
		"sandboxConfig": map[string]any{"enabled": true, "allowBypass": true, "userPolicy": map[string]any{"filesystem": map[string]any{
			"deniedPaths": []string{filepath.Join(dir, "sub"), filepath.Join(dir, "b.txt")}}}}})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	a.check(t)
	texts := map[string]string{}
	for _, r := range (<-got).ToolResults {
		texts[r.CallID] = r.Text
	}
	confined := "[policy_resolved process resolved  shell ][spawn_completed process succeeded  shell ][enforcement_state process engaged  shell ]"
	for _, want := range []struct{ id, text, records string }{
		{"call_00", "\n<shellId: N completed with exit code 0>", confined},
		{"call_01", "cat: b.txt: Permission denied\n<shellId: N completed with exit code 1>\n<this failure may be caused by the active sandbox policy. Do not attempt workarounds. If you suspect the sandbox blocked this, ask the user to review their sandbox policy.>",
			confined + "[access_denied filesystem denied filesystem_read shell ]"},
		{"call_02", "The user rejected this tool call. User feedback: no", "[bypass_decided bypass declined  shell user_prompted]"},
		{"call_03", "<command started in detached background with shellId: N>", "[bypass_decided bypass approved  shell user_prompted][enforcement_state process inactive  shell ]"},
	} {
		if got := normalize(texts[want.id], dir); got != want.text {
			t.Errorf("%s: the model read %q, want %q", want.id, got, want.text)
		}
		if got := sandboxRecords(t, evs)[want.id]; got != want.records {
			t.Errorf("%s: records %q, want %q", want.id, got, want.records)
		}
	}
	bypass := map[string]bool{}
	for _, e := range evs {
		var d struct {
			ToolCallID        string `json:"toolCallId"`
			Sandboxed         *bool  `json:"sandboxed"`
			PermissionRequest struct {
				ToolCallID           string `json:"toolCallId"`
				RequestSandboxBypass bool   `json:"requestSandboxBypass"`
			} `json:"permissionRequest"`
			PromptRequest struct {
				RequestSandboxBypass bool `json:"requestSandboxBypass"`
			} `json:"promptRequest"`
		}
		mustUnmarshal(t, e.Data, &d)
		switch e.Type {
		case protocol.EventPermissionRequested:
			bypass[d.PermissionRequest.ToolCallID] = d.PermissionRequest.RequestSandboxBypass && d.PromptRequest.RequestSandboxBypass
		case protocol.EventToolExecutionComplete:
			if d.Sandboxed == nil || !*d.Sandboxed {
				t.Errorf("%s: tool.execution_complete without sandboxed: true", d.ToolCallID)
			}
		}
	}
	if want := map[string]bool{"call_00": false, "call_01": false, "call_02": true, "call_03": true}; fmt.Sprint(bypass) != fmt.Sprint(want) {
		t.Errorf("bypass requests (request and prompt) %v, want %v", bypass, want)
	}
	if u := tap.Unchecked(); u[protocol.EventSandboxDecision] != 0 || u[protocol.EventPermissionRequested] != 0 || u[protocol.EventToolExecutionComplete] != 0 {
		t.Errorf("events not checked against the schemas: %v", u)
	}
}

// A detached command in a sandbox that allows no bypass is refused before
// any permission request, with no record, as on CLI 1.0.102.
func TestSandboxRefusesADetachedCommand(t *testing.T) {
	dir := sideBySideDir(t)
	call := sim.Call(sim.ToolBash, map[string]any{"command": "echo hi", "description": "d", "mode": "async", "detach": true})
	call.ID = "call_00"
	got := make(chan sim.Turn, 1)
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(call), got)}}))
	a := newAnswerer(c, "approve-once", nil, "")
	id := c.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": dir,
		"sandboxConfig": map[string]any{"enabled": true}})
	c.send(id, "go")
	evs := c.waitIdle(id, 1)
	a.check(t)
	if r := (<-got).ToolResults; len(r) != 1 || r[0].Text != "Detached commands cannot run inside the sandbox. Run it without detach so the sandbox can be enforced." {
		t.Errorf("the model read %+v", r)
	}
	if n, m := count(evs, protocol.EventPermissionRequested), count(evs, protocol.EventSandboxDecision); n != 0 || m != 0 {
		t.Errorf("%d permission requests and %d sandbox.decision records for a refused detached command", n, m)
	}
}
