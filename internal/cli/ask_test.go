package cli

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/ask"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

func TestAskSimStreamsToStdout(t *testing.T) {
	h := newHarness(t)
	o := h.run("ask", "--sim", "What is a goroutine?")
	if o.code != cmdutil.ExitOK {
		t.Fatalf("code %d: %s", o.code, o.stderr)
	}
	if !strings.HasPrefix(o.stdout, "[simulated sim-alpha]") || !strings.Contains(o.stdout, "goroutine") || !strings.HasSuffix(o.stdout, "\n") {
		t.Errorf("stdout = %q", o.stdout)
	}
	if o.stderr != "quorum: asking sim-alpha (simulated)\n" {
		t.Errorf("stderr = %q", o.stderr)
	}
	// -q: nothing on stderr; the result alone on stdout.
	if o := h.run("ask", "-q", "--sim", "x"); o.stderr != "" || o.stdout == "" {
		t.Errorf("quiet: stderr %q", o.stderr)
	}
}

// ask's JSON is the envelope every command prints, with camelCase fields.
func TestAskJSONAndStdinQuestion(t *testing.T) {
	h := newHarness(t)
	h.stdin = "  Why test?\n"
	o := h.run("ask", "--sim", "-q", "-m", "sim-beta", "-o", "json", "-")
	if o.code != cmdutil.ExitOK {
		t.Fatalf("code %d: %s", o.code, o.stderr)
	}
	var r struct {
		cmdutil.Envelope
		Result ask.Result `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatalf("%v: %s", err, o.stdout)
	}
	if r.Command != "ask" || !r.Simulated || r.Status != "ok" || r.Result.Model != "sim-beta" || r.Result.Question != "Why test?" ||
		!strings.Contains(r.Result.Answer, "[simulated sim-beta]") || r.Result.Usage.OutputTokens == 0 {
		t.Errorf("result = %+v", r)
	}
	if !strings.Contains(o.stdout, `"elapsedMs"`) || strings.Contains(o.stdout, "duration_ms") {
		t.Errorf("field names:\n%s", o.stdout)
	}
	h.stdin = "   "
	if o := h.run("ask", "--sim", "-"); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "the question on stdin is empty") {
		t.Errorf("empty stdin question: code %d, %q", o.code, o.stderr)
	}
}

// ask names one model: several in the settings, without -m, is a mistake
// to point out, not a choice to make silently.
func TestAskWithSeveralConfiguredModels(t *testing.T) {
	h := newHarness(t)
	h.env["QUORUM_MODELS"] = "sim-beta,sim-gamma"
	if o := h.run("ask", "--sim", "q"); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "quorum ask asks one model, and the settings name 2 (sim-beta, sim-gamma, from QUORUM_MODELS); pick one with -m") {
		t.Errorf("exit %d, %q", o.code, o.stderr)
	}
	if o := h.run("ask", "--sim", "-q", "-m", "sim-gamma", "q"); o.code != cmdutil.ExitOK || !strings.HasPrefix(o.stdout, "[simulated sim-gamma]") {
		t.Errorf("-m beats the setting: exit %d, %q", o.code, o.stdout)
	}
}

// An answer cut short by Ctrl-C is still printed, in JSON too, marked
// interrupted; the exit status is 130.
func TestAskInterruptedPrintsWhatCame(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		h := newHarness(t)
		h.simModels = func(p pace) []sim.Model {
			return []sim.Model{simquorum.Model("slow").With(sim.Rule{Name: "hang", Match: func(sim.Turn) bool { return true },
				Respond: sim.Always(sim.Response{Text: "the first half of an answer", Hang: true})})}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		interrupt, ctrlC := context.WithCancel(ctx)
		var once sync.Once
		h.onEvent = func(ev quorum.Progress) {
			if ev.Kind == quorum.Delta && strings.Contains(ev.Text, "answer") {
				once.Do(ctrlC)
			}
		}
		o := h.runContext(interrupt, "ask", "--sim", "-q", "-o", format, "q")
		ctrlC()
		cancel()
		if format == "text" && (o.code != cmdutil.ExitInterrupted || o.stdout != "the first half of an answer\n" || !strings.Contains(o.stderr, "interrupted (Ctrl-C)")) {
			t.Errorf("text: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
		}
		if format == "json" {
			var r struct {
				cmdutil.Envelope
				Result ask.Result `json:"result"`
			}
			err := json.Unmarshal([]byte(o.stdout), &r)
			if err != nil || o.code != cmdutil.ExitInterrupted || r.Status != "interrupted" || r.Error == nil || *r.Error != "the answer was interrupted by Ctrl-C before it was complete" ||
				r.Result.Answer != "the first half of an answer" {
				t.Errorf("json: exit %d, %v:\n%s", o.code, err, o.stdout)
			}
		}
	}
}

// An answer cut short by --timeout says so and what to do, and what had
// streamed is kept.
func TestAskTimeoutSaysSo(t *testing.T) {
	h := newHarness(t)
	h.simModels = func(p pace) []sim.Model {
		return []sim.Model{simquorum.Model("m").With(sim.Rule{Name: "hang", Match: func(sim.Turn) bool { return true }, Respond: sim.Always(sim.Response{Text: "half", Hang: true})})}
	}
	o := h.run("ask", "--sim", "--timeout", "300ms", "q")
	if o.code != cmdutil.ExitFailure || o.stdout != "half\n" || !strings.Contains(o.stderr, "quorum ask took longer than --timeout (300ms), and the answer was cut short; raise --timeout") {
		t.Errorf("exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
}
