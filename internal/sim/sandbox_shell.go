package sim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The CLI's sandbox as a shell command meets it, measured on CLI 1.0.102
// (Linux, bubblewrap), and played here for the commands the simulator
// plays:
//
//   - A detached command (mode "async", detach true) cannot be confined.
//     Without allowBypass it fails before any permission request
//     (detachedRefused), with no sandbox.decision. With allowBypass its
//     shell permission request is a bypass request instead
//     (requestSandboxBypass and detachedBypassReason, in the prompt too),
//     answered by a bypass_decided record; approved, the CLI runs it
//     unconfined (enforcement_state inactive) in the detached background.
//     The simulator starts nothing: the model reads only that it started.
//   - Inside the sandbox a denied folder is an empty one (ls lists
//     nothing, a file under it is not there) and a denied file is there
//     but unreadable (cat: Permission denied). The CLI reads a command's
//     output for such refusals: "Permission denied" adds an access_denied
//     record (confidence output_classified) and a line telling the model
//     the sandbox may be the cause.
//   - A write the sandbox stops or diverts (a read-only path: "Read-only
//     file system"; a denied folder: written to a throw-away copy) shows
//     only in the command's own output; the simulator plays no writes.
//   - A connection the network policy stops adds an access_denied record
//     (network_outbound) and a line for the model, or with allowBypass a
//     request to re-run the command unconfined; the simulator plays no
//     command that connects anywhere.
//   - Every built-in tool's tool.execution_complete says sandboxed: true.

// detachedRefused is the failure of a detached command in a sandbox that
// allows no bypass.
const detachedRefused = "Detached commands cannot run inside the sandbox. Run it without detach so the sandbox can be enforced."

// detachedBypassReason is why a detached command asks to bypass the
// sandbox.
const detachedBypassReason = "This command detaches, and the sandbox cannot enforce a detached process. Approving runs it outside the sandbox; declining does not run it."

// sandboxMayHaveFailed is the line the model reads after the output of a
// command whose output shows a refusal the sandbox may have caused.
const sandboxMayHaveFailed = "<this failure may be caused by the active sandbox policy. Do not attempt workarounds. If you suspect the sandbox blocked this, ask the user to review their sandbox policy.>"

// sandboxed reports whether sb confines the session's built-in tools.
func sandboxed(sb *protocol.SandboxConfig) bool { return sb != nil && sb.Enabled }

// bypassAllowed reports whether sb lets the CLI ask to bypass it.
func bypassAllowed(sb *protocol.SandboxConfig) bool {
	return sb.AllowBypass != nil && *sb.AllowBypass
}

// detached reports whether the call asks for a detached command.
func (a bashArgs) detached() bool { return a.Mode == "async" && a.Detach }

// asDetachedBypass turns a command's shell permission request and prompt
// into the bypass request CLI 1.0.102 sends for a detached command, and
// its run into the answer of one started outside the sandbox.
func (p builtinPlan) asDetachedBypass(s *session) builtinPlan {
	if q, ok := p.request.(protocol.PermissionRequestShell); ok {
		q.RequestSandboxBypass, q.RequestSandboxBypassReason = ptr(true), detachedBypassReason
		p.request = q
	}
	if q, ok := p.prompt.(protocol.PermissionPromptRequestCommands); ok {
		q.RequestSandboxBypass, q.RequestSandboxBypassReason = ptr(true), detachedBypassReason
		p.prompt = q
	}
	p.run = func(ctx context.Context) (builtinOutput, *toolFailure) {
		text := "<command started in detached background with shellId: " + s.nextShellID() + ">"
		return builtinOutput{text: text, done: completion{detailed: text}}, nil
	}
	return p
}

// shellBypassDecided is the record of a command's bypass request answered.
func shellBypassDecided(callID string, approved bool) protocol.SandboxDecisionData {
	outcome := "declined"
	if approved {
		outcome = "approved"
	}
	d := sandboxDecision("bypass_decided", "bypass", outcome, callID)
	d.EnforcementPoint, d.Source = protocol.SandboxEnforcementPointShell, protocol.SandboxBypassSourceUserPrompted
	return d
}

// unconfinedCommand is the record of a command run outside the sandbox.
func unconfinedCommand(callID string) protocol.SandboxDecisionData {
	d := sandboxDecision("enforcement_state", "process", "inactive", callID)
	d.Backend, d.EnforcementPoint = protocol.SandboxBackendUnsupported, protocol.SandboxEnforcementPointShell
	return d
}

// readRefusedInOutput is the record of a refusal the CLI read in a
// confined command's output.
func readRefusedInOutput(callID string) protocol.SandboxDecisionData {
	d := sandboxDecision("access_denied", "filesystem", "denied", callID)
	d.EnforcementPoint = protocol.SandboxEnforcementPointShell
	d.DenialClass = jsonString("filesystem_read")
	d.Attestation = jsonString("spawn_succeeded")
	d.Confidence = ptr(protocol.SandboxDenialConfidenceOutputClassified)
	return d
}

// refusedInOutput reports whether a confined command's output shows a
// refusal the CLI puts down to the sandbox.
func refusedInOutput(output string) bool { return strings.Contains(output, ": Permission denied") }

// sandboxView is how a path of the folder looks to a confined command.
type sandboxView int

const (
	seenAsIs     sandboxView = iota
	seenEmptyDir             // a denied folder
	seenAbsent               // under a denied folder
	seenLocked               // a denied file: there, unreadable
)

// sandboxDenied is the session's denied paths with their symbolic links
// resolved, for folder.denied; nil when no sandbox confines its commands.
func sandboxDenied(sb *protocol.SandboxConfig) []string {
	if !sandboxed(sb) || sb.UserPolicy == nil || sb.UserPolicy.Filesystem == nil {
		return nil
	}
	var out []string
	for _, d := range sb.UserPolicy.Filesystem.DeniedPaths {
		if filepath.IsAbs(d) {
			out = append(out, realPath(d))
		}
	}
	return out
}

// seen is how t (inside f) looks to a confined command.
func (f folder) seen(t target) sandboxView {
	p := filepath.Join(f.real, t.rel)
	for _, d := range f.denied {
		if !underAny([]string{d}, p) {
			continue
		}
		st, err := os.Stat(d)
		switch {
		case err != nil:
			return seenAbsent
		case p != d:
			return seenAbsent
		case st.IsDir():
			return seenEmptyDir
		default:
			return seenLocked
		}
	}
	return seenAsIs
}

// bashOf reads a bash call's arguments (checked before).
func bashOf(args json.RawMessage) bashArgs {
	var a bashArgs
	json.Unmarshal(args, &a)
	return a
}

// runDetached plays a detached command's call p in a sandboxed session:
// refused before any permission request, or asked as a bypass request
// and, approved, reported started outside the sandbox.
func (s *session) runDetached(t *turn, cfg settings, req protocol.AssistantMessageToolRequest, pre preToolUseOutput, res *ToolCallResult, done *completion, p builtinPlan) (*toolFailure, error) {
	if !bypassAllowed(cfg.sandbox) {
		return failed(detachedRefused, ""), nil
	}
	p = p.asDetachedBypass(s)
	fail, err := s.permit(t, cfg, req, pre, res.Arguments, false, true, p.request, p.prompt)
	if err != nil {
		return nil, err
	}
	if err := s.emit(t, protocol.EventSandboxDecision, shellBypassDecided(req.ToolCallID, fail == nil)); err != nil {
		return nil, err
	}
	if fail != nil {
		return fail, nil
	}
	if err := s.emit(t, protocol.EventSandboxDecision, unconfinedCommand(req.ToolCallID)); err != nil {
		return nil, err
	}
	out, _ := p.run(t.ctx)
	res.Text, *done = out.text, out.done
	return nil, nil
}
