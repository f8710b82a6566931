package sim_test

import (
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// The permission decisions of the schema, as CLI 1.0.102 takes them
// (copilot's TestRealCLIPermissionDecisions is the real CLI's side): a
// rejection with feedback and user-not-available fail the tool with the
// CLI's words and the model goes on; a plain rejection ends the turn
// (TestToolFlowRejected); approvals for the session or a location are not
// asked again.
func TestPermissionDecisions(t *testing.T) {
	// twice calls lookup in two rounds, then reports what it got.
	twice := sim.Model{ID: "m", Respond: func(turn sim.Turn) sim.Response {
		if turn.Call < 2 {
			return sim.Response{ToolCalls: []sim.ToolCall{sim.Call("lookup", map[string]string{"q": "x"})}}
		}
		var got []string
		for _, r := range turn.ToolResults {
			if r.OK() {
				got = append(got, "ok: "+r.Text)
			} else {
				got = append(got, r.ResultType+": "+r.Error)
			}
		}
		return sim.Text(strings.Join(got, " | "))
	}}
	approval := map[string]any{"kind": "custom-tool", "toolName": "lookup"}
	for _, tc := range []struct {
		name     string
		decision map[string]any
		result   string // permission.completed's result kind
		asked    int
		reply    string
	}{
		{"reject with feedback", map[string]any{"kind": "reject", "feedback": "use the cache"}, "denied-interactively-by-user", 2,
			"denied: The user rejected this tool call. User feedback: use the cache | denied: The user rejected this tool call. User feedback: use the cache"},
		{"user not available", map[string]any{"kind": "user-not-available"}, "denied-no-approval-rule-and-could-not-request-from-user", 2,
			"denied: Permission denied and could not request permission from user. Copilot needed the user's approval and no one could answer. | " +
				"denied: Permission denied and could not request permission from user. Copilot needed the user's approval and no one could answer."},
		{"approve once", map[string]any{"kind": "approve-once"}, "approved", 2, "ok: found | ok: found"},
		{"approve for the session", map[string]any{"kind": "approve-for-session", "approval": approval}, "approved-for-session", 1, "ok: found | ok: found"},
		{"approve for a location", map[string]any{"kind": "approve-for-location", "approval": approval, "locationKey": "/src"}, "approved-for-location", 1, "ok: found | ok: found"},
		{"denied by rules", map[string]any{"kind": "denied-by-rules", "rules": []any{map[string]any{"kind": "custom-tool", "argument": "lookup"}}}, "denied-by-rules", 2,
			"denied: Permission to run this tool was denied by a deny rule. | denied: Permission to run this tool was denied by a deny rule."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{twice}}))
			a := newAnswerer(c, "", map[string]any{"textResultForLlm": "found"}, "")
			a.decision = tc.decision
			id := c.createSession(map[string]any{"requestPermission": true, "tools": []any{lookupTool}})
			c.send(id, "go")
			evs := c.waitIdle(id, 1)
			a.check(t)
			if got := messageContent(t, evs); got != tc.reply {
				t.Errorf("the model got %q, want %q", got, tc.reply)
			}
			if n := count(evs, protocol.EventPermissionRequested); n != tc.asked || count(evs, protocol.EventAbort) != 0 {
				t.Errorf("asked %d times, want %d: %v", n, tc.asked, types(evs))
			}
			var done protocol.PermissionCompletedData
			mustUnmarshal(t, c.waitType(id, protocol.EventPermissionCompleted).Data, &done)
			if done.Result.Kind != tc.result || done.ToolCallID == "" {
				t.Errorf("%s = %+v", protocol.EventPermissionCompleted, done)
			}
			if fb, ok := tc.decision["feedback"]; ok && done.Result.Feedback != fb {
				t.Errorf("feedback %q", done.Result.Feedback)
			}
			for _, e := range evs {
				var complete protocol.ToolExecutionCompleteData
				if e.Type == protocol.EventToolExecutionComplete {
					if mustUnmarshal(t, e.Data, &complete); !complete.Success && (complete.Error == nil || complete.Error.Code != "denied") {
						t.Errorf("%s = %s", e.Type, e.Data)
					}
				}
			}
		})
	}
}
