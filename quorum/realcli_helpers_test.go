package quorum_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
)

// startRealCLI starts the real Copilot CLI bin in sb (its own network
// namespace), offline with env (clitest.OfflineEnv), built-in MCP servers
// off, and closes it at the test's end. started, when not nil, is given
// the command the CLI runs as: its own process, which a test may kill.
func startRealCLI(ctx context.Context, t testing.TB, sb *clitest.Sandbox, bin string, env []string, started func(*exec.Cmd)) *copilot.Client {
	t.Helper()
	c, err := copilot.Start(ctx, copilot.Options{
		CLIPath: bin, Env: env, WorkingDir: t.TempDir(),
		Command: func(bin string, args ...string) *exec.Cmd {
			cmd := sb.Command(context.Background(), bin, args...)
			if started != nil {
				started(cmd)
			}
			return cmd
		},
		Dial: sb.Dial,
		Args: []string{"--disable-builtin-mcps"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
