package copilot

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// PermissionRequest is what a PermissionPolicy decides: the CLI asking
// whether an action may go ahead (a client tool call, a shell command, a
// file read or write, a fetch), taken from its permission.requested event.
// Its Kind is one of the PermissionKind… constants, or a kind newer than
// this package; its Request holds the schema's union of every kind's
// fields, and its Decode method the fields of its kind alone (a
// *protocol.PermissionRequestShell for PermissionKindShell, and so on). It
// is the one type for it at every level: [session.PermissionRequest], which
// a raw channel's reader gets from [session.Channel.Next].
type PermissionRequest = session.PermissionRequest

// The kinds of permission request the pinned CLI's schema defines
// (PermissionRequest.Kind). The offline conformance tests see shell, read,
// write, url and custom-tool from CLI 1.0.102; the others need an MCP
// server, extensions, workflows or the memory feature.
const (
	PermissionKindShell                     = "shell"
	PermissionKindWrite                     = "write"
	PermissionKindRead                      = "read"
	PermissionKindURL                       = "url"
	PermissionKindMCP                       = "mcp"
	PermissionKindMemory                    = "memory"
	PermissionKindCustomTool                = "custom-tool"
	PermissionKindHook                      = "hook"
	PermissionKindExtensionManagement       = "extension-management"
	PermissionKindExtensionPermissionAccess = "extension-permission-access"
	PermissionKindExtensionEnvAccess        = "extension-env-access"
	PermissionKindWorkflow                  = "workflow"
)

// PermissionDecision is a policy's answer, as the CLI takes it
// (session.permissions.handlePendingPermissionRequest's result). Build one
// with ApproveOnce, ApproveForSession, ApproveForLocation,
// ApproveReadOnlyForSession, ApprovePermanently, Reject or
// UserNotAvailable; any other kind the schema allows may be set by hand.
type PermissionDecision = protocol.PermissionDecision

// The kinds of decision a client sends (PermissionDecision.Kind).
const (
	DecisionApproveOnce               = "approve-once"
	DecisionApproveForSession         = "approve-for-session"
	DecisionApproveReadOnlyForSession = "approve-read-only-for-session"
	DecisionApproveForLocation        = "approve-for-location"
	DecisionApprovePermanently        = "approve-permanently"
	DecisionReject                    = "reject"
	DecisionUserNotAvailable          = "user-not-available"
	// DecisionNoResult is never sent: it leaves the request to another
	// client of the session (NoResult).
	DecisionNoResult = "no-result"
)

// PermissionPolicy decides permission requests. Its decision is sent to
// the CLI as it is, as soon as it returns, except that an error, a panic
// or a decision without a Kind is logged and answered UserNotAvailable:
// the tool fails, the model is told that permission could not be had, and
// the turn goes on (as the official SDK does); NoResult sends nothing.
//
// A policy runs on a goroutine of its own for each request, so that it may
// wait (for a person, for another request of the same turn) without
// holding up the session: it may be called for several requests of one
// session at once (at most 16; past them the session waits for one to
// return), and must be safe for that. Its ctx ends with the turn (a
// request between turns: with the session), and with the session — its
// connection lost, its client closed (context.Cause says why) — and it
// should return then.
type PermissionPolicy func(ctx context.Context, req PermissionRequest) (PermissionDecision, error)

// DenyAll rejects every request, without feedback. It is the default
// policy. On CLI 1.0.102 a rejection without feedback ends the turn (see
// Reject), so under DenyAll a turn ends at its first permission request,
// with an error wrapping ErrPermissionDenied (and ErrAborted) that names
// what was asked: the tool is not run, and a later tool call of that turn
// is never asked about. Choose ApproveAll, your own policy, or mark the
// tools SkipPermission for a turn to use tools.
func DenyAll(context.Context, PermissionRequest) (PermissionDecision, error) {
	return Reject(""), nil
}

// ApproveAll approves every request, once each. Choose it explicitly, and
// only for sessions whose tools you trust the model with.
func ApproveAll(context.Context, PermissionRequest) (PermissionDecision, error) {
	return ApproveOnce(), nil
}

// ApproveOnce approves this request only; the next like it is asked again.
func ApproveOnce() PermissionDecision { return PermissionDecision{Kind: DecisionApproveOnce} }

// Reject refuses the request. On CLI 1.0.102 a rejection without
// feedback ends the turn (Stream returns an error wrapping
// ErrPermissionDenied); with feedback, the tool fails with it ("The user
// rejected this tool call. User feedback: …"), the model reads that, and
// the turn goes on.
func Reject(feedback string) PermissionDecision {
	return PermissionDecision{Kind: DecisionReject, Feedback: feedback}
}

// NoResult leaves the request to another client of the session: nothing
// is sent, and the CLI waits for another client's answer (or for the turn
// to be aborted). With several clients on one CLI, it lets one decide and
// the others observe. A session whose only client says NoResult waits.
func NoResult() PermissionDecision { return PermissionDecision{Kind: DecisionNoResult} }

// UserNotAvailable says that no one could be asked. On CLI 1.0.102 the
// tool then fails with a message that says so, and the turn goes on.
func UserNotAvailable() PermissionDecision {
	return PermissionDecision{Kind: DecisionUserNotAvailable}
}

// ApproveForSession approves req and tells the CLI to approve what is
// like it for the rest of the session without asking: the same commands
// (shell), any write or read, the same tool (custom-tool, mcp), the
// same domain (url), and so on by kind. A request the CLI says cannot be
// remembered (a shell or write request without CanOfferSessionApproval),
// or of a kind with nothing to remember (hook, or one newer than this
// package), is approved once.
func ApproveForSession(req PermissionRequest) PermissionDecision {
	if req.Kind == PermissionKindURL {
		if host := domainOf(req.Request.URL); host != "" {
			return PermissionDecision{Kind: DecisionApproveForSession, Domain: host}
		}
		return ApproveOnce()
	}
	approval, ok := approvalFor(req)
	if !ok {
		return ApproveOnce()
	}
	return PermissionDecision{Kind: DecisionApproveForSession, Approval: approval}
}

// ApproveForLocation approves req and has the CLI remember the approval,
// on disk, for the project at locationKey (its git root or working
// directory), as ApproveForSession scopes it. A request with nothing to
// remember (see ApproveForSession; a url request too) is approved once.
func ApproveForLocation(req PermissionRequest, locationKey string) PermissionDecision {
	approval, ok := approvalFor(req)
	if !ok || locationKey == "" {
		return ApproveOnce()
	}
	return PermissionDecision{Kind: DecisionApproveForLocation, Approval: approval, LocationKey: locationKey}
}

// ApproveReadOnlyForSession lets the agent's file tools read in dirs for
// the rest of the session.
func ApproveReadOnlyForSession(dirs ...string) PermissionDecision {
	return PermissionDecision{Kind: DecisionApproveReadOnlyForSession, Directories: dirs}
}

// ApprovePermanently approves fetches from domain in every session, from
// now on (url requests only).
func ApprovePermanently(domain string) PermissionDecision {
	return PermissionDecision{Kind: DecisionApprovePermanently, Domain: domain}
}

// Approves reports whether d lets the action go ahead: every approve… and
// approved… kind does.
func Approves(d PermissionDecision) bool {
	return strings.HasPrefix(d.Kind, "approve")
}

// approvalFor is what the CLI should remember when approving req beyond
// this once, as the schema's approval of req's kind.
func approvalFor(req PermissionRequest) (json.RawMessage, bool) {
	r := req.Request
	var a any
	switch req.Kind {
	case PermissionKindShell:
		if r.CanOfferSessionApproval == nil || !*r.CanOfferSessionApproval || len(r.Commands) == 0 {
			return nil, false
		}
		ids := make([]string, len(r.Commands))
		for i, c := range r.Commands {
			ids[i] = c.Identifier
		}
		a = protocol.PermissionDecisionApproveForSessionApprovalCommands{Kind: "commands", CommandIdentifiers: ids}
	case PermissionKindWrite:
		if r.CanOfferSessionApproval == nil || !*r.CanOfferSessionApproval {
			return nil, false
		}
		a = protocol.PermissionDecisionApproveForSessionApprovalWrite{Kind: "write"}
	case PermissionKindRead:
		a = protocol.PermissionDecisionApproveForSessionApprovalRead{Kind: "read"}
	case PermissionKindMemory:
		a = protocol.PermissionDecisionApproveForSessionApprovalMemory{Kind: "memory"}
	case PermissionKindCustomTool:
		a = protocol.PermissionDecisionApproveForSessionApprovalCustomTool{Kind: "custom-tool", ToolName: r.ToolName}
	case PermissionKindMCP:
		a = protocol.PermissionDecisionApproveForSessionApprovalMCP{Kind: "mcp", ServerName: r.ServerName, ToolName: &r.ToolName}
	case PermissionKindExtensionManagement:
		var op string
		_ = json.Unmarshal(r.Operation, &op)
		a = protocol.PermissionDecisionApproveForSessionApprovalExtensionManagement{Kind: req.Kind, Operation: op}
	case PermissionKindExtensionPermissionAccess:
		a = protocol.PermissionDecisionApproveForSessionApprovalExtensionPermissionAccess{Kind: req.Kind, ExtensionName: r.ExtensionName}
	case PermissionKindExtensionEnvAccess:
		a = protocol.PermissionDecisionApproveForSessionApprovalExtensionEnvAccess{Kind: req.Kind,
			ExtensionName: r.ExtensionName, EnvironmentVariables: r.EnvironmentVariables}
	case PermissionKindWorkflow:
		a = protocol.PermissionDecisionApproveForSessionApprovalWorkflow{Kind: req.Kind, ApprovalKey: r.ApprovalKey}
	default:
		return nil, false
	}
	raw, err := json.Marshal(a)
	return raw, err == nil
}

// domainOf is the host of a URL, or "" when it has none.
func domainOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// permissionReject is the decision kind of the answers that refuse
// without asking the policy (what an abandoned turn left).
const permissionReject = DecisionReject
