package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// The README's own example, quorum config set models
// gpt-5,claude-sonnet-4.5, does not break the --sim runs after it: they
// set the configured models aside, say so, and run on the simulator's.
// Models named on the command line are the run's own choice: one the
// simulator does not offer is a usage error that names the simulator, not
// the Copilot CLI, as what offers the models.
func TestSimWithRealModelsConfigured(t *testing.T) {
	h := newHarness(t)
	if o := h.run("config", "set", "models", "gpt-5,claude-sonnet-4.5"); o.code != cmdutil.ExitOK {
		t.Fatalf("config set: exit %d: %s", o.code, o.stderr)
	}
	note := "quorum: note: setting aside the models in the config file " + h.configFile() + " (gpt-5, claude-sonnet-4.5) for this simulated run"
	o := h.run("discuss", "--sim", "-q", "-o", "json", goldenTopic)
	var env struct {
		Simulated bool
		Result    struct{ Models []string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &env); err != nil || o.code != cmdutil.ExitOK {
		t.Fatalf("discuss: exit %d (%v), stderr %q", o.code, err, o.stderr)
	}
	if strings.Join(env.Result.Models, ",") != "sim-alpha,sim-beta,sim-gamma" || !env.Simulated || !strings.Contains(o.stderr, note) {
		t.Errorf("discuss: models %q, simulated %v, stderr %q", env.Result.Models, env.Simulated, o.stderr)
	}
	if o := h.run("ask", "--sim", "What is a goroutine?"); o.code != cmdutil.ExitOK || !strings.HasPrefix(o.stdout, "[simulated sim-alpha]") || !strings.Contains(o.stderr, note) {
		t.Errorf("ask: exit %d, stdout %.60q, stderr %q", o.code, o.stdout, o.stderr)
	}
	o = h.run("discuss", "--sim", "-m", "gpt-5,sim-alpha", goldenTopic)
	if o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "unknown model gpt-5; the simulator offers: sim-alpha, sim-beta, sim-gamma, sim-moderator") ||
		strings.Contains(o.stderr, "Copilot CLI") || strings.Contains(o.stderr, "setting aside") {
		t.Errorf("-m gpt-5 on the simulator: exit %d, stderr %q", o.code, o.stderr)
	}
}

// QUORUM_SIM=1, or sim set in the config file, runs every command on the
// simulator without --sim; quorum config shows where it came from.
func TestSimChosenBySetting(t *testing.T) {
	h := newHarness(t)
	h.env["QUORUM_SIM"] = "1"
	if o := h.run("ask", "-q", "-o", "json", "x"); o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, `"simulated": true`) {
		t.Errorf("QUORUM_SIM=1: exit %d, stdout %.200s, stderr %q", o.code, o.stdout, o.stderr)
	}
	delete(h.env, "QUORUM_SIM")
	if o := h.run("config", "set", "sim", "true"); o.code != cmdutil.ExitOK {
		t.Fatalf("config set sim true: exit %d: %s", o.code, o.stderr)
	}
	if o := h.run("discuss", "-q", goldenTopic); o.code != cmdutil.ExitOK || !strings.HasPrefix(o.stdout, "SIMULATED RUN") {
		t.Errorf("sim in the config file: exit %d, stdout %.100q, stderr %q", o.code, o.stdout, o.stderr)
	}
	if o := h.run("config"); !regexp.MustCompile(`(?m)^sim +true +file ` + regexp.QuoteMeta(h.configFile()) + `$`).MatchString(o.stdout) {
		t.Errorf("quorum config does not show sim from the file:\n%s", o.stdout)
	}
}
