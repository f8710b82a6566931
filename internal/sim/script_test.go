package sim_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
)

func TestChunking(t *testing.T) {
	cases := []struct {
		reply sim.Response
		want  []string
	}{
		{sim.Response{Text: "abcdefgh", Chunks: 3}, []string{"ab", "cde", "fgh"}},
		{sim.Response{Text: "ab", Chunks: 5}, []string{"a", "b"}},
		{sim.Response{Text: "abcde", ChunkSize: 2}, []string{"ab", "cd", "e"}},
		{sim.Response{Text: "héllo wörld", ChunkSize: 4}, []string{"héll", "o wö", "rld"}},
		{sim.Response{Text: strings.Repeat("x", 45)}, []string{strings.Repeat("x", 20), strings.Repeat("x", 20), "xxxxx"}},
		{sim.Response{Text: ""}, nil},
	}
	for _, tc := range cases {
		model := textModel("m", tc.reply)
		c, _ := dial(t, newServer(t, sim.Options{Models: []sim.Model{model}}))
		id := c.createSession(map[string]any{"streaming": true})
		c.send(id, "x")
		var got []string
		for _, e := range c.waitIdle(id, 1) {
			if e.Type == protocol.EventAssistantMessageDelta {
				var d struct{ DeltaContent string }
				mustUnmarshal(t, e.Data, &d)
				got = append(got, d.DeltaContent)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: pieces %q, want %q", tc.reply, got, tc.want)
		}
	}
}

func TestDefaultModels(t *testing.T) {
	models := sim.DefaultModels()
	if len(models) < 3 {
		t.Fatalf("%d demo models", len(models))
	}
	for _, m := range models {
		a := m.Respond(sim.Turn{Model: m.ID, Prompt: "Should we shard the database?"})
		again := m.Respond(sim.Turn{Model: m.ID, Prompt: "Should we shard the database?"})
		if a.Text != again.Text {
			t.Errorf("%s is not deterministic", m.ID)
		}
		if !strings.HasPrefix(a.Text, "[simulated "+m.ID+"] ") {
			t.Errorf("%s reply not labelled: %q", m.ID, a.Text)
		}
		if !strings.Contains(a.Text, "Should we shard the database?") {
			t.Errorf("%s reply ignores the prompt: %q", m.ID, a.Text)
		}
		// Replies vary with the prompt.
		distinct := map[string]bool{}
		for i := range 8 {
			r := m.Respond(sim.Turn{Model: m.ID, Prompt: fmt.Sprintf("question %d", i)})
			distinct[strings.ReplaceAll(r.Text, fmt.Sprintf("question %d", i), "Q")] = true
		}
		if len(distinct) < 3 {
			t.Errorf("%s: only %d distinct replies to 8 prompts", m.ID, len(distinct))
		}
		// Tool results are acknowledged.
		r := m.Respond(sim.Turn{Model: m.ID, Prompt: "p", Call: 1, ToolResults: []sim.ToolCallResult{{Name: "grep", Text: "3 matches"}}})
		if !strings.Contains(r.Text, "grep") || !strings.Contains(r.Text, "3 matches") {
			t.Errorf("%s ignores tool results: %q", m.ID, r.Text)
		}
	}
	// Different models answer the same prompt differently.
	if models[0].Respond(sim.Turn{Model: models[0].ID, Prompt: "p"}).Text == models[1].Respond(sim.Turn{Model: models[1].ID, Prompt: "p"}).Text {
		t.Error("two demo models gave the same reply")
	}
}

func TestHelpers(t *testing.T) {
	seq := sim.Sequence(sim.Text("first"), sim.Text("second"))
	for n, want := range map[int]string{1: "first", 2: "second", 5: "second"} {
		if got := seq(sim.Turn{Number: n}).Text; got != want {
			t.Errorf("Sequence turn %d = %q", n, got)
		}
	}

	ruled := sim.Model{ID: "m", Respond: sim.Echo}.With(
		sim.Rule{Name: "json", Match: sim.PromptContains("VERDICT"), Respond: sim.Always(sim.JSON(map[string]any{"verdict": "approve", "score": 7}))},
		sim.Rule{Name: "system", Match: sim.SystemContains("reviewer"), Respond: sim.Always(sim.Text("as a reviewer"))},
	)
	if got := ruled.Respond(sim.Turn{Prompt: "give a VERDICT"}).Text; got != `{"score":7,"verdict":"approve"}` {
		t.Errorf("json rule: %q", got)
	}
	if got := ruled.Respond(sim.Turn{Prompt: "hi", SystemMessage: "you are a reviewer"}).Text; got != "as a reviewer" {
		t.Errorf("system rule: %q", got)
	}
	if got := ruled.Respond(sim.Turn{Prompt: "hi"}).Text; got != "echo: hi" {
		t.Errorf("fallback: %q", got)
	}

	if r := sim.JSON(func() {}); r.Failure == nil {
		t.Error("JSON of a func did not fail")
	}
	if c := sim.Call("t", map[string]int{"a": 1}); c.Name != "t" || string(c.Arguments) != `{"a":1}` {
		t.Errorf("Call = %+v", c)
	}

	paced := sim.Paced([]sim.Model{textModel("a", sim.Text("x")), textModel("b", sim.Response{Text: "y", ChunkDelay: time.Second})}, 5*time.Millisecond, time.Millisecond)
	if r := paced[0].Respond(sim.Turn{}); r.FirstTokenDelay != 5*time.Millisecond || r.ChunkDelay != time.Millisecond {
		t.Errorf("paced = %+v", r)
	}
	if r := paced[1].Respond(sim.Turn{}); r.ChunkDelay != time.Second || r.FirstTokenDelay != 0 {
		t.Errorf("paced overrode a model's own delays: %+v", r)
	}

	a, b := sim.Turn{Model: "m", Prompt: "p"}, sim.Turn{Model: "m", Prompt: "q"}
	if a.Seed() == b.Seed() || a.Seed() != (sim.Turn{Model: "m", Prompt: "p", Number: 9}).Seed() {
		t.Error("Seed should depend on model and prompt only")
	}
	if a.Rand().Uint64() != a.Rand().Uint64() {
		t.Error("Rand is not deterministic")
	}
}

func TestNewServerRejectsBadOptions(t *testing.T) {
	for name, opts := range map[string]sim.Options{
		"no id":         {Models: []sim.Model{{Respond: sim.Echo}}},
		"no respond":    {Models: []sim.Model{{ID: "m"}}},
		"duplicate":     {Models: []sim.Model{{ID: "m", Respond: sim.Echo}, {ID: "m", Respond: sim.Echo}}},
		"default model": {DefaultModel: "nope"},
		"start order":   {StartOrder: 9},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewServer did not panic", name)
				}
			}()
			sim.NewServer(opts).Close()
		}()
	}
}

func TestEmitEvent(t *testing.T) {
	srv := newServer(t, sim.Options{})
	c, sc := dial(t, srv)
	id := c.createSession(nil)
	c.waitType(id, protocol.EventSessionStart)
	if err := sc.EmitEvent(id, "model.messages_snapshot", map[string]any{"big": strings.Repeat("z", 1<<16)}, false); err != nil {
		t.Fatal(err)
	}
	ev := c.waitType(id, "model.messages_snapshot")
	var got struct {
		Events []sim.Event `json:"events"`
	}
	c.mustCall(protocol.MethodSessionGetMessages, map[string]any{"sessionId": id}, &got)
	if types := types(got.Events); !slices.Equal(types, []string{protocol.EventSessionStart, "model.messages_snapshot"}) {
		t.Fatalf("getMessages = %v", types)
	}
	if ev.ParentID == nil || *ev.ParentID != got.Events[0].ID {
		t.Errorf("injected event's parentId = %v", ev.ParentID)
	}
	var data struct{ Big string }
	if err := json.Unmarshal(ev.Data, &data); err != nil || len(data.Big) != 1<<16 {
		t.Errorf("data: %v", err)
	}
}

// ExampleModel_With shows the hook a quorum layer uses: rules matching its
// own prompts, on top of a demo model.
func ExampleModel_With() {
	reviewer := sim.DefaultModels()[0].With(sim.Rule{
		Name:  "verdict",
		Match: sim.PromptContains("Reply with a JSON verdict"),
		Respond: func(t sim.Turn) sim.Response {
			return sim.JSON(map[string]any{"verdict": "approve", "confidence": 0.8})
		},
	})
	fmt.Println(reviewer.Respond(sim.Turn{Model: reviewer.ID, Prompt: "Reply with a JSON verdict on: X"}).Text)
	fmt.Println(strings.HasPrefix(reviewer.Respond(sim.Turn{Model: reviewer.ID, Prompt: "Answer: X"}).Text, "[simulated sim-fast]"))
	// Output:
	// {"confidence":0.8,"verdict":"approve"}
	// true
}
