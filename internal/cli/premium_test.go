package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
)

type premiumJSON struct {
	Status string `json:"status"`
	Result struct {
		Estimate quorum.Estimate `json:"estimate"`
		Premium  quorum.Premium  `json:"premium"`
		Calls    []quorum.Call   `json:"calls"`
	} `json:"result"`
}

func decodePremium(t *testing.T, stdout string) premiumJSON {
	t.Helper()
	var p premiumJSON
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	return p
}

// agentRepo is a repository an agent can run in, for the harness.
func agentRepo(t *testing.T, h *harness) {
	gittest.Isolate(t)
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q", "-b", "main")
	gittest.Write(t, repo, map[string]string{"README.md": "# demo\n"})
	gittest.Git(t, repo, "add", "--all")
	gittest.Git(t, repo, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "initial")
	h.dir = repo
	h.env["XDG_STATE_HOME"] = filepath.Join(t.TempDir(), "state")
}

// --dry-run prints what each command's run would cost and exits 0 with
// no model asked; the run that follows then reports premium requests
// within that estimate.
func TestDryRunEstimatesTheRun(t *testing.T) {
	runs := append(goldenRuns[:len(goldenRuns):len(goldenRuns)], struct {
		cmd  string
		args []string
	}{"agent", []string{"--yes", "Add a --verbose flag"}})
	for _, c := range runs {
		t.Run(c.cmd, func(t *testing.T) {
			h := newHarness(t)
			if c.cmd == "agent" {
				agentRepo(t, h)
			}
			// The transcript records every prompt a model is sent.
			dryLog := filepath.Join(t.TempDir(), "dry.jsonl")
			dry := h.run(append([]string{c.cmd, "--sim", "--dry-run", "-o", "json", "--transcript", dryLog}, c.args...)...)
			if b, _ := os.ReadFile(dryLog); dry.code != cmdutil.ExitOK || len(b) != 0 {
				t.Fatalf("--dry-run: exit %d, transcript %q: %s", dry.code, b, dry.stderr)
			}
			if c.cmd == "agent" {
				if b := gittest.Git(t, h.dir, "branch", "--list", "quorum/*"); strings.TrimSpace(b) != "" {
					t.Fatalf("--dry-run made a branch: %s", b)
				}
			}
			est := decodePremium(t, dry.stdout).Result.Estimate
			if est.Premium.Min <= 0 || len(est.Phases) == 0 {
				t.Fatalf("no estimate: %+v", est)
			}
			text := h.run(append([]string{c.cmd, "--sim", "--dry-run"}, c.args...)...)
			if text.code != cmdutil.ExitOK || !strings.Contains(text.stdout, "premium requests") || !strings.Contains(text.stdout, "nothing was asked of a model") {
				t.Fatalf("--dry-run as text: exit %d:\n%s", text.code, text.stdout)
			}

			runLog := filepath.Join(t.TempDir(), "run.jsonl")
			real := h.run(append([]string{c.cmd, "--sim", "-q", "-o", "json", "--transcript", runLog}, c.args...)...)
			run := decodePremium(t, real.stdout)
			if b, _ := os.ReadFile(runLog); real.code != cmdutil.ExitOK || len(run.Result.Calls) == 0 || !strings.Contains(string(b), `"kind":"model_started"`) {
				t.Fatalf("the run: exit %d, %d calls, transcript of %d bytes: %s", real.code, len(run.Result.Calls), len(b), real.stderr)
			}
			p := run.Result.Premium
			if p.Used < est.Premium.Min-1e-9 || (!est.Premium.Open && p.Used > est.Premium.Max+1e-9) {
				t.Errorf("the run used %v premium requests, outside the estimate %+v", p.Used, est.Premium)
			}
		})
	}
}

// A cap that fits changes nothing; one that does not shrinks the run
// before it starts and says what it left out; one even the smallest run
// does not fit stops it where the next turn would pass it: exit 3,
// status degraded, what was collected printed, never more used than the
// cap.
func TestMaxPremium(t *testing.T) {
	h := newHarness(t)
	fits := decodePremium(t, h.run("discuss", "--sim", "-q", "-o", "json", "--max-premium", "7", goldenTopic).stdout)
	if fits.Status != "ok" || len(fits.Result.Premium.LeftOut) != 0 || fits.Result.Premium.Used > 7 {
		t.Errorf("a cap that fits: %+v", fits)
	}

	shrunk := decodePremium(t, h.run("discuss", "--sim", "-q", "-o", "json", "--max-premium", "5", goldenTopic).stdout)
	if shrunk.Status != "ok" || strings.Join(shrunk.Result.Premium.LeftOut, ";") != "the peer review (3 turns)" || shrunk.Result.Premium.Used > 5 {
		t.Errorf("a cap that shrinks the run: %+v", shrunk.Result.Premium)
	}
	for _, c := range shrunk.Result.Calls {
		if c.Phase == quorum.PhaseReview {
			t.Errorf("a review ran although the cap left the review out: %+v", c)
		}
	}

	o := h.run("discuss", "--sim", "-q", "-o", "json", "--max-premium", "2", goldenTopic)
	stopped := decodePremium(t, o.stdout)
	if o.code != cmdutil.ExitDegraded || stopped.Status != "degraded" || stopped.Result.Premium.Used > 2 || stopped.Result.Premium.Refused == 0 {
		t.Fatalf("a cap that stops the run: exit %d, %+v: %s", o.code, stopped.Result.Premium, o.stderr)
	}
	if len(stopped.Result.Calls) == 0 || !strings.Contains(o.stderr, "premium-request cap") || !strings.Contains(o.stderr, "--max-premium") {
		t.Errorf("the partial result or the reason is missing: %d calls; %s", len(stopped.Result.Calls), o.stderr)
	}

	// The same cap from the config file and the environment.
	cfg := filepath.Join(h.cfgDir, "quorum", "config.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte(`{"max-premium": 5}`), 0o600)
	if got := decodePremium(t, h.run("discuss", "--sim", "--dry-run", "-o", "json", goldenTopic).stdout).Result.Estimate; got.Cap != 5 {
		t.Errorf("config max-premium 5: cap %v", got.Cap)
	}
	h.env["QUORUM_MAX_PREMIUM"] = "4.5"
	if got := decodePremium(t, h.run("discuss", "--sim", "--dry-run", "-o", "json", goldenTopic).stdout).Result.Estimate; got.Cap != 4.5 {
		t.Errorf("QUORUM_MAX_PREMIUM=4.5: cap %v", got.Cap)
	}
	if o := h.run("discuss", "--sim", "--max-premium", "-1", goldenTopic); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "must not be negative") {
		t.Errorf("--max-premium -1: exit %d: %s", o.code, o.stderr)
	}
}

// quorum ask: --dry-run prices its one turn; a cap its model's
// multiplier does not fit is refused before the question is asked.
func TestAskPremium(t *testing.T) {
	h := newHarness(t)
	o := h.run("ask", "--sim", "--dry-run", "Why?")
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "1 premium request in 1 model turn") {
		t.Fatalf("ask --dry-run: exit %d:\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = h.run("ask", "--sim", "--max-premium", "0.5", "Why?")
	if o.code != cmdutil.ExitDegraded || !strings.Contains(o.stderr, "premium-request cap") || o.stdout != "" {
		t.Fatalf("ask --max-premium 0.5: exit %d, stdout %q: %s", o.code, o.stdout, o.stderr)
	}
}
