package sim_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

// limitedModels are a model rate limited on its first turn and the default
// model, which answers for "auto".
func limitedModels(log *turnLog) []sim.Model {
	return []sim.Model{
		{ID: "fallback", Respond: log.respond},
		{ID: "limited", Respond: func(turn sim.Turn) sim.Response {
			if turn.Number == 1 {
				return sim.RateLimited(30)
			}
			return log.respond(turn)
		}},
	}
}

// answerAutoSwitch answers auto_mode_switch.requested with response and
// returns the answer's success.
func answerAutoSwitch(c *client, id, requestID, response string) bool {
	c.t.Helper()
	var res protocol.UIHandlePendingResult
	c.mustCall(protocol.MethodSessionUIHandlePendingAutoModeSwitch, map[string]any{"sessionId": id, "requestId": requestID, "response": response}, &res)
	return res.Success
}

// A rate limit ends the model call as CLI 1.0.102 ends it after a 429:
// session.error, then auto_mode_switch.requested, and the turn waits, not
// idle, until the client answers; a yes switches the session to the auto
// model, whose calls the default model's script answers.
func TestRateLimitOffersTheAutoModel(t *testing.T) {
	for _, response := range []string{"yes", "no"} {
		t.Run(response, func(t *testing.T) {
			var log turnLog
			c, _ := dial(t, newServer(t, sim.Options{Models: limitedModels(&log)}))
			id := c.createSession(map[string]any{"model": "limited"})
			c.send(id, "go")
			ev := c.waitType(id, protocol.EventAutoModeSwitchRequested)
			var req protocol.AutoModeSwitchRequestedData
			mustUnmarshal(t, ev.Data, &req)
			if req.RequestID == "" || req.ErrorCode != "rate_limited" || req.RetryAfterSeconds == nil || *req.RetryAfterSeconds != 30 || !ev.Ephemeral {
				t.Errorf("%s %s", ev.Type, ev.Data)
			}
			for range 5 {
				c.mustCall(protocol.MethodPing, nil, nil)
			}
			evs := c.events(id)
			want := []string{protocol.EventAssistantTurnStart, protocol.EventAssistantTurnEnd, protocol.EventSessionError, protocol.EventAutoModeSwitchRequested}
			if got := types(evs[len(evs)-4:]); !slices.Equal(got, want) {
				t.Fatalf("waiting for the answer after %v, want %v", got, want)
			}
			var e protocol.ErrorData
			mustUnmarshal(t, evs[len(evs)-2].Data, &e)
			if e.ErrorType != "rate_limit" || e.ErrorCode != "rate_limited" || e.StatusCode == nil || *e.StatusCode != 429 ||
				e.EligibleForAutoSwitch == nil || !*e.EligibleForAutoSwitch || e.Message != sim.RateLimitMessage {
				t.Errorf("%s %+v", protocol.EventSessionError, e)
			}

			if !answerAutoSwitch(c, id, req.RequestID, response) {
				t.Fatal("the answer was not taken")
			}
			evs = c.waitIdle(id, 1)
			if answerAutoSwitch(c, id, req.RequestID, response) {
				t.Error("a second answer was taken")
			}
			var done protocol.AutoModeSwitchCompletedData
			mustUnmarshal(t, c.waitType(id, protocol.EventAutoModeSwitchCompleted).Data, &done)
			if done.RequestID != req.RequestID || string(done.Response) != response {
				t.Errorf("%s %+v", protocol.EventAutoModeSwitchCompleted, done)
			}
			var cur protocol.CurrentModel
			c.mustCall(protocol.MethodSessionModelGetCurrent, map[string]any{"sessionId": id}, &cur)
			if response == "no" {
				if cur.ModelID != "limited" || count(evs, protocol.EventSessionModelChange) != 0 {
					t.Errorf("declined, the model is %q: %v", cur.ModelID, types(evs))
				}
				return
			}
			var change protocol.ModelChangeData
			mustUnmarshal(t, c.waitType(id, protocol.EventSessionModelChange).Data, &change)
			if cur.ModelID != sim.AutoModel || change.NewModel != sim.AutoModel || change.PreviousModel != "limited" ||
				change.Cause != "rate_limit_auto_switch" || change.Source != protocol.ModelChangeSourceAutomatic {
				t.Errorf("the model is %q after %+v", cur.ModelID, change)
			}
			if got := types(evs[len(evs)-5:]); !slices.Equal(got, []string{protocol.EventAutoModeSwitchRequested, protocol.EventAutoModeSwitchCompleted,
				protocol.EventSessionModelChange, protocol.EventAssistantIdle, protocol.EventSessionIdle}) {
				t.Errorf("the turn ends with %v", got)
			}
			c.send(id, "again")
			c.waitIdle(id, 2)
			if turn := log.last(); turn.Model != sim.AutoModel || !strings.Contains(turn.Prompt, "switched from limited to auto") {
				t.Errorf("the next call: %q, %q", turn.Model, turn.Prompt)
			}
		})
	}
}

// With requestAutoModeSwitch the CLI also asks its client with
// autoModeSwitch.request, sent before the event: the first answer counts,
// the request's or the event's; an error answer is a no.
func TestRateLimitAsksTheClient(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   func() (any, error)
		response string
	}{
		{"yes", func() (any, error) { return protocol.AutoModeSwitchRequestResponse{Response: "yes"}, nil }, "yes"},
		{"error", func() (any, error) { return nil, errors.New("no handler") }, "no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log turnLog
			c, _ := dial(t, newServer(t, sim.Options{Models: limitedModels(&log)}))
			asked := make(chan json.RawMessage, 1)
			c.onRequest = func(method string, params json.RawMessage) (any, error) {
				if method != protocol.MethodAutoModeSwitchRequest {
					t.Errorf("request %s", method)
				}
				asked <- params
				return tc.answer()
			}
			id := c.createSession(map[string]any{"model": "limited", "requestAutoModeSwitch": true})
			c.send(id, "go")
			evs := c.waitIdle(id, 1)
			var p protocol.AutoModeSwitchRequestParams
			if err := json.Unmarshal(<-asked, &p); err != nil || p.SessionID != id || p.ErrorCode != "rate_limited" || p.RetryAfterSeconds == nil || *p.RetryAfterSeconds != 30 {
				t.Errorf("%s params %+v: %v", protocol.MethodAutoModeSwitchRequest, p, err)
			}
			var req protocol.AutoModeSwitchRequestedData
			mustUnmarshal(t, c.waitType(id, protocol.EventAutoModeSwitchRequested).Data, &req)
			var done protocol.AutoModeSwitchCompletedData
			mustUnmarshal(t, c.waitType(id, protocol.EventAutoModeSwitchCompleted).Data, &done)
			if string(done.Response) != tc.response || (count(evs, protocol.EventSessionModelChange) == 1) != (tc.response == "yes") {
				t.Errorf("completed %+v: %v", done, types(evs))
			}
			if answerAutoSwitch(c, id, req.RequestID, "yes") {
				t.Error("the event's answer was taken after the request's")
			}
			// The request went out before the event.
			c.mu.Lock()
			defer c.mu.Unlock()
			request := slices.IndexFunc(c.wire, func(e wireEntry) bool { return e.Method == protocol.MethodAutoModeSwitchRequest })
			event := slices.IndexFunc(c.wire, func(e wireEntry) bool {
				return e.Session == id && strings.Contains(string(e.Params), protocol.EventAutoModeSwitchRequested)
			})
			if request < 0 || event < request {
				t.Errorf("request at %d, event at %d", request, event)
			}
		})
	}

	t.Run("the event answered first", func(t *testing.T) {
		var log turnLog
		c, _ := dial(t, newServer(t, sim.Options{Models: limitedModels(&log)}))
		release := make(chan struct{})
		c.onRequest = func(string, json.RawMessage) (any, error) {
			<-release
			return protocol.AutoModeSwitchRequestResponse{Response: "yes"}, nil
		}
		defer close(release)
		id := c.createSession(map[string]any{"model": "limited", "requestAutoModeSwitch": true})
		c.send(id, "go")
		var req protocol.AutoModeSwitchRequestedData
		mustUnmarshal(t, c.waitType(id, protocol.EventAutoModeSwitchRequested).Data, &req)
		if !answerAutoSwitch(c, id, req.RequestID, "no") {
			t.Fatal("the event's answer was not taken")
		}
		evs := c.waitIdle(id, 1)
		if count(evs, protocol.EventSessionModelChange) != 0 {
			t.Errorf("switched: %v", types(evs))
		}
	})
}

// An abort ends a turn waiting for the switch answer, as any other.
func TestAbortWhileTheAutoSwitchIsAsked(t *testing.T) {
	var log turnLog
	c, _ := dial(t, newServer(t, sim.Options{Models: limitedModels(&log)}))
	id := c.createSession(map[string]any{"model": "limited"})
	c.send(id, "go")
	var req protocol.AutoModeSwitchRequestedData
	mustUnmarshal(t, c.waitType(id, protocol.EventAutoModeSwitchRequested).Data, &req)
	c.mustCall(protocol.MethodSessionAbort, map[string]any{"sessionId": id}, nil)
	evs := c.waitIdle(id, 1)
	if evs[len(evs)-2].Type != protocol.EventAbort || answerAutoSwitch(c, id, req.RequestID, "yes") {
		t.Errorf("after the abort: %v", types(evs))
	}
}
