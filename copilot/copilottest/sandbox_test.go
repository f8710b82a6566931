package copilottest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// A session created with a Sandbox: a built-in write outside its writable
// paths is refused before any permission request, the model reads the
// sandbox's refusal, and a sandbox.decision access_denied records it; a
// write inside is asked and done.
func TestSandboxRefusesAWriteOutsideItsWritablePaths(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.txt")
	if err := os.WriteFile(locked, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var results []copilottest.ToolCallResult
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: func(t copilottest.Turn) copilottest.Response {
		if t.Call == 0 {
			return copilottest.Response{ToolCalls: []copilottest.ToolCall{
				copilottest.Call(copilottest.BuiltinEdit, map[string]string{"path": locked, "old_str": "keep", "new_str": "gone"}),
				copilottest.Call(copilottest.BuiltinCreate, map[string]string{"path": filepath.Join(dir, "ok.txt"), "file_text": "ok\n"}),
			}}
		}
		results = t.ToolResults
		return copilottest.Response{Text: "done"}
	}})
	var asked []string
	policy := func(_ context.Context, req copilot.PermissionRequest) (copilot.PermissionDecision, error) {
		asked = append(asked, req.Kind)
		return copilot.ApproveOnce(), nil
	}
	s := session(t, srv, copilot.SessionConfig{Model: "m", Permissions: policy, WorkingDirectory: dir,
		Sandbox: &copilot.Sandbox{ReadOnlyPaths: []string{locked}}})
	ask(t, s, "go")

	if want := []string{copilot.PermissionKindWrite}; !slices.Equal(asked, want) {
		t.Errorf("permission asked for %v, want %v (the refused write asks nothing)", asked, want)
	}
	if len(results) != 2 || results[0].OK() || !results[1].OK() {
		t.Fatalf("results %+v: want the write of the read-only file refused, the other done", results)
	}
	if results[0].Error != "Outside the sandbox's writable paths." {
		t.Errorf("the refused write failed with %q", results[0].Error)
	}
	if b, _ := os.ReadFile(locked); string(b) != "keep\n" {
		t.Errorf("the read-only file became %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "ok\n" {
		t.Errorf("ok.txt = %q, %v", b, err)
	}
	var denials []protocol.SandboxDecisionData
	for _, e := range srv.Events(s.ID()) {
		if e.Type != protocol.EventSandboxDecision {
			continue
		}
		var d protocol.SandboxDecisionData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		denials = append(denials, d)
	}
	if len(denials) != 1 || denials[0].Kind != "access_denied" || denials[0].Control != "filesystem" ||
		denials[0].ToolCallID == nil || *denials[0].ToolCallID != results[0].CallID {
		t.Errorf("sandbox.decision events %+v, want one access_denied of the refused write", denials)
	}
}
