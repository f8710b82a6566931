package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// quorum agent on a host where the real Copilot CLI cannot sandbox its
// executor (bubblewrap and slirp4netns hidden from its PATH): exit 2
// before any model is asked, saying what to install and that --no-sandbox
// runs unconfined; nothing of the repository changes.
func TestRealCLIAgentWithoutSandboxExits2(t *testing.T) {
	cliBin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the real-CLI tests need the Copilot CLI: %v", err)
	}
	bin := quorumBinary(t)
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		"alpha": func(modelapi.Request) modelapi.Reply { return modelapi.Text("{}") },
		"beta":  func(modelapi.Request) modelapi.Reply { return modelapi.Text("{}") },
	}})
	// A PATH with git and a shell only: what the agent's repository check
	// needs, and none of the sandbox's prerequisites.
	env := clitest.WithoutSandboxTools(t, append(clitest.OfflineEnv(t, api.URL()), "QUORUM_CLI_ARGS=--disable-builtin-mcps"))
	repo := gittest.NewRepo(t, map[string]string{"README": "a repository\n"})
	head := gittest.Git(t, repo, "rev-parse", "HEAD")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := sb.Command(ctx, bin, "agent", "--yes", "-m", "alpha", "-m", "beta", "--cli-path", cliBin, "Tidy up")
	cmd.Env, cmd.Dir = env, repo
	r := runBinary(t, cmd)
	if r.code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want %d:\n%s\n%s", r.code, cmdutil.ExitUsage, r.stderr, r.stdout)
	}
	for _, want := range []string{"apt-get install bubblewrap slirp4netns iptables", "--no-sandbox"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("%d model requests before the host check failed", n)
	}
	if got := gittest.Git(t, repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved: %s → %s", head, got)
	}
	if branches := gittest.Git(t, repo, "branch", "--list", "quorum/*"); branches != "" {
		t.Errorf("a branch was made: %s", branches)
	}
}
