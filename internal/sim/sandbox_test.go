package sim_test

import (
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
