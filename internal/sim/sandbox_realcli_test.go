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
	rc := startReplayCLI(t)
	ra := newAnswerer(rc.client, "", nil, "")
	for _, bypass := range []bool{false, true} {
		t.Run(fmt.Sprintf("bypass=%v", bypass), func(t *testing.T) {
			decision := map[string]any{"kind": "reject", "feedback": "no bypass"}
			// The real CLI.
			dir := sideBySideDir(t)
			cs := calls(dir)
			ra.decision = decision
			evs, texts := rc.run(dir, config(dir, bypass), cs)
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

// replayCLI is the real CLI for the side-by-side tests: its model answers
// a conversation's prompt with the calls run gave it, all at once, and
// their results with "done".
type replayCLI struct {
	*client
	api   *modelapi.Server
	mu    sync.Mutex
	calls map[string][]modelapi.Call // by conversation (session id)
}

func startReplayCLI(t *testing.T) *replayCLI {
	r := &replayCLI{calls: map[string][]modelapi.Call{}}
	r.client, r.api = startRealCLI(t, func(req modelapi.Request) modelapi.Reply {
		if req.HasToolResults {
			return modelapi.Text("done")
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return modelapi.ToolCalls(r.calls[req.Conversation]...)
	})
	return r
}

// run makes the calls in a session of dir with sandboxConfig, and returns
// the session's events up to its idle and what the model read of each
// call, by call id. Every tool message of the conversation counts, not
// only a request's trailing ones: a detached command that ends before the
// calls' results are sent has the CLI add its own completion (a tool call
// and result of its making) after them.
func (r *replayCLI) run(dir string, sandboxConfig map[string]any, calls []sim.ToolCall) ([]sim.Event, map[string]string) {
	id := r.createSession(map[string]any{"model": realModel, "streaming": true, "requestPermission": true, "workingDirectory": dir, "sandboxConfig": sandboxConfig})
	r.mu.Lock()
	for _, c := range calls {
		r.calls[id] = append(r.calls[id], modelapi.Call{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
	}
	r.mu.Unlock()
	r.send(id, "go")
	evs := r.waitIdle(id, 1)
	texts := map[string]string{}
	for _, req := range r.api.Requests() {
		if req.Conversation != id {
			continue
		}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				texts[m.ToolCallID] = m.Content
			}
		}
	}
	return evs, texts
}
