package copilot

// Conformance: a session's sessionLimits.maxAiCredits on the real CLI
// 1.0.102, offline. It is a bound in AI credits (token-based billing), not
// premium requests: the CLI counts only what the model API says a response
// cost in credits (copilot_usage), never assistant.usage's cost.

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// infoLog records a session's session.info events of one infoType.
type infoLog struct {
	kind     string
	mu       sync.Mutex
	messages []string
}

func (l *infoLog) on(ev Event) {
	if ev.Type != protocol.EventSessionInfo {
		return
	}
	var d protocol.InfoData
	if json.Unmarshal(ev.Data, &d) == nil && d.InfoType == l.kind {
		l.mu.Lock()
		l.messages = append(l.messages, d.Message)
		l.mu.Unlock()
	}
}

func (l *infoLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.messages...)
}

// limitStatus is the <session_limits_status> message the CLI adds to the
// last model request, "" when none.
func limitStatus(reqs []modelapi.Request) string {
	if len(reqs) == 0 {
		return ""
	}
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if strings.Contains(msgs[i].Content, "<session_limits_status>") {
			return msgs[i].Content
		}
	}
	return ""
}

// limitParams is sessionLimits with maxAiCredits, as ExtraParams: the
// package types no field for it, as it bounds AI credits, not premium
// requests, and ends turns without saying so reliably (below).
func limitParams(credits float64) map[string]any {
	return map[string]any{"sessionLimits": map[string]any{"maxAiCredits": credits}}
}

// Below 30 AI credits the CLI refuses the session; at 30 it takes it.
func TestRealCLISessionLimitsHaveAMinimum(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	_, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), ExtraParams: limitParams(29)})
	if err == nil || !strings.Contains(err.Error(), "Minimum session limit is 30 AI credits") {
		t.Fatalf("session.create with maxAiCredits 29: %v", err)
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), ExtraParams: limitParams(30)})
	if err != nil {
		t.Fatal(err)
	}
	md, err := s.RPC().Metadata.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l := md.SessionLimits; l == nil || l.MaxAICredits == nil || *l.MaxAICredits != 30 {
		t.Errorf("the session's limits are %+v, want 30 AI credits", l)
	}
}

// Premium requests do not count: on a model of multiplier 40, turns costing
// 40 each go on past a limit of 30 AI credits, the model told each time
// that 30 remain.
func TestRealCLISessionLimitsIgnorePremiumRequests(t *testing.T) {
	c, api := startRealAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{"m": modelapi.Fixed(modelapi.Text("hello"))},
		Multipliers: map[string]float64{"m": 40}}, Options{})
	ctx := testutil.Context(t, 2*hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), ExtraParams: limitParams(30)})
	if err != nil {
		t.Fatal(err)
	}
	for turn := 1; turn <= 2; turn++ {
		r, err := s.Stream(ctx, "hi", TurnHandlers{})
		if err != nil || r.Text != "hello" || r.Usage.Cost != 40 {
			t.Fatalf("turn %d: %q (cost %v) %v", turn, r.Text, r.Usage.Cost, err)
		}
		if st := limitStatus(api.Requests()); !strings.Contains(st, "Remaining session limits: 30 AI credits") {
			t.Errorf("turn %d: the request's limit status is %q, want 30 credits remaining", turn, st)
		}
	}
}

// AI credits count: with every response costing 20 credits, a limit of 30
// lets the first turn through and the second (10 remained when it began),
// whose answer arrives whole, followed by session.info session_limits
// "Session limit reached. …". The third ends before its model request,
// with that info again, no text and no error: a client learns of the stop
// only from the info. No session_limits_exhausted.requested is sent.
func TestRealCLISessionLimitsStopOnAICredits(t *testing.T) {
	c, api := startRealAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{"m": modelapi.Fixed(modelapi.Text("hello"))},
		AICreditsPerRequest: 20}, Options{})
	ctx := testutil.Context(t, 2*hangGuard)
	info := infoLog{kind: "session_limits"}
	var seen eventTypes
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), ExtraParams: limitParams(30),
		OnEvent: func(ev Event) { info.on(ev); seen.on(ev) }})
	if err != nil {
		t.Fatal(err)
	}
	reached := func(turn int) {
		t.Helper()
		msgs := info.all()
		if len(msgs) == 0 || !strings.HasPrefix(msgs[len(msgs)-1], "Session limit reached.") {
			t.Errorf("after turn %d the session_limits infos are %q, want the last to say the limit was reached", turn, msgs)
		}
	}
	for turn := 1; turn <= 2; turn++ {
		if r, err := s.Stream(ctx, "hi", TurnHandlers{}); err != nil || r.Text != "hello" {
			t.Fatalf("turn %d: %q %v", turn, r.Text, err)
		}
	}
	if st := limitStatus(api.Requests()); !strings.Contains(st, "Remaining session limits: 10 AI credits") {
		t.Errorf("the second request's limit status is %q, want 10 credits remaining", st)
	}
	reached(2)
	requests, infos := len(api.Requests()), len(info.all())
	r, err := s.Stream(ctx, "hi", TurnHandlers{})
	if err != nil || r.Text != "" || r.Usage.Cost != 0 {
		t.Errorf("the turn past the limit: %q (cost %v) %v, want no text and no error", r.Text, r.Usage.Cost, err)
	}
	if n := len(api.Requests()); n != requests {
		t.Errorf("the turn past the limit made %d model requests, want none", n-requests)
	}
	if len(info.all()) == infos {
		t.Error("the turn past the limit sent no session_limits info")
	}
	reached(3)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	for _, typ := range seen.types {
		if typ == protocol.EventSessionLimitsExhaustedRequested {
			t.Errorf("the CLI asked the client about the exhausted limit (%s); CLI 1.0.102 was seen not to", typ)
		}
	}
}
