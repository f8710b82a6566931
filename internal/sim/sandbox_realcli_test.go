package sim_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// The sandbox side by side: the same file tool calls, in a session with
// sandboxConfig, through the real CLI and the simulator: a read and a
// write under a denied path, a write of a read-only file, and a read and
// a write the policy allows. They must give the same permission requests
// (none for a refusal, a bypass request when the session allows bypass),
// completions, texts for the model and sandbox.decision records.
func TestSandboxMatchesTheRealCLI(t *testing.T) {
	calls := func(dir string) []sim.ToolCall {
		cs := []sim.ToolCall{
			sim.ViewCall(filepath.Join(dir, "sub", "a.go")),
			sim.CreateCall(filepath.Join(dir, "sub", "new.go"), "x"),
			sim.EditCall(filepath.Join(dir, "c.txt"), "c", "d"),
			sim.ViewCall(filepath.Join(dir, "notes.txt")),
			sim.CreateCall(filepath.Join(dir, "new.txt"), "hello\n"),
		}
		for i := range cs {
			cs[i].ID = fmt.Sprintf("call_%02d", i)
		}
		return cs
	}
	config := func(dir string, bypass bool) map[string]any {
		return map[string]any{"enabled": true, "allowBypass": bypass, "userPolicy": map[string]any{"filesystem": map[string]any{
			"deniedPaths": []string{filepath.Join(dir, "sub")}, "readonlyPaths": []string{filepath.Join(dir, "c.txt")}}}}
	}
	var mu sync.Mutex
	realCalls := map[string][]modelapi.Call{}
	rc, api := startRealCLI(t, func(req modelapi.Request) modelapi.Reply {
		if req.HasToolResults {
			return modelapi.Text("done")
		}
		mu.Lock()
		defer mu.Unlock()
		return modelapi.ToolCalls(realCalls[req.Conversation]...)
	})
	ra := newAnswerer(rc, "", nil, "")
	for _, bypass := range []bool{false, true} {
		t.Run(fmt.Sprintf("bypass=%v", bypass), func(t *testing.T) {
			decision := map[string]any{"kind": "reject", "feedback": "no bypass"}
			// The real CLI.
			dir := sideBySideDir(t)
			cs := calls(dir)
			ra.decision = decision
			id := rc.createSession(map[string]any{"model": realModel, "streaming": true, "requestPermission": true, "workingDirectory": dir, "sandboxConfig": config(dir, bypass)})
			mu.Lock()
			for _, c := range cs {
				realCalls[id] = append(realCalls[id], modelapi.Call{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
			}
			mu.Unlock()
			rc.send(id, "go")
			evs := rc.waitIdle(id, 1)
			texts := map[string]string{}
			for _, req := range api.Requests() {
				if req.Conversation == id && req.HasToolResults {
					for _, m := range req.ToolResults() {
						texts[m.ToolCallID] = m.Content
					}
				}
			}
			real, realDecisions := toolShapes(t, evs, dir, texts), sandboxRecords(t, evs)

			// The simulator.
			sdir := sideBySideDir(t)
			scs := calls(sdir)
			got := make(chan sim.Turn, 1)
			sc, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{builtinModel(fixedCalls(scs...), got)}}))
			sa := newAnswerer(sc, "", nil, "")
			sa.decision = decision
			sid := sc.createSession(map[string]any{"model": "m", "streaming": true, "requestPermission": true, "workingDirectory": sdir, "sandboxConfig": config(sdir, bypass)})
			sc.send(sid, "go")
			sevs := sc.waitIdle(sid, 1)
			stexts := map[string]string{}
			for _, r := range (<-got).ToolResults {
				stexts[r.CallID] = r.Text
			}
			simulated, simDecisions := toolShapes(t, sevs, sdir, stexts), sandboxRecords(t, sevs)

			for _, c := range cs {
				r, s := real[c.ID], simulated[c.ID]
				if r.Permission != s.Permission {
					t.Errorf("%s %s: permission.requested\nreal %s\nsim  %s", c.Name, c.Arguments, r.Permission, s.Permission)
				}
				if r.Completed != s.Completed {
					t.Errorf("%s %s: tool.execution_complete\nreal %s\nsim  %s", c.Name, c.Arguments, r.Completed, s.Completed)
				}
				if r.Model != s.Model {
					t.Errorf("%s %s: the model read\nreal %q\nsim  %q", c.Name, c.Arguments, r.Model, s.Model)
				}
				if realDecisions[c.ID] != simDecisions[c.ID] {
					t.Errorf("%s %s: sandbox.decision\nreal %s\nsim  %s", c.Name, c.Arguments, realDecisions[c.ID], simDecisions[c.ID])
				}
			}
		})
	}
}

// sandboxRecords are the sandbox.decision records of each call: kind,
// control, outcome, denial class, enforcement point, source, in order.
func sandboxRecords(t *testing.T, evs []sim.Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range evs {
		if e.Type != protocol.EventSandboxDecision {
			continue
		}
		var d protocol.SandboxDecisionData
		mustUnmarshal(t, e.Data, &d)
		id := ""
		if d.ToolCallID != nil {
			id = *d.ToolCallID
		}
		var class string
		json.Unmarshal(d.DenialClass, &class)
		out[id] += fmt.Sprintf("[%s %s %s %s %s %s]", d.Kind, d.Control, d.Outcome, class, d.EnforcementPoint, d.Source)
	}
	return out
}
