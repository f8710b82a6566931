package agent

import (
	"github.com/spf13/pflag"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/quorum"
)

// Flags are quorum agent's own: who plans alone (or the saved plan to
// carry out) and who executes, the rounds of plan review and of fixes, the tool-call limit, consent, how
// shell commands are decided, URLs, the sandbox, where worktrees go.
type Flags struct {
	// Attempts, Executors and Keep are the parallel attempts: how many,
	// whose, and whether the losers' worktrees are kept.
	Attempts  int
	Executors []string
	Keep      string

	Solo, Executor          string
	MaxRevisions, FixRounds int
	MaxToolCalls            int
	Yes, AllowURL           bool
	Approve, WorktreeRoot   string
	Sandbox                 SandboxFlags
	// PlanFile is --plan: a saved plan to carry out, with no planning.
	PlanFile string
}

// SandboxFlags say how the executor is confined: opted out
// (--no-sandbox), the network allowed (--allow-net) or to some hosts
// (--allow-host), more environment variables masked (--mask-env). quorum
// chat takes them too, for /agent.
type SandboxFlags struct {
	NoSandbox, AllowNet bool
	AllowHosts, MaskEnv []string
}

// Policy is the sandbox policy the flags ask for.
func (s SandboxFlags) Policy() quorum.SandboxPolicy {
	return quorum.SandboxPolicy{Unconfined: s.NoSandbox, AllowNetwork: s.AllowNet, AllowedHosts: s.AllowHosts, MaskEnv: s.MaskEnv}
}

// declare declares the agent's own flags on fs, in the order help lists
// them.
func (o *Flags) declare(fs *pflag.FlagSet) {
	fs.StringVar(&o.Solo, "solo", "", "this `model` plans alone: no other proposals, no vote")
	cmdutil.Group(fs.Lookup("solo"), cmdutil.GroupParticipants)
	fs.StringVar(&o.PlanFile, "plan", "", "carry out the plan saved in `file` as it is, with no planning: the JSON quorum agent -o json printed, or a plan file; - reads stdin")
	cmdutil.Group(fs.Lookup("plan"), cmdutil.GroupInput)
	fs.StringVar(&o.Executor, "executor", "", "the `model` that carries the plan out (default: the plan's author)")
	cmdutil.Group(fs.Lookup("executor"), cmdutil.GroupParticipants)
	fs.IntVar(&o.Attempts, "attempts", 1, "`N` attempts carry the approved plan out at once, each on a branch of its own; the models judge them and pick the best")
	cmdutil.Group(fs.Lookup("attempts"), cmdutil.GroupParticipants)
	fs.StringSliceVar(&o.Executors, "executors", nil, "the executors' `models`, comma-separated: one attempt each (instead of --executor N times)")
	cmdutil.Group(fs.Lookup("executors"), cmdutil.GroupParticipants)
	fs.StringVar(&o.Keep, "keep", KeepAll, "with several attempts, keep `which` worktrees and branches: all, or winner (the others are removed)")
	cmdutil.Group(fs.Lookup("keep"), cmdutil.GroupRun)
	fs.IntVar(&o.MaxRevisions, "max-revisions", quorum.DefaultMaxRevisions, "at most `N` rounds of plan review and revision; 0 for none")
	cmdutil.Group(fs.Lookup("max-revisions"), cmdutil.GroupRun)
	fs.BoolVarP(&o.Yes, "yes", "y", false, "approve the plan without asking (off a terminal, without it, quorum agent stops after planning)")
	cmdutil.Group(fs.Lookup("yes"), cmdutil.GroupRun)
	fs.StringVar(&o.Approve, "approve", "", "how shell commands are decided: `mode` ask (you, on a terminal: the default there), quorum (the other models vote: the default elsewhere), auto (all, in the worktree) or never")
	cmdutil.Group(fs.Lookup("approve"), cmdutil.GroupRun)
	fs.BoolVar(&o.AllowURL, "allow-url", false, "let the executor fetch URLs (denied by default)")
	cmdutil.Group(fs.Lookup("allow-url"), cmdutil.GroupRun)
	o.Sandbox.Declare(fs)
	fs.IntVar(&o.MaxToolCalls, "max-tool-calls", quorum.DefaultMaxToolCalls, "stop the executor after `N` tool calls")
	cmdutil.Group(fs.Lookup("max-tool-calls"), cmdutil.GroupRun)
	fs.IntVar(&o.FixRounds, "fix-rounds", quorum.DefaultFixRounds, "at most `N` rounds of fixing the final review's findings; 0 for none")
	cmdutil.Group(fs.Lookup("fix-rounds"), cmdutil.GroupRun)
	fs.StringVar(&o.WorktreeRoot, "worktree-root", "", "make the agent's worktree under `dir` (default: $XDG_STATE_HOME/quorum/worktrees)")
	cmdutil.Group(fs.Lookup("worktree-root"), cmdutil.GroupRun)
}

// Declare declares the sandbox's flags on fs: the Copilot CLI's sandbox
// by default (read-write only in the worktree, no network, the
// credentials masked), --no-sandbox to run unconfined.
func (s *SandboxFlags) Declare(fs *pflag.FlagSet) {
	fs.BoolVar(&s.NoSandbox, "no-sandbox", false, "run the executor's commands unconfined, with your full rights (by default they run in the Copilot CLI's sandbox)")
	cmdutil.Group(fs.Lookup("no-sandbox"), cmdutil.GroupRun)
	fs.BoolVar(&s.AllowNet, "allow-net", false, "let the executor's commands reach the network (blocked by default)")
	cmdutil.Group(fs.Lookup("allow-net"), cmdutil.GroupRun)
	fs.StringArrayVar(&s.AllowHosts, "allow-host", nil, "let the executor's commands reach `host` only (a name, an address, or *.example.com); repeat for several")
	cmdutil.Group(fs.Lookup("allow-host"), cmdutil.GroupRun)
	fs.StringArrayVar(&s.MaskEnv, "mask-env", nil, "hide environment variable `NAME` from the executor's commands, beside the Copilot and GitHub tokens; repeat for several")
	cmdutil.Group(fs.Lookup("mask-env"), cmdutil.GroupRun)
}
