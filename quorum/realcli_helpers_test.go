package quorum_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
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

// firstUser is a model request's own prompt: its first user message (the
// turn's prompt, before any tool result).
func firstUser(req modelapi.Request) string {
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			return msg.Content
		}
	}
	return req.UserText
}

// promptPhase is the quorum phase a model request belongs to, read from
// the [quorum:PHASE] marker of its prompt; "" for none.
func promptPhase(req modelapi.Request) string {
	text := firstUser(req)
	if i := strings.Index(text, "[quorum:"); i >= 0 {
		p, _, _ := strings.Cut(text[i+len("[quorum:"):], "]")
		return p
	}
	return ""
}

// agentModels are the two scripted models of the agent's real-CLI runs.
// The planner proposes plan (and revises to it), scores the critic's plan
// 4, and carries out steps and fixes with executor; the critic proposes a
// plan that does nothing, scores the planner's 9, approves it, and finds
// nothing in the change. plannerMore and criticMore answer other phases
// (a shell vote, the judging) with the text they map it to.
func agentModels(plan string, executor modelapi.Responder, plannerMore, criticMore map[string]string) map[string]modelapi.Responder {
	return map[string]modelapi.Responder{
		"planner": func(req modelapi.Request) modelapi.Reply {
			switch p := promptPhase(req); p {
			case "propose", "revise":
				return modelapi.Text(plan)
			case "vote":
				return modelapi.Text(`{"score": 4, "reasoning": "thin"}`)
			case "execute", "fix":
				return executor(req)
			default:
				if text, ok := plannerMore[p]; ok {
					return modelapi.Text(text)
				}
			}
			return modelapi.Text("unexpected prompt")
		},
		"critic": func(req modelapi.Request) modelapi.Reply {
			switch p := promptPhase(req); p {
			case "propose":
				return modelapi.Text(`{"title":"Wait","steps":[{"goal":"do nothing","files":[],"check":"none"}],"risks":[]}`)
			case "vote":
				return modelapi.Text(`{"score": 9, "reasoning": "clear"}`)
			case "plan-review":
				return modelapi.Text(`{"approve": true, "objections": []}`)
			case "inspect":
				return modelapi.Text(`{"findings": []}`)
			default:
				if text, ok := criticMore[p]; ok {
					return modelapi.Text(text)
				}
			}
			return modelapi.Text("unexpected prompt")
		},
	}
}
