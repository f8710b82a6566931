package copilot

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// A Sandbox goes out as the sandboxConfig session.create carries, every
// switch explicit (so no default of the CLI decides), with
// sandboxConfigSource "session_flag"; the params pass the CLI's schemas.
func TestSandboxWire(t *testing.T) {
	schemas := schemacheck.Default(t)
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	for _, tc := range []struct {
		name string
		sb   *Sandbox
		want string // sandboxConfig; "" when none is sent
	}{
		{"nil leaves commands unconfined", nil, ""},
		{"zero value is the strictest", &Sandbox{},
			`{"enabled":true,"addCurrentWorkingDirectory":true,"allowBypass":false,"allowDevToolAccess":true,` +
				`"userPolicy":{"filesystem":{},"network":{"allowOutbound":false,"allowLocalNetwork":false}}}`},
		{"every field", &Sandbox{
			ReadWritePaths: []string{"/w"}, ReadOnlyPaths: []string{"/r", "/r2"}, DeniedPaths: []string{"/tmp"},
			OmitWorkingDirectory: true, NoDevTools: true,
			AllowOutbound: true, AllowedHosts: []string{"*.example.com", "10.0.0.1"}, BlockedHosts: []string{"bad.example.com"}, AllowLocalNetwork: true,
			AllowBypass: true,
		},
			`{"enabled":true,"addCurrentWorkingDirectory":false,"allowBypass":true,"allowDevToolAccess":false,` +
				`"userPolicy":{"filesystem":{"readwritePaths":["/w"],"readonlyPaths":["/r","/r2"],"deniedPaths":["/tmp"]},` +
				`"network":{"allowOutbound":true,"allowLocalNetwork":true,"allowedHosts":["*.example.com","10.0.0.1"],"blockedHosts":["bad.example.com"]}}}`},
		{"MaskEnv injects nowhere, MaskEnvFor where told", &Sandbox{
			MaskEnv: []string{"GH_TOKEN", "COPILOT_SDK_AUTH_TOKEN"}, MaskEnvFor: map[string][]string{"NPM_TOKEN": {"registry.npmjs.org"}},
		},
			`{"enabled":true,"addCurrentWorkingDirectory":true,"allowBypass":false,"allowDevToolAccess":true,` +
				`"userPolicy":{"filesystem":{},"network":{"allowOutbound":false,"allowLocalNetwork":false}},` +
				`"credentials":{"envVars":{"GH_TOKEN":{"injectHosts":["masked.invalid"]},"COPILOT_SDK_AUTH_TOKEN":{"injectHosts":["masked.invalid"]},` +
				`"NPM_TOKEN":{"injectHosts":["registry.npmjs.org"]}}}}`},
		{"MaskEnvFor wins over MaskEnv for the same name", &Sandbox{
			MaskEnv: []string{"GH_TOKEN"}, MaskEnvFor: map[string][]string{"GH_TOKEN": {"api.github.com", "github.com"}},
		},
			`{"enabled":true,"addCurrentWorkingDirectory":true,"allowBypass":false,"allowDevToolAccess":true,` +
				`"userPolicy":{"filesystem":{},"network":{"allowOutbound":false,"allowLocalNetwork":false}},` +
				`"credentials":{"envVars":{"GH_TOKEN":{"injectHosts":["api.github.com","github.com"]}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields := createParams(t, c, SessionConfig{Model: "m", Sandbox: tc.sb})
			if tc.want == "" {
				for _, f := range []string{"sandboxConfig", "sandboxConfigSource"} {
					if v, ok := fields[f]; ok {
						t.Errorf("%s = %s sent without a Sandbox", f, v)
					}
				}
				return
			}
			if !jsonEqual(t, fields["sandboxConfig"], tc.want) {
				t.Errorf("sandboxConfig = %s\nwant            %s", fields["sandboxConfig"], tc.want)
			}
			if !jsonEqual(t, fields["sandboxConfigSource"], `"session_flag"`) {
				t.Errorf("sandboxConfigSource = %s, want \"session_flag\"", fields["sandboxConfigSource"])
			}
			// session.create is not in the CLI's schemas; the same two
			// fields of session.options.update are.
			raw, err := json.Marshal(map[string]json.RawMessage{"sessionId": json.RawMessage(`"s"`),
				"sandboxConfig": fields["sandboxConfig"], "sandboxConfigSource": fields["sandboxConfigSource"]})
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas.Params(protocol.MethodSessionOptionsUpdate, raw); err != nil {
				t.Errorf("sandboxConfig against the CLI's SandboxConfig schema: %v", err)
			}
		})
	}
}

// Bad paths, hosts and variables are refused before anything is sent,
// with an error wrapping ErrInvalidSessionConfig that names the field and
// the entry; good ones pass.
func TestSandboxValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		sb   Sandbox
		want string // part of the error; "" for none
	}{
		{"absolute paths", Sandbox{ReadWritePaths: []string{"/w"}, ReadOnlyPaths: []string{"/r"}, DeniedPaths: []string{"/d"}}, ""},
		{"a Windows drive path", Sandbox{ReadWritePaths: []string{`C:\work`}}, ""},
		{"hosts and variables", Sandbox{AllowedHosts: []string{"*.example.com"}, BlockedHosts: []string{"x"}, MaskEnv: []string{"T"},
			MaskEnvFor: map[string][]string{"U": {"api.example.com"}}}, ""},
		{"relative read-write path", Sandbox{ReadWritePaths: []string{"/ok", "work"}}, `Sandbox.ReadWritePaths[1] is "work"; give an absolute path`},
		{"relative read-only path", Sandbox{ReadOnlyPaths: []string{"./r"}}, `Sandbox.ReadOnlyPaths[0] is "./r"; give an absolute path`},
		{"relative denied path", Sandbox{DeniedPaths: []string{"~/.ssh"}}, `Sandbox.DeniedPaths[0] is "~/.ssh"; give an absolute path`},
		{"empty path", Sandbox{DeniedPaths: []string{""}}, `Sandbox.DeniedPaths[0] is ""; give an absolute path`},
		{"a drive letter alone", Sandbox{ReadWritePaths: []string{"C:"}}, `Sandbox.ReadWritePaths[0] is "C:"`},
		{"empty allowed host", Sandbox{AllowedHosts: []string{"a", ""}}, "Sandbox.AllowedHosts[1] is empty"},
		{"empty blocked host", Sandbox{BlockedHosts: []string{""}}, "Sandbox.BlockedHosts[0] is empty"},
		{"empty masked variable", Sandbox{MaskEnv: []string{""}}, "Sandbox.MaskEnv[0] is empty"},
		{"MaskEnvFor without a host", Sandbox{MaskEnvFor: map[string][]string{"T": nil}}, `Sandbox.MaskEnvFor["T"] is []; name a variable and at least one HTTPS host (not *)`},
		{"MaskEnvFor with an empty host", Sandbox{MaskEnvFor: map[string][]string{"T": {"a", ""}}}, `Sandbox.MaskEnvFor["T"]`},
		{"MaskEnvFor with every host", Sandbox{MaskEnvFor: map[string][]string{"T": {"*"}}}, `Sandbox.MaskEnvFor["T"] is ["*"]`},
		{"MaskEnvFor without a name", Sandbox{MaskEnvFor: map[string][]string{"": {"a"}}}, `Sandbox.MaskEnvFor[""]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := tc.sb
			err := SessionConfig{Model: "m", Sandbox: &sb}.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidSessionConfig) {
				t.Fatalf("Validate() = %v, want an error wrapping ErrInvalidSessionConfig", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %q, want it to say %q", err, tc.want)
			}
		})
	}
}

// A session with an invalid Sandbox is not created: the CLI is asked
// nothing.
func TestNewSessionRefusesAnInvalidSandbox(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	_, err := c.NewSession(testutil.Context(t, hangGuard), SessionConfig{Model: "m", Sandbox: &Sandbox{ReadWritePaths: []string{"rel"}}})
	if !errors.Is(err, ErrInvalidSessionConfig) {
		t.Fatalf("NewSession = %v, want ErrInvalidSessionConfig", err)
	}
	if n := srv.Calls(protocol.MethodSessionCreate); n != 0 {
		t.Errorf("session.create sent %d times", n)
	}
}

// HostSupport.Err: nil when the host can run every feature asked for;
// otherwise an error wrapping ErrSandboxUnsupported with the CLI's
// reasons and the Linux packages to install.
func TestHostSupportErr(t *testing.T) {
	network := protocol.SandboxHostCapability{Name: "network", Reason: "slirp4netns not found on PATH "}
	filtering := protocol.SandboxHostCapability{Name: "network_filtering", Reason: "iptables not found"}
	const install = "; on Debian or Ubuntu: apt-get install bubblewrap slirp4netns iptables"
	for _, tc := range []struct {
		name   string
		h      HostSupport
		needed []string
		want   string // the whole message; "" for nil
	}{
		{"supported, nothing missing", HostSupport{Supported: true}, nil, ""},
		{"supported, a feature missing that is not needed", HostSupport{Supported: true, Missing: []protocol.SandboxHostCapability{network}}, []string{"shell"}, ""},
		{"supported, a needed feature missing", HostSupport{Supported: true, Missing: []protocol.SandboxHostCapability{network, filtering}}, []string{"network"},
			"copilot: this host cannot run the Copilot CLI's sandbox (network: slirp4netns not found on PATH)" + install},
		{"supported, two needed features missing", HostSupport{Supported: true, Missing: []protocol.SandboxHostCapability{network, filtering}}, []string{"network_filtering", "network"},
			"copilot: this host cannot run the Copilot CLI's sandbox (network: slirp4netns not found on PATH; network_filtering: iptables not found)" + install},
		{"unsupported, with the CLI's reason and every missing feature", HostSupport{Reason: " bubblewrap (bwrap) not found ", Missing: []protocol.SandboxHostCapability{network}}, nil,
			"copilot: this host cannot run the Copilot CLI's sandbox (bubblewrap (bwrap) not found; network: slirp4netns not found on PATH)" + install},
		{"unsupported without a reason", HostSupport{}, nil,
			"copilot: this host cannot run the Copilot CLI's sandbox (the CLI gave no reason)" + install},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.h.Err(tc.needed...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrSandboxUnsupported) {
				t.Fatalf("Err() = %v, want an error wrapping ErrSandboxUnsupported", err)
			}
			if err.Error() != tc.want {
				t.Errorf("Err() = %q\nwant    %q", err, tc.want)
			}
		})
	}
}

func TestHostSupportLacks(t *testing.T) {
	h := HostSupport{Supported: true, Missing: []protocol.SandboxHostCapability{{Name: "network"}}}
	if !h.Lacks("network") {
		t.Error(`Lacks("network") = false for a host missing it`)
	}
	if h.Lacks("shell") || h.Lacks("") {
		t.Error("Lacks reports a feature the host has")
	}
}

// SandboxHostSupport asks the CLI (here the simulator, which plays a host
// that can run every feature) and keeps only the missing features.
func TestSandboxHostSupport(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	h, err := c.SandboxHostSupport(testutil.Context(t, hangGuard))
	if err != nil {
		t.Fatal(err)
	}
	if !h.Supported || h.Reason != "" || len(h.Missing) != 0 {
		t.Errorf("SandboxHostSupport = %+v, want supported with nothing missing", h)
	}
	if err := h.Err("network", "network_filtering", "denied_paths", "shell"); err != nil {
		t.Errorf("Err = %v", err)
	}
}
