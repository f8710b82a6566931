package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"unicode/utf16"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The CLI's built-in tools, as the simulator plays them: view, create,
// edit, bash and web_fetch, with the permission requests, events and result
// texts CLI 1.0.102 was seen to send (doc.go has the shapes). This file
// routes a call and asks; builtinfs.go confines the file tools to the
// session's folder (builtinfs_view.go reads, builtinfs_write.go creates and
// edits), builtinshell.go plays the harmless commands bash may run
// (builtinshell_parse.go reads a command, builtinshell_git.go plays git),
// and sandbox.go plays the CLI's sandbox when the session asks for one.

// The names of the built-in tools the simulator plays, as the model calls
// them (ToolCall.Name).
const (
	// ToolView reads a file ({"path", "view_range"?: [first, last]}, last
	// -1 for the end) or lists a folder ({"path"}).
	ToolView = "view"
	// ToolCreate creates a file that does not exist yet, in a folder that
	// does ({"path", "file_text"}).
	ToolCreate = "create"
	// ToolEdit replaces the one occurrence of old_str in a file with
	// new_str ({"path", "old_str", "new_str"}).
	ToolEdit = "edit"
	// ToolBash runs a command ({"command", "description"}); the simulator
	// runs only a few harmless ones (doc.go).
	ToolBash = "bash"
	// ToolWebFetch fetches a URL ({"url"}); the simulator never does, and
	// answers with a fixed body once the fetch is approved.
	ToolWebFetch = "web_fetch"
)

// builtinTools are the built-in tools the simulator plays, in the order CLI
// 1.0.102 offers them. The CLI's others (grep, glob, sql, task, …) are not
// simulated: a call of one fails as a tool that does not exist.
var builtinTools = []string{ToolBash, ToolView, ToolCreate, ToolEdit, ToolWebFetch}

// builtinTitles are tool.execution_start's toolTitle of each, as CLI
// 1.0.102 sends them.
var builtinTitles = map[string]string{
	ToolView:     "Viewing file",
	ToolCreate:   "Creating file",
	ToolEdit:     "Editing file",
	ToolBash:     "Running command",
	ToolWebFetch: "Fetching web content",
}

// ViewCall is a call of the built-in view tool that reads the file (or
// lists the folder) at path.
func ViewCall(path string) ToolCall { return Call(ToolView, viewArgs{Path: path}) }

// CreateCall is a call of the built-in create tool that creates the file
// at path with text.
func CreateCall(path, text string) ToolCall {
	return Call(ToolCreate, createArgs{Path: path, FileText: text})
}

// EditCall is a call of the built-in edit tool that replaces oldStr, which
// must occur exactly once in the file at path, with newStr.
func EditCall(path, oldStr, newStr string) ToolCall {
	return Call(ToolEdit, editArgs{Path: path, OldStr: oldStr, NewStr: newStr})
}

// BashCall is a call of the built-in bash tool that runs command;
// description is the permission request's intention.
func BashCall(command, description string) ToolCall {
	return Call(ToolBash, bashArgs{Command: command, Description: description})
}

// WebFetchCall is a call of the built-in web_fetch tool that fetches u.
func WebFetchCall(u string) ToolCall { return Call(ToolWebFetch, fetchArgs{URL: u}) }

// The arguments of the built-in tools, named as CLI 1.0.102's tool
// schemas name them.
type viewArgs struct {
	Path      string `json:"path"`
	ViewRange []int  `json:"view_range,omitempty"`
}

type createArgs struct {
	Path     string `json:"path"`
	FileText string `json:"file_text"`
}

type editArgs struct {
	Path   string `json:"path"`
	OldStr string `json:"old_str"`
	NewStr string `json:"new_str"`
}

type bashArgs struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
	// Mode "async" runs the command in the background; Detach (with it)
	// lets it outlive the session. The simulator plays every command
	// synchronously; a sandbox refuses a detached one (sandbox_shell.go).
	Mode   string `json:"mode,omitempty"`
	Detach bool   `json:"detach,omitempty"`
}

type fetchArgs struct {
	URL string `json:"url"`
}

// offeredBuiltins are the built-in tools a session created with p offers:
// all of them when availableTools is absent or null, as on the real CLI,
// else those it names; excludedTools then takes some away where the CLI
// applies it (with no availableTools, or toolFilterPrecedence "excluded").
func offeredBuiltins(p createParams) []string {
	var out []string
	for _, name := range builtinTools {
		if p.AvailableTools != nil && !slices.Contains(p.AvailableTools, name) {
			continue
		}
		if (p.AvailableTools == nil || p.ToolFilterPrecedence == "excluded") && slices.Contains(p.ExcludedTools, name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// builtin reports whether a call of name runs a built-in tool: the session
// offers it and registered no client tool of that name (which would be the
// one called).
func (c settings) builtin(name string) bool {
	if _, ok := tool(c.tools, name); ok {
		return false
	}
	return slices.Contains(c.builtins, name)
}

// offeredBuiltins lists the built-in tools a call of which runs one.
func (c settings) offeredBuiltins() []string {
	out := []string{}
	for _, name := range c.builtins {
		if c.builtin(name) {
			out = append(out, name)
		}
	}
	return out
}

// completion is what tool.execution_complete carries for a built-in tool
// beside its result's content, as CLI 1.0.102 sends it.
type completion struct {
	detailed  string
	contents  []protocol.ToolExecutionCompleteContent
	shell     *protocol.ToolExecutionCompleteShellExecution
	fileEdits []protocol.ToolExecutionCompleteFileEdit
}

// fill adds c to data.
func (c completion) fill(data *protocol.ToolExecutionCompleteData) {
	if data.Result != nil {
		data.Result.DetailedContent = c.detailed
		data.Result.Contents = c.contents
	}
	data.ShellExecution = c.shell
	data.FileEdits = c.fileEdits
}

// builtinPlan is a built-in tool call checked and ready: the permission it
// needs (request and its promptRequest) and what it does once allowed.
type builtinPlan struct {
	request, prompt any
	run             func(ctx context.Context) (builtinOutput, *toolFailure)
}

// builtinOutput is what a built-in tool gave: the text the model reads,
// what tool.execution_complete adds, and for bash its output, which goes
// out as it is produced (tool.shell_output, tool.execution_partial_result).
type builtinOutput struct {
	text   string
	done   completion
	shell  bool
	output string
}

// failed is a built-in tool's failure: message is tool.execution_complete's
// error, llm the longer text the model reads, as CLI 1.0.102 words them
// apart.
func failed(message, llm string) *toolFailure {
	return &toolFailure{code: "failure", message: message, llm: llm, executed: true}
}

// runBuiltin runs a built-in tool call as CLI 1.0.102 does: it checks the
// arguments (a failure here asks nothing, as the CLI fails a create of an
// existing file or an edit whose old_str is not found before asking), asks
// the permission of the tool's kind, then acts, inside the session's folder
// only. done receives what tool.execution_complete adds.
func (s *session) runBuiltin(t *turn, cfg settings, req protocol.AssistantMessageToolRequest, pre preToolUseOutput, res *ToolCallResult, done *completion) (*toolFailure, error) {
	sb := cfg.sandbox
	p, fail := s.planBuiltin(req.Name, req.ToolCallID, res.Arguments, sb)
	if fail != nil {
		return fail, nil
	}
	if detached := sandboxed(sb) && req.Name == ToolBash && bashOf(res.Arguments).detached(); detached {
		return s.runDetached(t, cfg, req, pre, res, done, p)
	}
	request := p.request
	refusal := sandboxCheck(sb, s.cwd, req.Name, res.Arguments)
	if refusal != nil {
		// Refused before any permission request, or asked as a bypass.
		if err := s.emit(t, protocol.EventSandboxDecision, accessDenied(req.ToolCallID, refusal.class)); err != nil {
			return nil, err
		}
		if sb.AllowBypass == nil || !*sb.AllowBypass {
			return &toolFailure{code: "failure", message: refusal.message, llm: sandboxBlocked, executed: true, remediation: "review_sandbox_policy"}, nil
		}
		request = refusal.bypass(request)
	}
	fail, err := s.permit(t, cfg, req, pre, res.Arguments, false, true, request, p.prompt)
	if refusal != nil && err == nil {
		if err := s.emit(t, protocol.EventSandboxDecision, bypassDecided(req.ToolCallID, refusal.class, fail == nil)); err != nil {
			return nil, err
		}
	}
	if fail != nil || err != nil {
		return fail, err
	}
	if sandboxed(sb) && req.Name == ToolBash {
		for _, d := range confinedCommand(sb, req.ToolCallID) {
			if err := s.emit(t, protocol.EventSandboxDecision, d); err != nil {
				return nil, err
			}
		}
	}
	out, fail := p.run(t.ctx)
	if t.ctx.Err() != nil {
		return nil, errStopped
	}
	if fail != nil {
		return fail, nil
	}
	if out.shell {
		if err := s.shellEvents(t, req.ToolCallID, out.output); err != nil {
			return nil, err
		}
		if sandboxed(sb) && refusedInOutput(out.output) {
			if err := s.emit(t, protocol.EventSandboxDecision, readRefusedInOutput(req.ToolCallID)); err != nil {
				return nil, err
			}
			out.text += "\n" + sandboxMayHaveFailed
			out.done.detailed = out.text
		}
	}
	res.Text = out.text
	*done = out.done
	return nil, nil
}

// Grants of the built-in tools for the rest of a session, kept in
// session.approved beside the client tools approved by name (a NUL cannot
// begin a tool's name). CLI 1.0.102 was seen to remember an approval for
// the session by what it covers: {kind:"read"} every later read,
// {kind:"write"} every later write (create and edit alike),
// {kind:"commands", commandIdentifiers} later commands whose text is one
// of them ("ls" covers "ls", not "ls -a"); without an approval it
// approves once and asks again.
const (
	grantRead    = "\x00read"
	grantWrite   = "\x00write"
	grantCommand = "\x00command:"
)

// builtinGrant is the grant that would approve request, or "".
func builtinGrant(request any) string {
	switch r := request.(type) {
	case protocol.PermissionRequestRead:
		return grantRead
	case protocol.PermissionRequestWrite:
		return grantWrite
	case protocol.PermissionRequestShell:
		return grantCommand + r.FullCommandText
	}
	return ""
}

// approvalGrants lists what an approval for the session grants the
// built-in tools (none for an approval of another kind, or none).
func approvalGrants(a *protocol.UserToolSessionApproval) []string {
	if a == nil {
		return nil
	}
	switch a.Kind {
	case "read":
		return []string{grantRead}
	case "write":
		return []string{grantWrite}
	case "commands":
		keys := make([]string, len(a.CommandIdentifiers))
		for i, id := range a.CommandIdentifiers {
			keys[i] = grantCommand + id
		}
		return keys
	}
	return nil
}

// shellEvents emits a command's output as CLI 1.0.102 does before
// tool.execution_complete: tool.shell_output with the output and a
// tool.execution_partial_result snapshot of it as it arrives, and a last
// snapshot when the command ends (only that one for a command that printed
// nothing).
func (s *session) shellEvents(t *turn, callID, output string) error {
	if output != "" {
		if err := s.emit(t, protocol.EventToolShellOutput, protocol.ToolShellOutputData{
			ToolCallID: callID, Stream: protocol.ToolShellOutputStreamStdout, Text: output, Sequence: 0,
		}); err != nil {
			return err
		}
		if err := s.emit(t, protocol.EventToolExecutionPartialResult, protocol.ToolExecutionPartialData{ToolCallID: callID, PartialOutput: output}); err != nil {
			return err
		}
	}
	return s.emit(t, protocol.EventToolExecutionPartialResult, protocol.ToolExecutionPartialData{ToolCallID: callID, PartialOutput: output})
}

// planBuiltin checks a call of the built-in tool name with args and
// returns its plan, or why it fails before any permission is asked.
func (s *session) planBuiltin(name, callID string, args json.RawMessage, sb *protocol.SandboxConfig) (builtinPlan, *toolFailure) {
	if fail := checkArgs(name, args); fail != nil {
		return builtinPlan{}, fail
	}
	if name == ToolWebFetch {
		var a fetchArgs
		json.Unmarshal(args, &a) // checked
		return planFetch(callID, a)
	}
	f, fail := s.folder()
	if fail != nil {
		return builtinPlan{}, fail
	}
	f.denied = sandboxDenied(sb)
	switch name {
	case ToolBash:
		var a bashArgs
		json.Unmarshal(args, &a)
		return s.planBash(f, callID, a), nil
	case ToolView:
		var a viewArgs
		json.Unmarshal(args, &a)
		return planView(f, callID, a)
	case ToolCreate:
		var a createArgs
		json.Unmarshal(args, &a)
		return planCreate(f, callID, a)
	case ToolEdit:
		var a editArgs
		json.Unmarshal(args, &a)
		return planEdit(f, callID, a)
	}
	return builtinPlan{}, failed(fmt.Sprintf("Tool '%s' does not exist.", name), "")
}

// requiredArgs are the arguments each built-in tool requires, in the order
// CLI 1.0.102 checks them.
var requiredArgs = map[string][]string{
	ToolView:     {"path"},
	ToolCreate:   {"path", "file_text"},
	ToolEdit:     {"path"},
	ToolBash:     {"command"},
	ToolWebFetch: {"url"},
}

// checkArgs fails a call whose arguments the CLI refuses before asking
// anything, in its words: one that is not an object of the tool's
// argument types, or lacks a required argument ("\"path\": Required"; the
// model reads "Invalid input: \"path\": Required"), or an edit without
// old_str (or an empty one) or new_str.
func checkArgs(name string, args json.RawMessage) *toolFailure {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return failed("Invalid input: Expected object", "")
	}
	present := func(k string) bool { v, ok := m[k]; return ok && string(v) != "null" }
	for _, k := range requiredArgs[name] {
		if !present(k) {
			msg := fmt.Sprintf("%q: Required", k)
			return failed(msg, "Invalid input: "+msg)
		}
	}
	var typed any
	switch name {
	case ToolView:
		typed = &viewArgs{}
	case ToolCreate:
		typed = &createArgs{}
	case ToolEdit:
		var a editArgs
		if err := json.Unmarshal(args, &a); err != nil {
			return failed("Invalid input: "+err.Error(), "")
		}
		switch {
		case a.OldStr == "":
			return failed("Invalid inputs: old_str is required", "")
		case !present("new_str"):
			return failed("Invalid inputs: new_str is required", "")
		}
		return nil
	case ToolBash:
		typed = &bashArgs{}
	case ToolWebFetch:
		typed = &fetchArgs{}
	}
	if err := json.Unmarshal(args, typed); err != nil {
		return failed("Invalid input: "+err.Error(), "")
	}
	return nil
}

// fetchIntention is the url request's intention, in CLI 1.0.102's words.
const fetchIntention = "Fetch content from this URL."

// simulatedPage is the body every approved web_fetch returns: the
// simulator has no network and never fetches anything.
const simulatedPage = "This page was not fetched: the simulated Copilot CLI has no network access, and every URL it is asked for returns this text."

// planFetch asks the url permission CLI 1.0.102 asks for web_fetch and,
// once approved, returns the fixed simulated page.
func planFetch(callID string, a fetchArgs) (builtinPlan, *toolFailure) {
	u, err := url.Parse(a.URL)
	if a.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return builtinPlan{}, failed("Invalid URL", fmt.Sprintf("Invalid URL %q: web_fetch takes an absolute http or https URL.", a.URL))
	}
	return builtinPlan{
		request: protocol.PermissionRequestURL{Kind: "url", ToolCallID: callID, Intention: fetchIntention, URL: a.URL, RequestSandboxBypass: ptr(false)},
		prompt:  protocol.PermissionPromptRequestURL{Kind: "url", ToolCallID: callID, Intention: fetchIntention, URL: a.URL},
		run: func(context.Context) (builtinOutput, *toolFailure) {
			return builtinOutput{text: "Contents of " + a.URL + ":\n" + simulatedPage}, nil
		},
	}, nil
}

// jsLength is the length of s as JavaScript counts it (UTF-16 code
// units), which CLI 1.0.102's "with N characters" reports.
func jsLength(s string) int { return len(utf16.Encode([]rune(s))) }
