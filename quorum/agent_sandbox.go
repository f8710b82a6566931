package quorum

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SandboxPolicy says how an agent's executor is confined
// (AgentConfig.Sandbox). The zero value is the default, and the strictest:
// the executor's commands run in the provider's sandbox (for Copilot, the
// CLI's own: bubblewrap on Linux), read-write only in the workspace's
// folder, its git metadata read-only, the host's shared temporary folder
// hidden (commands get a private one), no outbound network, the
// credentials of DefaultMaskedEnv masked, and no request to run a command
// outside the sandbox ever granted.
type SandboxPolicy struct {
	// Unconfined runs the executor's commands with the user's full rights,
	// as a plain shell would (the command's --no-sandbox). It is recorded
	// in AgentResult.Sandbox. The action gate still decides every action.
	Unconfined bool
	// AllowNetwork lets commands open network connections; AllowedHosts,
	// when not empty, allows only those hosts (exact names, IP addresses,
	// *.example.com for subdomains) and implies AllowNetwork.
	AllowNetwork bool
	AllowedHosts []string
	// MaskEnv names environment variables to hide from commands beside
	// DefaultMaskedEnv: inside the sandbox each holds a placeholder.
	MaskEnv []string
}

// DefaultMaskedEnv are the environment variables whose values no command
// of an executor sees: the Copilot CLI's and GitHub's tokens.
var DefaultMaskedEnv = []string{
	"COPILOT_SDK_AUTH_TOKEN", "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN",
	"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
}

// ToolSandbox is the confinement a Backend gives a conversation's tools
// (ToolAccess.Sandbox): absolute paths and switches, settled by Agent.
// A Backend that cannot confine its tools this way must fail Open.
type ToolSandbox struct {
	// ReadWrite, ReadOnly and Denied are absolute paths; a denied path
	// hides what it holds (commands see an empty folder there).
	ReadWrite []string
	ReadOnly  []string
	Denied    []string
	// AllowNetwork and AllowedHosts as in SandboxPolicy.
	AllowNetwork bool
	AllowedHosts []string
	// MaskEnv are the environment variables commands see a placeholder
	// for.
	MaskEnv []string
	// AllowBypass lets the provider offer to run a command outside the
	// sandbox (it then asks, and the action gate denies it). Agent never
	// sets it.
	AllowBypass bool
}

// SandboxChecker is a Backend that can say whether it is able to confine
// an executor on this host. Agent asks it before any model is asked
// (unless SandboxPolicy.Unconfined); Copilot implements it.
type SandboxChecker interface {
	// CheckSandbox returns nil when the backend can confine an executor,
	// and an error wrapping ErrSandboxUnavailable when it cannot.
	CheckSandbox(ctx context.Context) error
}

// ErrSandboxUnavailable: the executor's sandbox cannot run on this host.
// Its message says what to install, or that SandboxPolicy.Unconfined (the
// command's --no-sandbox) runs the executor without one.
var ErrSandboxUnavailable = errors.New("quorum: the executor's sandbox cannot run on this host")

// SandboxInstallHint says what makes the sandbox available on Debian and
// Ubuntu, for ErrSandboxUnavailable's message.
const SandboxInstallHint = "apt-get install bubblewrap slirp4netns iptables"

// CheckSandbox asks b whether it can confine an executor, as Agent does
// before any model is asked: nil when it can, or when b cannot say (it is
// not a SandboxChecker); an error wrapping ErrSandboxUnavailable, with
// what to install, when it cannot. A command calls it to fail before it
// starts anything else.
func CheckSandbox(ctx context.Context, b Backend) error {
	c, ok := b.(SandboxChecker)
	if !ok {
		return nil
	}
	err := c.CheckSandbox(ctx)
	if err == nil || errors.Is(err, ErrSandboxUnavailable) || ctx.Err() != nil {
		return err
	}
	return sandboxUnavailable(err)
}

// sandboxUnavailable wraps why the host cannot confine the executor in
// ErrSandboxUnavailable, with what to do.
func sandboxUnavailable(why error) error {
	return fmt.Errorf("%w: %w; install what it needs (%s) or run the executor unconfined with the explicit opt-out (AgentConfig.Sandbox.Unconfined, quorum agent --no-sandbox)", ErrSandboxUnavailable, why, SandboxInstallHint)
}

// MetadataHolder is a Workspace whose bookkeeping lives in paths its
// commands must not write, beside the ones Writable refuses: for a git
// worktree, the repository's git folder and the worktree's .git file.
// The sandbox makes them read-only.
type MetadataHolder interface {
	MetadataPaths() []string
}

// sharedTempDirs are the host's temporary folders that the Copilot CLI's
// sandbox binds read-write by default (measured: /tmp; the process's own
// TMPDIR when set): denied, commands get a private, empty one.
func sharedTempDirs() []string {
	dirs := []string{"/tmp"}
	if t := filepath.Clean(os.TempDir()); t != "/tmp" {
		dirs = append(dirs, t)
	}
	return dirs
}

// toolSandbox settles the executor's confinement for ws; nil when the
// policy is Unconfined. warnings say where it is weaker than the policy
// wants.
func (p SandboxPolicy) toolSandbox(ws Workspace) (sb *ToolSandbox, warnings []string) {
	if p.Unconfined {
		return nil, nil
	}
	dir := ws.Dir()
	sb = &ToolSandbox{
		ReadWrite:    []string{dir},
		AllowNetwork: p.AllowNetwork || len(p.AllowedHosts) > 0,
		AllowedHosts: slices.Clone(p.AllowedHosts),
		MaskEnv:      uniqueNames(append(slices.Clone(DefaultMaskedEnv), p.MaskEnv...)),
	}
	if m, ok := ws.(MetadataHolder); ok {
		sb.ReadOnly = slices.Clone(m.MetadataPaths())
	}
	for _, t := range sharedTempDirs() {
		if real, err := filepath.EvalSymlinks(t); err == nil {
			t = real
		}
		if pathWithin(t, dir) {
			warnings = append(warnings, fmt.Sprintf("the workspace %s is inside the host's temporary folder %s, which therefore stays shared with the executor's commands; put worktrees outside it", dir, t))
			continue
		}
		sb.Denied = append(sb.Denied, t)
	}
	return sb, warnings
}

// pathWithin reports whether path is dir or below it.
func pathWithin(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func uniqueNames(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
