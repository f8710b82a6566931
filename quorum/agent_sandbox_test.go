package quorum

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot"
)

// checkerBackend is a fakeBackend that answers the host check.
type checkerBackend struct {
	*fakeBackend
	err    error
	checks int
}

func (c *checkerBackend) CheckSandbox(context.Context) error { c.checks++; return c.err }

// A request to run outside the sandbox is denied whatever the shell mode,
// auto included, recorded as the sandbox rule's denial with its reason
// told to the model; the same action without the mark goes by the mode.
func TestAgentGateDeniesSandboxBypass(t *testing.T) {
	bypass := Action{Kind: copilot.PermissionKindShell, Command: "go test ./...", SandboxBypass: true, SandboxBypassReason: "the network policy stopped it"}
	read := Action{Kind: copilot.PermissionKindRead, Paths: []string{"/ws/README.md"}, SandboxBypass: true}
	for _, mode := range []ShellMode{ShellAuto, ShellQuorum, ShellAsk, ShellNever} {
		t.Run(string(mode), func(t *testing.T) {
			b := &fakeBackend{ws: newFakeWorkspace(), shellApprove: map[string]bool{"m2": true, "m3": true}, actions: []Action{bypass, read}}
			cfg := agentConfig(b)
			cfg.Shell = mode
			cfg.AskShell = func(context.Context, Action) (ActionDecision, error) {
				t.Error("the user was asked about a bypass")
				return ActionDecision{Allow: true}, nil
			}
			a, err := Agent(context.Background(), b, "task", cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Actions) < 2 {
				t.Fatalf("%d actions", len(a.Actions))
			}
			for _, rec := range a.Actions {
				if rec.Allow || rec.By != BySandbox || !strings.Contains(rec.Reason, "outside the sandbox") {
					t.Fatalf("%+v: want a denial by the sandbox rule", rec)
				}
			}
		})
	}
}

// The default confinement: the workspace read-write, its metadata
// read-only, the shared temporary folder denied, no network, the tokens
// masked; the opt-out is recorded as such.
func TestAgentSandboxPolicy(t *testing.T) {
	b := &checkerBackend{fakeBackend: &fakeBackend{ws: newFakeWorkspace()}}
	cfg := agentConfig(b.fakeBackend)
	cfg.Sandbox.MaskEnv = []string{"MY_TOKEN"}
	a, err := Agent(context.Background(), b, "task", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.checks != 1 {
		t.Fatalf("the host was checked %d times, want once", b.checks)
	}
	var sb *ToolSandbox
	for _, o := range b.opened {
		if o.Tools != nil {
			sb = o.Tools.Sandbox
		}
	}
	if sb == nil || !slices.Equal(sb.ReadWrite, []string{"/ws"}) || !slices.Contains(sb.Denied, "/tmp") || sb.AllowNetwork || sb.AllowBypass {
		t.Fatalf("the executor's sandbox %+v", sb)
	}
	for _, name := range []string{"COPILOT_SDK_AUTH_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN", "MY_TOKEN"} {
		if !slices.Contains(sb.MaskEnv, name) {
			t.Errorf("%s is not masked", name)
		}
	}
	if s := a.Sandbox; s == nil || !s.Enabled || s.Unconfined || s.Network != NetworkBlocked || !slices.Contains(s.MaskedEnv, "MY_TOKEN") {
		t.Fatalf("the result's sandbox %+v", a.Sandbox)
	}

	b = &checkerBackend{fakeBackend: &fakeBackend{ws: newFakeWorkspace()}, err: errors.New("no")}
	cfg = agentConfig(b.fakeBackend)
	cfg.Sandbox = SandboxPolicy{Unconfined: true}
	a, err = Agent(context.Background(), b, "task", cfg)
	if err != nil || b.checks != 0 {
		t.Fatalf("unconfined: %v, %d host checks; want no check", err, b.checks)
	}
	for _, o := range b.opened {
		if o.Tools != nil && o.Tools.Sandbox != nil {
			t.Fatalf("unconfined, the executor got a sandbox %+v", o.Tools.Sandbox)
		}
	}
	if s := a.Sandbox; s == nil || s.Enabled || !s.Unconfined {
		t.Fatalf("unconfined, the result's sandbox %+v", s)
	}
}

// A host that cannot confine stops the run before any model is asked,
// with the install hint and the opt-out in the error.
func TestAgentSandboxUnavailable(t *testing.T) {
	b := &checkerBackend{fakeBackend: &fakeBackend{ws: newFakeWorkspace()}, err: errors.New("bubblewrap is missing")}
	_, err := Agent(context.Background(), b, "task", agentConfig(b.fakeBackend))
	if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), SandboxInstallHint) || !strings.Contains(err.Error(), "bubblewrap is missing") {
		t.Fatalf("Agent = %v", err)
	}
	if len(b.opened) > 0 {
		t.Fatalf("%d conversations opened before the check failed", len(b.opened))
	}
}

// A workspace inside the host's temporary folder keeps it shared, and the
// result says so.
func TestSandboxPolicyWorkspaceInTemp(t *testing.T) {
	sb, warnings := SandboxPolicy{}.toolSandbox(dirWorkspace{"/tmp/x/wt"})
	if slices.Contains(sb.Denied, "/tmp") || len(warnings) == 0 || !strings.Contains(warnings[0], "/tmp") {
		t.Fatalf("denied %v, warnings %v", sb.Denied, warnings)
	}
}

type dirWorkspace struct{ dir string }

func (w dirWorkspace) Dir() string                                        { return w.dir }
func (dirWorkspace) Branch() string                                       { return "b" }
func (dirWorkspace) Base() string                                         { return "c" }
func (dirWorkspace) Contains(string) bool                                 { return true }
func (dirWorkspace) Writable(string) bool                                 { return true }
func (dirWorkspace) Commit(context.Context, string) (string, bool, error) { return "", false, nil }
func (dirWorkspace) Diff(context.Context) (string, error)                 { return "", nil }
