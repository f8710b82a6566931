package sim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// Commands under the sandbox side by side: the same bash calls, in a
// session whose sandboxConfig denies a folder and a file, makes a file
// read-only and blocks the network, through the real CLI and the
// simulator. The commands the simulator plays (echo, ls, cat) must give
// the same permission requests, completions, texts for the model,
// sandbox.decision records and sandboxed flags: a denied folder seen
// empty, a denied file unreadable (with the CLI's access_denied record
// read from the output), a detached command refused or, with bypass,
// asked as a bypass request — declined, or approved and run unconfined.
// The writes (which the simulator does not play) are compared up to the
// permission request and the command's records; their outcome on the real
// CLI is checked here: inside the folder written, a read-only file not.
func TestSandboxedCommandsMatchTheRealCLI(t *testing.T) {
	bash := func(id, command string, detach bool) sim.ToolCall {
		args := map[string]any{"command": command, "description": "Run"}
		if detach {
			args["mode"], args["detach"] = "async", true
		}
		c := sim.Call(sim.ToolBash, args)
		c.ID = id
		return c
	}
	calls := []sim.ToolCall{
		bash("call_00", "echo hi", false),
		bash("call_01", "ls sub", false),           // a denied folder: empty
		bash("call_02", "cat sub/a.go", false),     // under it: not there
		bash("call_03", "cat b.txt", false),        // a denied file: unreadable
		bash("call_04", "ls b.txt sub", false),     // both listed as they look
		bash("call_05", "cat c.txt", false),        // read-only: readable
		bash("call_06", "echo hi", true),           // detached: its bypass declined
		bash("call_07", "pwd", true),               // detached: its bypass approved
		bash("call_08", "echo x > new.txt", false), // a write inside the folder
		bash("call_09", "echo x > c.txt", false),   // a write of the read-only file
	}
	const whole = 8 // the calls compared whole; the writes after them in part
	config := func(dir string, bypass bool) map[string]any {
		return map[string]any{"enabled": true, "allowBypass": bypass, "userPolicy": map[string]any{
			"filesystem": map[string]any{
				"deniedPaths":   []string{filepath.Join(dir, "sub"), filepath.Join(dir, "b.txt")},
				"readonlyPaths": []string{filepath.Join(dir, "c.txt")}},
			"network": map[string]any{"allowOutbound": false}}}
	}
	// Every command is approved; of the bypass requests, call_07's only.
	decide := func(p protocol.PermissionRequest) map[string]any {
		if p.RequestSandboxBypass != nil && *p.RequestSandboxBypass && p.ToolCallID != "call_07" {
			return map[string]any{"kind": "reject", "feedback": "no bypass"}
		}
		return map[string]any{"kind": "approve-once"}
	}

	rc := startReplayCLI(t)
	ra := newAnswerer(rc.client, "", nil, "")
	ra.decide = decide
	for _, bypass := range []bool{false, true} {
		t.Run(fmt.Sprintf("bypass=%v", bypass), func(t *testing.T) {
			// The real CLI.
			dir := sideBySideDir(t)
			evs, texts := rc.run(dir, config(dir, bypass), calls)
			ra.check(t)
			real := confinedShapes(t, evs, dir, texts)
			if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "x\n" {
				t.Errorf("the real CLI's write inside the folder: %q, %v; want it written", b, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "c.txt")); string(b) != "c\n" {
				t.Errorf("the real CLI's sandbox let a command write the read-only file: %q", b)
			}
			if m := real["call_09"].tool.Model; !strings.Contains(m, "Read-only file system") {
				t.Errorf("the real CLI's write of the read-only file read %q, want the shell's Read-only file system", m)
			}

			// The simulator.
			sdir := sideBySideDir(t)
			got := make(chan sim.Turn, 1)
			sc, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(calls...), got)}}))
			sa := newAnswerer(sc, "", nil, "")
			sa.decide = decide
			sid := sc.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": sdir, "sandboxConfig": config(sdir, bypass)})
			sc.send(sid, "go")
			sevs := sc.waitIdle(sid, 1)
			sa.check(t)
			stexts := map[string]string{}
			for _, r := range (<-got).ToolResults {
				stexts[r.CallID] = r.Text
			}
			simulated := confinedShapes(t, sevs, sdir, stexts)

			for i, c := range calls {
				r, s := real[c.ID], simulated[c.ID]
				what := fmt.Sprintf("%s %s", c.ID, c.Arguments)
				if r.tool.Start != s.tool.Start {
					t.Errorf("%s: tool.execution_start\nreal %s\nsim  %s", what, r.tool.Start, s.tool.Start)
				}
				if r.tool.Permission != s.tool.Permission || r.tool.Prompt != s.tool.Prompt || r.bypassReason != s.bypassReason {
					t.Errorf("%s: permission.requested\nreal %s\n     %s\n     %q\nsim  %s\n     %s\n     %q", what,
						r.tool.Permission, r.tool.Prompt, r.bypassReason, s.tool.Permission, s.tool.Prompt, s.bypassReason)
				}
				if i >= whole {
					// Up to the command's own records; what it did is
					// the simulator's "not run".
					r.records, s.records = firstRecords(r.records, 3), firstRecords(s.records, 3)
				} else {
					if r.tool.Completed != s.tool.Completed {
						t.Errorf("%s: tool.execution_complete\nreal %s\nsim  %s", what, r.tool.Completed, s.tool.Completed)
					}
					if r.tool.Model != s.tool.Model {
						t.Errorf("%s: the model read\nreal %q\nsim  %q", what, r.tool.Model, s.tool.Model)
					}
				}
				if fmt.Sprint(r.records) != fmt.Sprint(s.records) {
					t.Errorf("%s: sandbox.decision\nreal %s\nsim  %s", what, r.records, s.records)
				}
				if r.sandboxed != s.sandboxed {
					t.Errorf("%s: tool.execution_complete's sandboxed: real %s, sim %s", what, r.sandboxed, s.sandboxed)
				}
			}
		})
	}
}

// confinedShape is one call in a sandboxed session: its tool shape, the
// reason of its bypass request, its sandbox.decision records and the
// sandboxed flag of its completion.
type confinedShape struct {
	tool         toolShape
	bypassReason string
	records      []string
	sandboxed    string
}

// confinedShapes reads the calls of a turn in a sandboxed session.
func confinedShapes(t *testing.T, evs []sim.Event, dir string, texts map[string]string) map[string]confinedShape {
	t.Helper()
	out := map[string]confinedShape{}
	for id, sh := range toolShapes(t, evs, dir, texts) {
		out[id] = confinedShape{tool: sh}
	}
	for _, e := range evs {
		var d struct {
			ToolCallID        string `json:"toolCallId"`
			Sandboxed         *bool  `json:"sandboxed"`
			PermissionRequest struct {
				ToolCallID                 string `json:"toolCallId"`
				RequestSandboxBypassReason string `json:"requestSandboxBypassReason"`
			} `json:"permissionRequest"`
		}
		switch e.Type {
		case protocol.EventPermissionRequested:
			mustUnmarshal(t, e.Data, &d)
			sh := out[d.PermissionRequest.ToolCallID]
			sh.bypassReason = d.PermissionRequest.RequestSandboxBypassReason
			out[d.PermissionRequest.ToolCallID] = sh
		case protocol.EventToolExecutionComplete:
			mustUnmarshal(t, e.Data, &d)
			sh := out[d.ToolCallID]
			sh.sandboxed = "absent"
			if d.Sandboxed != nil {
				sh.sandboxed = fmt.Sprint(*d.Sandboxed)
			}
			out[d.ToolCallID] = sh
		case protocol.EventSandboxDecision:
			var r protocol.SandboxDecisionData
			mustUnmarshal(t, e.Data, &r)
			var class, attestation string
			json.Unmarshal(r.DenialClass, &class)
			json.Unmarshal(r.Attestation, &attestation)
			confidence := ""
			if r.Confidence != nil {
				confidence = string(*r.Confidence)
			}
			id := ""
			if r.ToolCallID != nil {
				id = *r.ToolCallID
			}
			sh := out[id]
			sh.records = append(sh.records, fmt.Sprintf("[%s %s %s %s %s %s %s %s %s]",
				r.Kind, r.Control, r.Outcome, class, r.EnforcementPoint, r.Source, r.Backend, confidence, attestation))
			out[id] = sh
		}
	}
	return out
}

// firstRecords are the first n of records, or all there are.
func firstRecords(records []string, n int) []string { return records[:min(n, len(records))] }
