package copilot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// Sandbox confines the commands of a session's built-in tools with the
// Copilot CLI's own process sandbox (SessionConfig.Sandbox; the wire's
// sandboxConfig). On Linux the CLI runs each shell command under
// bubblewrap, in its own user, PID, IPC and network namespaces
// (slirp4netns for the network), and refuses the file tools' reads and
// writes outside the paths it allows before any permission request
// (event sandbox.decision, kind access_denied). Client.SandboxHostSupport
// says whether the host can; a host that cannot fails each shell command
// closed.
//
// Measured on CLI 1.0.102 (Linux): the working directory is read-write
// unless OmitWorkingDirectory; /etc is read-only; most other paths are
// absent or land in a throw-away root; the host's /tmp is bound
// read-write unless DeniedPaths names it (commands then get a private,
// empty one); the environment is passed in unless MaskEnv names a
// variable. The zero value is the strictest: no outbound network, no
// bypass.
type Sandbox struct {
	// ReadWritePaths, ReadOnlyPaths and DeniedPaths are absolute paths
	// merged into the CLI's base policy (userPolicy.filesystem). A denied
	// path wins over a granted one that holds it.
	ReadWritePaths []string
	ReadOnlyPaths  []string
	DeniedPaths    []string
	// OmitWorkingDirectory leaves the session's working directory out of
	// the read-write paths (addCurrentWorkingDirectory false).
	OmitWorkingDirectory bool
	// NoDevTools stops the CLI granting read access to the tool folders on
	// PATH and the usual toolchain caches (allowDevToolAccess false);
	// commands then see only what the paths above name.
	NoDevTools bool

	// AllowOutbound lets commands open network connections; without it
	// every connection is blocked and the model is told so. AllowedHosts,
	// when not empty, restricts them to those hosts (exact names, IP
	// addresses, *.example.com for subdomains); BlockedHosts are refused
	// whatever else says. AllowLocalNetwork lets them reach loopback and
	// private-range addresses.
	AllowOutbound     bool
	AllowedHosts      []string
	BlockedHosts      []string
	AllowLocalNetwork bool

	// AllowBypass lets the CLI ask (a permission request with
	// requestSandboxBypass) to run one command outside the sandbox: a
	// detached command, one the network policy stopped, a view of a
	// denied path. Approving such a request runs it unconfined. Off, the
	// CLI offers no bypass.
	AllowBypass bool

	// MaskEnv names environment variables whose values commands must not
	// see: inside the sandbox each holds a random placeholder instead
	// (credentials.envVars). The CLI's proxy would put the real value back
	// only in HTTPS request headers to a variable's injection hosts;
	// MaskEnv gives each the host in MaskedEnvNowhere, which names no
	// host, so the value never leaves. Use MaskEnvFor to allow real hosts.
	MaskEnv []string
	// MaskEnvFor masks variables like MaskEnv, each with the HTTPS hosts
	// (at least one) where the CLI's proxy may put its real value back.
	MaskEnvFor map[string][]string
}

// MaskedEnvNowhere is the injection host MaskEnv gives every variable it
// masks: a name under .invalid, which no resolver answers (RFC 6761), so
// the CLI's proxy never sends a masked value anywhere.
const MaskedEnvNowhere = "masked.invalid"

// ErrSandboxUnsupported is wrapped by the error of
// HostSupport.Err: the host cannot run the CLI's sandbox (on Linux:
// bubblewrap, slirp4netns or iptables missing, or user namespaces off).
var ErrSandboxUnsupported = errors.New("copilot: this host cannot run the Copilot CLI's sandbox")

// LinuxSandboxPackages are the Debian and Ubuntu packages the CLI's
// sandbox needs on Linux: bubblewrap (0.5 or later), slirp4netns for its
// network namespace, iptables (nf_tables) for its network rules.
const LinuxSandboxPackages = "bubblewrap slirp4netns iptables"

// HostSupport is what the CLI says of the host's sandbox
// (sandbox.getHostSupport).
type HostSupport struct {
	// Supported is true when the CLI can confine commands here.
	Supported bool
	// Reason says why not, in the CLI's words; "" when Supported.
	Reason string
	// Missing are the sandbox's features this host lacks, by the CLI's
	// name ("network", "network_filtering", "denied_paths", "shell", …),
	// each with the CLI's reason and remedy.
	Missing []protocol.SandboxHostCapability
}

// Lacks reports whether the host lacks the feature named (a
// protocol.SandboxHostCapabilityName such as "network").
func (h HostSupport) Lacks(feature string) bool {
	return slices.ContainsFunc(h.Missing, func(c protocol.SandboxHostCapability) bool { return string(c.Name) == feature })
}

// Err is nil when the host can run a sandbox with every feature in
// needed (names as in Missing), and otherwise an error wrapping
// ErrSandboxUnsupported that gives the CLI's reasons and, on Linux, the
// packages to install.
func (h HostSupport) Err(needed ...string) error {
	var why []string
	if !h.Supported {
		why = append(why, strings.TrimSpace(h.Reason))
	}
	for _, c := range h.Missing {
		if h.Supported && !slices.Contains(needed, string(c.Name)) {
			continue
		}
		why = append(why, fmt.Sprintf("%s: %s", c.Name, strings.TrimSpace(c.Reason)))
	}
	if h.Supported && len(why) == 0 {
		return nil
	}
	why = slices.DeleteFunc(why, func(s string) bool { return s == "" })
	msg := "the CLI gave no reason"
	if len(why) > 0 {
		msg = strings.Join(why, "; ")
	}
	return fmt.Errorf("%w (%s); on Debian or Ubuntu: apt-get install %s", ErrSandboxUnsupported, msg, LinuxSandboxPackages)
}

// SandboxHostSupport asks the CLI whether this host can run its sandbox,
// and which of its features it lacks, without starting a session. Ask
// before creating a session with SessionConfig.Sandbox: on a host that
// cannot, the CLI fails each shell command closed yet reports the tool
// call as a success.
func (c *Client) SandboxHostSupport(ctx context.Context) (HostSupport, error) {
	r, err := c.RPC().Sandbox.GetHostSupport(ctx)
	if err != nil {
		return HostSupport{}, fmt.Errorf("copilot: asking the CLI whether this host can run its sandbox: %w", err)
	}
	h := HostSupport{Supported: r.Supported, Reason: r.Reason}
	for _, c := range r.Capabilities {
		if !c.Supported {
			h.Missing = append(h.Missing, c)
		}
	}
	return h, nil
}

// validate checks the paths and hosts, naming the field.
func (sb *Sandbox) validate() error {
	if sb == nil {
		return nil
	}
	for _, l := range []struct {
		field string
		paths []string
	}{{"ReadWritePaths", sb.ReadWritePaths}, {"ReadOnlyPaths", sb.ReadOnlyPaths}, {"DeniedPaths", sb.DeniedPaths}} {
		for i, p := range l.paths {
			if !strings.HasPrefix(p, "/") && !(len(p) > 2 && p[1] == ':') {
				return invalid(ErrInvalidSessionConfig, "Sandbox.%s[%d] is %q; give an absolute path", l.field, i, p)
			}
		}
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"AllowedHosts", sb.AllowedHosts}, {"BlockedHosts", sb.BlockedHosts}, {"MaskEnv", sb.MaskEnv}} {
		if i := slices.Index(l.names, ""); i >= 0 {
			return invalid(ErrInvalidSessionConfig, "Sandbox.%s[%d] is empty", l.field, i)
		}
	}
	for name, hosts := range sb.MaskEnvFor {
		if name == "" || len(hosts) == 0 || slices.Contains(hosts, "") || slices.Contains(hosts, "*") {
			return invalid(ErrInvalidSessionConfig, "Sandbox.MaskEnvFor[%q] is %q; name a variable and at least one HTTPS host (not *)", name, hosts)
		}
	}
	return nil
}

// wire is the sandboxConfig the CLI reads: enabled, the user policy, and
// every switch this type holds sent explicitly, so no default of the CLI
// decides for the caller.
func (sb *Sandbox) wire() *protocol.SandboxConfig {
	if sb == nil {
		return nil
	}
	yes, no := true, false
	flag := func(b bool) *bool {
		if b {
			return &yes
		}
		return &no
	}
	w := &protocol.SandboxConfig{
		Enabled:                    true,
		AddCurrentWorkingDirectory: flag(!sb.OmitWorkingDirectory),
		AllowBypass:                flag(sb.AllowBypass),
		AllowDevToolAccess:         flag(!sb.NoDevTools),
		UserPolicy: &protocol.SandboxConfigUserPolicy{
			Filesystem: &protocol.SandboxConfigUserPolicyFilesystem{
				ReadwritePaths: sb.ReadWritePaths,
				ReadonlyPaths:  sb.ReadOnlyPaths,
				DeniedPaths:    sb.DeniedPaths,
			},
			Network: &protocol.SandboxConfigUserPolicyNetwork{
				AllowOutbound:     flag(sb.AllowOutbound),
				AllowLocalNetwork: flag(sb.AllowLocalNetwork),
				AllowedHosts:      sb.AllowedHosts,
				BlockedHosts:      sb.BlockedHosts,
			},
		},
	}
	if len(sb.MaskEnv)+len(sb.MaskEnvFor) > 0 {
		vars := map[string]protocol.SandboxMaskedEnvVar{}
		for _, name := range sb.MaskEnv {
			vars[name] = protocol.SandboxMaskedEnvVar{InjectHosts: []string{MaskedEnvNowhere}}
		}
		for name, hosts := range sb.MaskEnvFor {
			vars[name] = protocol.SandboxMaskedEnvVar{InjectHosts: hosts}
		}
		w.Credentials = &protocol.SandboxCredentialsConfig{EnvVars: vars}
	}
	return w
}
