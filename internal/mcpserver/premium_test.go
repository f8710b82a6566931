package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// A tool call's maxPremium caps its run as --max-premium does: a cap that
// does not fit shrinks the discussion (the peer review left out, said in
// the result), one even the smallest run does not fit stops it with what
// it has, status degraded; a negative cap is refused.
func TestToolMaxPremium(t *testing.T) {
	f := start(t, nil, nil, nil)
	ctx := context.Background()

	res := f.call(t, ctx, "discuss", map[string]any{"topic": "Tabs or spaces?", "maxPremium": 5})
	var d quorum.DiscussResult
	decode(t, res, &d)
	if res.IsError || d.Premium == nil || strings.Join(d.Premium.LeftOut, ";") != "the peer review (3 turns)" || d.Premium.Used > 5 || len(d.Reviews) != 0 {
		t.Fatalf("maxPremium 5: error %v, premium %+v, %d reviews", res.IsError, d.Premium, len(d.Reviews))
	}

	res = f.call(t, ctx, "discuss", map[string]any{"topic": "Tabs or spaces?", "maxPremium": 2})
	d = quorum.DiscussResult{}
	decode(t, res, &d)
	if !res.IsError || res.Meta["status"] != "degraded" || d.Premium.Used > 2 || len(d.Answers) == 0 || !strings.Contains(text(res), "premium-request cap") {
		t.Fatalf("maxPremium 2: status %v, premium %+v, %d answers:\n%s", res.Meta["status"], d.Premium, len(d.Answers), text(res))
	}

	res = f.call(t, ctx, "ask", map[string]any{"question": "Why?", "model": "sim-alpha", "maxPremium": 0.5})
	if !res.IsError || !strings.Contains(text(res), "premium-request cap") {
		t.Fatalf("ask with maxPremium 0.5 on a model of multiplier 1: %s", text(res))
	}

	res = f.call(t, ctx, "plan", map[string]any{"task": "Ship it", "maxPremium": -1})
	if !res.IsError || !strings.Contains(text(res), "maxPremium is -1") {
		t.Fatalf("maxPremium -1: %s", text(res))
	}
}
