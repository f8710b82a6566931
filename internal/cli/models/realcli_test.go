package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// modelsOut is what quorum models -o json prints.
type modelsOut struct {
	Command   string
	Simulated bool
	Status    string
	Result    modelsResult
}

// quorum models on the real Copilot CLI, offline: the multipliers and the
// allowance it shows are those the CLI reported from what the test's
// stand-in for GitHub's API served (each model's billing, the account's
// quota_snapshots and reset date); an account the API gives no allowance
// shows none, and no warning. It fails, not skips, without the CLI.
func TestRealCLIModelsShowWhatTheCLIReports(t *testing.T) {
	cli, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the real-CLI tests need the Copilot CLI: %v", err)
	}
	bin := testutil.GoBuild(t, "github.com/quorum-go/quorum/cmd/quorum")
	models := map[string]modelapi.Responder{"alpha": modelapi.Echo, "cheap": modelapi.Echo, "pricey": modelapi.Echo}
	multipliers := map[string]float64{"cheap": 0.33, "pricey": 3}
	run := func(t *testing.T, quota *modelapi.Quota, args ...string) (stdout, stderr string) {
		t.Helper()
		sb := clitest.NewSandbox(t)
		api := sb.StartModelAPI(t, modelapi.Config{Models: models, Multipliers: multipliers, PremiumQuota: quota})
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := sb.Command(ctx, bin, append([]string{"models", "--cli-path", cli}, args...)...)
		cmd.Env = append(clitest.OfflineEnv(t, api.URL()), "QUORUM_CLI_ARGS=--disable-builtin-mcps")
		cmd.Dir = t.TempDir()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s: %v", cmd, err)
		}
		if code := cmd.ProcessState.ExitCode(); code != cmdutil.ExitOK {
			t.Fatalf("quorum models %v: exit %d\n%s\n%s", args, code, errb.String(), out.String())
		}
		return out.String(), errb.String()
	}
	quota := &modelapi.Quota{Entitlement: 300, Used: 42, ResetDate: "2026-12-01"}

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		stdout, _ := run(t, quota, "-o", "json")
		var out modelsOut
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		got := map[string]float64{}
		for _, m := range out.Result.Models {
			if m.Multiplier != nil {
				got[m.ID] = *m.Multiplier
			}
		}
		if want := map[string]float64{"alpha": 1, "cheap": 0.33, "pricey": 3}; out.Simulated || !maps.Equal(got, want) {
			t.Errorf("simulated %v, multipliers %v; want %v", out.Simulated, got, want)
		}
		a := out.Result.Allowance
		if a == nil || a.Entitlement != 300 || a.Used != 42 || a.Remaining != 258 || a.Unlimited ||
			!a.ResetDate.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("allowance %+v in\n%s", a, stdout)
		}
	})
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		stdout, stderr := run(t, quota)
		for _, want := range []string{"cheap   cheap   0.33\n", "pricey  pricey  3\n",
			"\n\nPremium requests this month: 42 of 300 used, 258 left, resets 2026-12-01\n"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
		if stderr != "" {
			t.Errorf("stderr: %s", stderr)
		}
	})
	t.Run("no allowance", func(t *testing.T) {
		t.Parallel()
		stdout, stderr := run(t, nil)
		if strings.Contains(stdout, "Premium requests this month") || stderr != "" {
			t.Errorf("an account without an allowance:\nstdout %s\nstderr %s", stdout, stderr)
		}
		stdout, _ = run(t, nil, "-o", "json")
		if strings.Contains(stdout, `"allowance"`) {
			t.Errorf("-o json names an allowance the CLI did not report:\n%s", stdout)
		}
	})
}
