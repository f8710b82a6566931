// These tests are of calls that do not end well: cancelled, timed out,
// cut off, or with the CLI gone.

package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/quorum"
	"go.uber.org/goleak"
)

// A cancelled call aborts its turns and deletes its sessions before it
// returns, and the server goes on.
func TestCancelMidPhase(t *testing.T) {
	f, ctx, cancel, errc := hangingDiscuss(t, false)
	if live := f.srv.LiveSessions(); len(live) != 3 {
		t.Fatalf("%d sessions live mid-phase, want 3", len(live))
	}
	cancel() // the SDK's client sends notifications/cancelled
	if err := testutil.Receive(t, "the cancelled call's return", guard, errc); err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	testutil.Await(t, "the server's end of the call", guard, func() error { f.s.calls.Wait(); return nil })
	if live := f.srv.LiveSessions(); len(live) != 0 {
		t.Errorf("sessions left after the cancelled call: %v", live)
	}
	if res := f.call(t, ctx, "models", nil); res.IsError {
		t.Errorf("after a cancelled call: %s", text(res))
	}
}

// A call past its timeout returns what was collected, marked incomplete.
func TestTimeoutPartialResult(t *testing.T) {
	models := scripted(func(turn sim.Turn) (sim.Response, bool) {
		if isPhase(turn.Prompt, quorum.PhaseReview) {
			return sim.Hang(), true
		}
		return sim.Response{}, false
	})
	f := start(t, models, nil, nil)
	ctx := testutil.Context(t, guard)
	res := f.call(t, ctx, "discuss", map[string]any{"topic": "Will it finish?", "timeoutSeconds": 1})
	if !res.IsError || res.Meta["status"] != "failed" {
		t.Fatalf("isError %v, meta %v", res.IsError, res.Meta)
	}
	var d quorum.DiscussResult
	decode(t, res, &d)
	if len(d.Answers) != 3 || d.Synthesis != nil {
		t.Errorf("partial result: %d answers, synthesis %v", len(d.Answers), d.Synthesis)
	}
	md := text(res)
	if !strings.Contains(md, "took longer than its timeout") || !strings.Contains(md, "raise timeoutSeconds") || !strings.Contains(strings.ToLower(md), "incomplete") {
		t.Errorf("text:\n%s", md)
	}
	if live := f.srv.LiveSessions(); len(live) != 0 {
		t.Errorf("sessions left: %v", live)
	}
}

// A client that disconnects mid-call leaves no session, goroutine or
// connection behind.
func TestDisconnectMidCall(t *testing.T) {
	started := newSignal()
	models := scripted(func(turn sim.Turn) (sim.Response, bool) {
		if isPhase(turn.Prompt, quorum.PhaseAnswer) {
			started.send(turn.Model)
			return sim.Hang(), true
		}
		return sim.Response{}, false
	})
	f := start(t, models, nil, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "discuss", Arguments: map[string]any{"topic": "left hanging"}})
		errc <- err
	}()
	for range 3 {
		testutil.Receive(t, "the answer turns", guard, started.ch)
	}
	// The client goes away without a word, as a client process that dies
	// does (ClientSession.Close would wait for the call).
	f.conn.Close()
	if err := testutil.Receive(t, "the client's call's end", guard, errc); err == nil {
		t.Error("the call succeeded on a closed connection")
	}
	if err := testutil.Receive(t, "the server's end", guard, f.done); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	f.done <- nil // for the cleanup
	if live := f.srv.LiveSessions(); len(live) != 0 {
		t.Errorf("sessions left: %v", live)
	}
	f.close()
	goleak.VerifyNone(t)
}

// A CLI that dies mid-call fails the calls on it with a tool error that
// says so; the next call runs on a new one.
func TestCLICrash(t *testing.T) {
	models := scripted(func(turn sim.Turn) (sim.Response, bool) {
		if strings.Contains(turn.Prompt, "crash now") && isPhase(turn.Prompt, quorum.PhaseAnswer) {
			return sim.Response{Text: "half an answer", Crash: true}, true
		}
		return sim.Response{}, false
	})
	f := start(t, models, nil, nil)
	ctx := testutil.Context(t, guard)
	res := f.call(t, ctx, "discuss", map[string]any{"topic": "crash now"})
	if !res.IsError || res.Meta["status"] != "failed" || !strings.Contains(text(res), "the Copilot CLI stopped during the call") ||
		!strings.Contains(text(res), "call the tool again") {
		t.Fatalf("isError %v, meta %v:\n%s", res.IsError, res.Meta, text(res))
	}
	res = f.call(t, ctx, "discuss", map[string]any{"topic": "all is well"})
	if res.IsError {
		t.Fatalf("after the crash: %s", text(res))
	}
	if n := f.connects.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the first died)", n)
	}
}
