package copilot

import (
	"maps"
	"slices"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// MCPServer is an MCP (Model Context Protocol) server whose tools the
// session's agent may use: a local one, which the CLI starts (Command), or
// a remote one it connects to (URL). Set one of the two.
type MCPServer struct {
	// Command, with Args, Env (added to the CLI's environment, values
	// taken literally) and Dir (its working directory), starts a local
	// server that speaks MCP on its stdin and stdout.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	// URL is a remote server's endpoint, spoken to over streamable HTTP,
	// or over server-sent events with SSE; Headers go with every request.
	URL     string
	Headers map[string]string
	SSE     bool

	// Tools names the server's tools the model is offered: nil all of
	// them, an empty list none.
	Tools []string
	// Timeout bounds tool discovery and each tool call; zero is the CLI's
	// default. It is sent in whole milliseconds.
	Timeout time.Duration
}

// CustomAgent is an agent of the session's own, with its own prompt and
// tools, to which the main agent may hand work (SessionConfig.CustomAgents)
// or which runs the session's turns (SessionConfig.Agent).
type CustomAgent struct {
	// Name identifies the agent; it is unique within the session.
	Name        string
	DisplayName string
	// Description says what the agent is for; the main agent reads it to
	// decide when to hand work over.
	Description string
	// Prompt is the agent's instructions.
	Prompt string
	// Tools names the tools the agent may use: nil all of the session's,
	// an empty list none.
	Tools      []string
	MCPServers map[string]MCPServer
	// NoInfer keeps the main agent from handing work to this agent on its
	// own; it then runs only when selected (SessionConfig.Agent).
	NoInfer bool
	// Skills names skills (from SessionConfig.SkillDirectories) whose text
	// the agent is given when it starts.
	Skills []string
	// Model and ReasoningEffort, when set, are the agent's own; otherwise
	// it uses the session's.
	Model           string
	ReasoningEffort string
}

// validateMCPServers checks each server of servers, named field in errors.
func validateMCPServers(field string, servers map[string]MCPServer) error {
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		m := servers[name]
		switch {
		case name == "":
			return invalid(ErrInvalidSessionConfig, "%s has a server with no name", field)
		case (m.Command == "") == (m.URL == ""):
			return invalid(ErrInvalidSessionConfig, "%s[%q] must set one of Command (a local server) and URL (a remote one)", field, name)
		case m.Command != "" && (m.SSE || len(m.Headers) > 0):
			return invalid(ErrInvalidSessionConfig, "%s[%q] is local (Command) but sets SSE or Headers, which are for remote servers", field, name)
		case m.URL != "" && (len(m.Args) > 0 || len(m.Env) > 0 || m.Dir != ""):
			return invalid(ErrInvalidSessionConfig, "%s[%q] is remote (URL) but sets Args, Env or Dir, which are for local servers", field, name)
		case m.Timeout < 0:
			return invalid(ErrInvalidSessionConfig, "%s[%q].Timeout is %v; it must not be negative (0 means the CLI's default)", field, name, m.Timeout)
		}
	}
	return nil
}

// validateAgents checks CustomAgents and Agent.
func (cfg SessionConfig) validateAgents() error {
	for i, a := range cfg.CustomAgents {
		switch {
		case a.Name == "":
			return invalid(ErrInvalidSessionConfig, "CustomAgents[%d] has no Name", i)
		case a.Prompt == "":
			return invalid(ErrInvalidSessionConfig, "CustomAgents[%d] (%q) has no Prompt", i, a.Name)
		case slices.ContainsFunc(cfg.CustomAgents[:i], func(b CustomAgent) bool { return b.Name == a.Name }):
			return invalid(ErrInvalidSessionConfig, "CustomAgents[%d] is named %q, as an earlier agent is", i, a.Name)
		}
		if err := validateReasoningEffort("CustomAgents["+a.Name+"].ReasoningEffort", a.ReasoningEffort); err != nil {
			return err
		}
		if err := validateMCPServers("CustomAgents["+a.Name+"].MCPServers", a.MCPServers); err != nil {
			return err
		}
	}
	if cfg.Agent != "" && !slices.ContainsFunc(cfg.CustomAgents, func(a CustomAgent) bool { return a.Name == cfg.Agent }) {
		return invalid(ErrInvalidSessionConfig, "Agent %q is not one of CustomAgents", cfg.Agent)
	}
	return nil
}

// wireMCPServers is servers as session.create takes them; nil for none.
func wireMCPServers(servers map[string]MCPServer) map[string]protocol.SessionMCPServer {
	if len(servers) == 0 {
		return nil
	}
	out := make(map[string]protocol.SessionMCPServer, len(servers))
	for name, m := range servers {
		w := protocol.SessionMCPServer{Tools: m.Tools, Timeout: m.Timeout.Milliseconds()}
		switch {
		case m.Command != "":
			w.Type, w.Command, w.Args, w.Env, w.Cwd = protocol.MCPServerStdio, m.Command, m.Args, m.Env, m.Dir
		case m.SSE:
			w.Type, w.URL, w.Headers = protocol.MCPServerSSE, m.URL, m.Headers
		default:
			w.Type, w.URL, w.Headers = protocol.MCPServerHTTP, m.URL, m.Headers
		}
		out[name] = w
	}
	return out
}

// wireAgents is agents as session.create takes them; nil for none.
func wireAgents(agents []CustomAgent) []protocol.CustomAgentConfig {
	var out []protocol.CustomAgentConfig
	for _, a := range agents {
		w := protocol.CustomAgentConfig{
			Name: a.Name, DisplayName: a.DisplayName, Description: a.Description, Prompt: a.Prompt,
			Tools: a.Tools, MCPServers: wireMCPServers(a.MCPServers), Skills: a.Skills,
			Model: a.Model, ReasoningEffort: a.ReasoningEffort,
		}
		if a.NoInfer {
			w.Infer = new(bool)
		}
		out = append(out, w)
	}
	return out
}
