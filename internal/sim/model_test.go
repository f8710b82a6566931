package sim_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// turnLog records the Turn of every model call.
type turnLog struct {
	mu    sync.Mutex
	turns []sim.Turn
}

func (l *turnLog) respond(t sim.Turn) sim.Response {
	l.mu.Lock()
	l.turns = append(l.turns, t)
	l.mu.Unlock()
	return sim.Text(t.Model + " says: " + t.Prompt)
}

func (l *turnLog) last() sim.Turn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turns[len(l.turns)-1]
}

// session.model.switchTo changes the model of the next model call, as CLI
// 1.0.102 does: it answers with the schema's result, says so with
// session.model_change, and the model's next prompt carries the CLI's
// notice of the switch. Like the CLI it takes a model it does not serve,
// whose turn then fails.
func TestModelSwitch(t *testing.T) {
	var log turnLog
	c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{{ID: "m", Respond: log.respond}, {ID: "n", Respond: log.respond}}}))
	id := c.createSession(map[string]any{"model": "m"})
	c.send(id, "one")
	c.waitIdle(id, 1)

	var res protocol.ModelSwitchToResult
	c.mustCall(protocol.MethodSessionModelSwitchTo, map[string]any{"sessionId": id, "modelId": "n"}, &res)
	if res.Status != "applied" || res.ModelID != "n" || res.Deferred == nil || *res.Deferred ||
		res.Message != "Model changed from GitHub Copilot • m to GitHub Copilot • n" || res.ModelState == nil || res.ModelState.ModelID != "n" {
		t.Errorf("switchTo = %+v", res)
	}
	var change protocol.ModelChangeData
	mustUnmarshal(t, c.waitType(id, protocol.EventSessionModelChange).Data, &change)
	if change.PreviousModel != "m" || change.NewModel != "n" || change.Source != protocol.ModelChangeSourceSDK {
		t.Errorf("%s = %+v", protocol.EventSessionModelChange, change)
	}
	var cur protocol.CurrentModel
	c.mustCall(protocol.MethodSessionModelGetCurrent, map[string]any{"sessionId": id}, &cur)
	if cur.ModelID != "n" {
		t.Errorf("getCurrent = %+v", cur)
	}

	c.send(id, "two")
	evs := c.waitIdle(id, 2)
	if turn := log.last(); turn.Model != "n" || !strings.HasSuffix(turn.Prompt, "two") || !strings.Contains(turn.Prompt, "The model has been switched from m to n.") {
		t.Errorf("the call after the switch: model %q, prompt %q", turn.Model, turn.Prompt)
	}
	if got := messageContent(t, evs); !strings.HasPrefix(got, "n says: <tools_changed_notice>") {
		t.Errorf("reply %q", got)
	}
	c.send(id, "three")
	c.waitIdle(id, 3)
	if turn := log.last(); turn.Prompt != "three" {
		t.Errorf("the notice came again: %q", turn.Prompt)
	}

	c.mustCall(protocol.MethodSessionModelSwitchTo, map[string]any{"sessionId": id, "modelId": "nonexistent"}, &res)
	if res.ModelID != "nonexistent" || res.Message != "Model changed from GitHub Copilot • n to nonexistent" {
		t.Errorf("switchTo an unknown model = %+v", res)
	}
	c.send(id, "four")
	evs = c.waitIdle(id, 4)
	var e protocol.ErrorData
	mustUnmarshal(t, evs[len(evs)-2].Data, &e)
	if evs[len(evs)-2].Type != protocol.EventSessionError || e.StatusCode == nil || *e.StatusCode != 404 || !strings.Contains(e.Message, "nonexistent") {
		t.Errorf("a turn of an unknown model: %v, %+v", types(evs[len(evs)-3:]), e)
	}

	rerr := rpcError(t, c.call(protocol.MethodSessionModelSwitchTo, map[string]any{"sessionId": id}, nil))
	if rerr.Code != sim.CodeInvalidParams {
		t.Errorf("switchTo without a model: %+v", rerr)
	}
}
