package quorum

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// turnsBackend is a Backend that notes, for every prompt sent, its phase
// and the options of the conversation it went to.
type turnsBackend struct {
	Backend
	mu     sync.Mutex
	opened int
	turns  []sentTurn
}

type sentTurn struct {
	phase Phase
	conv  int // which Open made the conversation, from 0
	opts  OpenOptions
}

func (b *turnsBackend) Open(ctx context.Context, o OpenOptions) (Conversation, error) {
	conv, err := b.Backend.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opened++
	return &turnsConversation{Conversation: conv, b: b, n: b.opened - 1, o: o}, nil
}

type turnsConversation struct {
	Conversation
	b *turnsBackend
	n int
	o OpenOptions
}

func (c *turnsConversation) Send(ctx context.Context, prompt string, onDelta func(string)) (Reply, error) {
	phase, _, _ := strings.Cut(strings.TrimPrefix(prompt, "[quorum:"), "]")
	c.b.mu.Lock()
	c.b.turns = append(c.b.turns, sentTurn{phase: Phase(phase), conv: c.n, opts: c.o})
	c.b.mu.Unlock()
	return c.Conversation.Send(ctx, prompt, onDelta)
}

// Fix rounds run sandboxed: every turn of the executor, the plan's steps
// and each fix round alike, goes to a session opened with the run's
// sandbox (the workspace read-write, the shared /tmp denied, the tokens
// masked, no bypass), and the CLI session the Copilot backend would make
// of it carries the same sandboxConfig. The review finds a blocking bug
// twice, so two fix rounds run.
func TestAgentFixRoundsRunSandboxed(t *testing.T) {
	fb := &fakeBackend{ws: newFakeWorkspace(), findingRounds: 2}
	b := &turnsBackend{Backend: fb}
	cfg := agentConfig(fb)
	cfg.FixRounds = 2
	cfg.Sandbox = SandboxPolicy{AllowedHosts: []string{"proxy.golang.org"}, MaskEnv: []string{"MY_TOKEN"}}
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(a.Steps); n < 2 || a.Steps[n-1].Round != "fix-2" || a.Steps[n-2].Round != "fix-1" {
		t.Fatalf("steps %+v; want the plan's steps, then fix rounds 1 and 2", a.Steps)
	}
	want, _ := cfg.Sandbox.toolSandbox(fb.ws)
	fixes, executes := 0, 0
	for _, turn := range b.turns {
		if turn.phase != PhaseExecute && turn.phase != PhaseFix {
			if turn.opts.Tools != nil {
				t.Errorf("a turn of phase %s went to a session with tools", turn.phase)
			}
			continue
		}
		if turn.phase == PhaseFix {
			fixes++
		} else {
			executes++
		}
		tools := turn.opts.Tools
		if tools == nil || tools.Sandbox == nil || !reflect.DeepEqual(*tools.Sandbox, *want) {
			t.Fatalf("a turn of phase %s went to a session whose tools are %+v; want the sandbox %+v", turn.phase, tools, want)
		}
		sb := actingConfig(turn.opts).Sandbox
		if sb == nil || !slices.Equal(sb.ReadWritePaths, []string{"/ws"}) || !slices.Contains(sb.DeniedPaths, "/tmp") ||
			!slices.Equal(sb.AllowedHosts, []string{"proxy.golang.org"}) || !sb.AllowOutbound || sb.AllowBypass || !slices.Contains(sb.MaskEnv, "MY_TOKEN") ||
			!slices.Contains(sb.MaskEnv, "COPILOT_SDK_AUTH_TOKEN") {
			t.Fatalf("the CLI session of a turn of phase %s would be confined as %+v", turn.phase, sb)
		}
	}
	if fixes != 2 || executes != len(a.Steps)-2 {
		t.Fatalf("%d execute and %d fix turns seen; want every step's and two fix rounds", executes, fixes)
	}
}
