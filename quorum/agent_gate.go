package quorum

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/quorum-go/quorum/copilot"
)

// Action is what an agent's executor asks to do, as the provider's
// permission request describes it. The gate (see Agent) decides it by Kind
// and the paths, command or URL it names.
type Action struct {
	// Kind is the Copilot CLI's permission request kind
	// (copilot.PermissionKindShell, …Read, …Write, …URL, …MCP, …Memory),
	// or one newer than this package (denied).
	Kind string `json:"kind"`
	// Paths are the files the action reads or writes: the file of a read
	// or a write, the paths a shell command may touch.
	Paths []string `json:"paths,omitempty"`
	// Command is a shell command's whole text.
	Command string `json:"command,omitempty"`
	// URL is what a fetch would read.
	URL string `json:"url,omitempty"`
	// Tool names the tool of an MCP or custom-tool request.
	Tool string `json:"tool,omitempty"`
	// Intention is the model's own description of what the action is for.
	Intention string `json:"intention,omitempty"`
	// SandboxBypass is true when the action asks to run outside the
	// executor's sandbox (the Copilot CLI's requestSandboxBypass: a
	// detached command, a command the network policy stopped, a read of a
	// denied path); SandboxBypassReason is the provider's reason. The gate
	// denies every such action, whatever the shell mode.
	SandboxBypass       bool   `json:"sandboxBypass,omitempty"`
	SandboxBypassReason string `json:"sandboxBypassReason,omitempty"`
	// Attempt labels the attempt that asks ("A", "B", …) when several
	// carry the plan out (AgentConfig.Attempts); "" otherwise. The gate
	// sets it, so that AskShell can say which attempt asks.
	Attempt string `json:"attempt,omitempty"`
}

// ActionDecision is the gate's answer to an Action: allowed or not, who decided
// and why. A denial is told to the model (Reason), which goes on.
type ActionDecision struct {
	Allow bool `json:"allow"`
	// By says who decided: "policy" (by kind and path), "user", "quorum"
	// (the other models' vote), "auto" (ShellAuto), "never" (ShellNever).
	By     string `json:"by"`
	Reason string `json:"reason"`
	// Always, set by AgentConfig.AskShell, allows the same command for the
	// rest of the run without asking again.
	Always bool `json:"-"`
}

// Who decides, for ActionDecision.By.
const (
	ByPolicy = "policy"
	ByUser   = "user"
	ByQuorum = "quorum"
	ByAuto   = "auto"
	ByNever  = "never"
	// BySandbox is the gate's denial of a request to run outside the
	// sandbox (Action.SandboxBypass).
	BySandbox = "sandbox"
)

// ShellMode says how the gate decides shell commands (AgentConfig.Shell).
type ShellMode string

const (
	// ShellAsk asks AgentConfig.AskShell (a person) for each command.
	ShellAsk ShellMode = "ask"
	// ShellQuorum has the models other than the executor vote on each
	// command, approve or deny with reasons; the majority decides and a tie
	// denies. The default.
	ShellQuorum ShellMode = "quorum"
	// ShellAuto allows every command whose paths stay in the workspace.
	ShellAuto ShellMode = "auto"
	// ShellNever denies every command.
	ShellNever ShellMode = "never"
)

// ActionRecord is one decision of the gate, as the result keeps it.
type ActionRecord struct {
	// Step is the plan step (from 1) the action came in, 0 during a fix
	// round's turn... see Round.
	Step int `json:"step"`
	// Round is "execute" or "fix-N".
	Round  string `json:"round"`
	Action Action `json:"action"`
	ActionDecision
	// Votes are the models' votes when the quorum decided.
	Votes []ActionVote `json:"votes,omitempty"`
}

// ActionVote is one model's vote on a shell command.
type ActionVote struct {
	Model   string `json:"model"`
	Approve bool   `json:"approve"`
	Reason  string `json:"reason"`
	Error   string `json:"error,omitempty"`
}

// gate decides the executor's actions and records every decision. Its
// decide may be called from several goroutines (a provider may ask about
// parallel tool calls at once), so it locks.
type gate struct {
	ws       Workspace
	mode     ShellMode
	allowURL bool
	ask      func(context.Context, Action) (ActionDecision, error)
	vote     func(context.Context, Action) (ActionDecision, []ActionVote)
	// told is told of every decision, for progress.
	told func(ActionRecord)
	// attempt labels the attempt the gate decides for ("" for one).
	attempt string

	mu      sync.Mutex
	step    int
	round   string
	always  map[string]bool // commands the user allowed for the run
	records []ActionRecord
}

// decide answers one action and records the decision.
func (g *gate) decide(ctx context.Context, a Action) ActionDecision {
	a.Attempt = g.attempt
	d, votes := g.judge(ctx, a)
	g.mu.Lock()
	defer g.mu.Unlock()
	if d.Always && a.Kind == copilot.PermissionKindShell {
		if g.always == nil {
			g.always = map[string]bool{}
		}
		g.always[a.Command] = true
	}
	rec := ActionRecord{Step: g.step, Round: g.round, Action: a, ActionDecision: d, Votes: votes}
	g.records = append(g.records, rec)
	if g.told != nil {
		g.told(rec)
	}
	return d
}

func (g *gate) judge(ctx context.Context, a Action) (ActionDecision, []ActionVote) {
	deny := func(reason string) (ActionDecision, []ActionVote) {
		return ActionDecision{By: ByPolicy, Reason: reason}, nil
	}
	allow := func(reason string) (ActionDecision, []ActionVote) {
		return ActionDecision{Allow: true, By: ByPolicy, Reason: reason}, nil
	}
	if a.SandboxBypass {
		// Before every other rule: approving it would run the action with
		// the user's full rights, past every limit the sandbox sets.
		return ActionDecision{By: BySandbox, Reason: "running outside the sandbox is never allowed in agent mode; work inside the workspace, within the sandbox's limits (no network unless allowed, no files outside the workspace)"}, nil
	}
	switch a.Kind {
	case copilot.PermissionKindRead:
		if len(a.Paths) == 0 {
			return deny("a read that names no path is not allowed")
		}
		for _, p := range a.Paths {
			if !g.ws.Contains(p) {
				return deny(fmt.Sprintf("%s is outside the workspace (%s); only files inside it may be read", p, g.ws.Dir()))
			}
		}
		return allow("inside the workspace")
	case copilot.PermissionKindWrite:
		if len(a.Paths) == 0 {
			return deny("a write that names no path is not allowed")
		}
		for _, p := range a.Paths {
			if !g.ws.Writable(p) {
				return deny(fmt.Sprintf("%s is outside the workspace (%s) or is its .git file; only files inside it may be written", p, g.ws.Dir()))
			}
		}
		return allow("inside the workspace, on the agent's branch")
	case copilot.PermissionKindShell:
		for _, p := range append(append([]string{}, a.Paths...), commandPaths(a.Command)...) {
			if !g.ws.Contains(p) {
				return deny(fmt.Sprintf("the command names %s, outside the workspace (%s); commands may only touch files inside it", p, g.ws.Dir()))
			}
		}
		g.mu.Lock()
		remembered := g.always[a.Command]
		g.mu.Unlock()
		if remembered {
			return ActionDecision{Allow: true, By: ByUser, Reason: "allowed for this run by the user"}, nil
		}
		switch g.mode {
		case ShellNever:
			return ActionDecision{By: ByNever, Reason: "shell commands are not allowed in this run (--approve never)"}, nil
		case ShellAuto:
			return ActionDecision{Allow: true, By: ByAuto, Reason: "every command in the workspace is allowed (--approve auto)"}, nil
		case ShellAsk:
			if g.ask == nil {
				return ActionDecision{By: ByUser, Reason: "no one could be asked"}, nil
			}
			d, err := g.ask(ctx, a)
			if err != nil {
				return ActionDecision{By: ByUser, Reason: "the user could not be asked: " + err.Error()}, nil
			}
			d.By = ByUser
			return d, nil
		default:
			return g.vote(ctx, a)
		}
	case copilot.PermissionKindURL:
		if g.allowURL {
			return allow("fetching URLs is allowed in this run (--allow-url)")
		}
		return deny(fmt.Sprintf("fetching %s is not allowed; work from the files in the workspace", a.URL))
	default:
		return deny(fmt.Sprintf("%s requests are not allowed in agent mode", kindName(a.Kind)))
	}
}

func kindName(k string) string {
	if strings.TrimSpace(k) == "" {
		return "unnamed"
	}
	return k
}

// at sets the step and round the next decisions belong to.
func (g *gate) at(round string, step int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.round, g.step = round, step
}

// where is the round and step decisions now belong to.
func (g *gate) where() (round string, step int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.round, g.step
}

// taken returns the decisions so far.
func (g *gate) taken() []ActionRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]ActionRecord{}, g.records...)
}

// describe is one line for progress: "allowed write main.go (policy:
// inside the workspace)".
func (rec ActionRecord) describe() string {
	verb := "denied"
	if rec.Allow {
		verb = "allowed"
	}
	what := rec.Action.Command
	switch {
	case what != "":
	case rec.Action.URL != "":
		what = rec.Action.URL
	case len(rec.Action.Paths) > 0:
		what = strings.Join(rec.Action.Paths, ", ")
	default:
		what = rec.Action.Tool
	}
	return fmt.Sprintf("%s %s %s (%s: %s)", verb, kindName(rec.Action.Kind), cutRunes(oneLine(what), 120), rec.By, cutRunes(oneLine(rec.Reason), 200))
}

// commandPaths are the words of a shell command's text that name a path
// the worktree may not hold: an absolute path, one from a home folder, or
// one with a ".." segment, wherever it stands (an argument, a redirection,
// inside quotes or an assignment). The Copilot CLI's shell permission
// request lists no paths (possiblePaths is empty in 1.0.102), so the gate
// reads the command itself; the workspace then judges each path. It errs
// on the side of finding too much: a denial tells the model why, and it
// can work with paths inside the worktree.
func commandPaths(cmd string) []string {
	var out []string
	words := strings.FieldsFunc(cmd, func(r rune) bool {
		return strings.ContainsRune(" \t\n'\"=:;|&<>(),`", r)
	})
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "~"):
			out = append(out, "/~"+strings.TrimPrefix(w, "~")) // a home folder is never inside the worktree
		case strings.HasPrefix(w, "/"), slices.Contains(strings.Split(w, "/"), ".."):
			out = append(out, w)
		}
	}
	return out
}
