package quorum_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// BenchmarkRealCLIShellSandbox is the sandbox's cost for one shell
// command through the real Copilot CLI, offline: turns in which the model
// runs `true` once, in a session confined as an executor's is and in one
// without the sandbox. It reports each turn's time and their ratio; the
// difference is what confining one command costs (bubblewrap's spawn).
func BenchmarkRealCLIShellSandbox(b *testing.B) {
	bin, err := clitest.Binary()
	if err != nil {
		b.Fatalf("this benchmark needs the real Copilot CLI: %v", err)
	}
	model := func(req modelapi.Request) modelapi.Reply {
		if sinceUser(req) == 0 {
			return modelapi.ToolCall("bash", argsJSON(map[string]string{"command": "true", "description": "nothing"}))
		}
		return modelapi.Text("done")
	}
	sb := clitest.NewSandbox(b)
	api := sb.StartModelAPI(b, modelapi.Config{Models: map[string]modelapi.Responder{"m": model}})
	ctx := context.Background()
	c, err := copilot.Start(ctx, copilot.Options{
		CLIPath: bin, Env: clitest.OfflineEnv(b, api.URL()), WorkingDir: b.TempDir(),
		Command: func(bin string, args ...string) *exec.Cmd { return sb.Command(context.Background(), bin, args...) },
		Dial:    sb.Dial, Args: []string{"--disable-builtin-mcps"},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	dir, err := os.MkdirTemp("/var/tmp", "quorum-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	open := func(sandbox *copilot.Sandbox) *copilot.Session {
		s, err := c.NewSession(ctx, copilot.SessionConfig{Model: "m", WorkingDirectory: dir, BuiltinTools: []string{"bash"}, Sandbox: sandbox,
			Permissions: func(context.Context, copilot.PermissionRequest) (copilot.PermissionDecision, error) {
				return copilot.ApproveOnce(), nil
			}})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	confined := open(&copilot.Sandbox{ReadWritePaths: []string{dir}, DeniedPaths: []string{"/tmp"}, MaskEnv: []string{"COPILOT_SDK_AUTH_TOKEN"}})
	plain := open(nil)
	defer confined.Delete(ctx)
	defer plain.Delete(ctx)
	turn := func(s *copilot.Session) time.Duration {
		start := time.Now()
		if _, err := s.Stream(ctx, "run it", copilot.TurnHandlers{}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	turn(confined) // the first command of a session sets the sandbox up
	turn(plain)
	var withSB, without time.Duration
	b.ResetTimer()
	for b.Loop() {
		withSB += turn(confined)
		without += turn(plain)
	}
	n := float64(b.N)
	b.ReportMetric(float64(withSB.Microseconds())/1000/n, "ms/sandboxed-turn")
	b.ReportMetric(float64(without.Microseconds())/1000/n, "ms/plain-turn")
	b.ReportMetric(float64(withSB)/float64(without), "sandboxed/plain")
	b.ReportMetric(float64((withSB-without).Microseconds())/1000/n, "ms-added/command")
}
