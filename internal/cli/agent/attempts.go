package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// What --keep takes.
const (
	KeepAll    = "all"
	KeepWinner = "winner"
)

// attemptsFlags checks --attempts, --executors and --keep and sets them
// on cfg.
func attemptsFlags(o *Flags, cfg *quorum.AgentConfig) error {
	switch o.Keep {
	case KeepAll, KeepWinner:
	default:
		return cmdutil.Usagef("--keep takes all or winner, not %q", o.Keep)
	}
	if o.Attempts < 1 || o.Attempts > quorum.MaxAttempts {
		return cmdutil.Usagef("--attempts takes 1 to %d, not %d", quorum.MaxAttempts, o.Attempts)
	}
	for _, e := range o.Executors {
		if strings.TrimSpace(e) == "" {
			return cmdutil.Usagef("--executors has an empty name; give model ids separated by commas")
		}
	}
	if len(o.Executors) > 0 {
		if o.Executor != "" {
			return cmdutil.Usagef("--executor and --executors both name executors; use --executors alone, one model per attempt")
		}
		if o.Attempts > 1 && o.Attempts != len(o.Executors) {
			return cmdutil.Usagef("--attempts %d but --executors names %d; leave --attempts out, or name one executor per attempt", o.Attempts, len(o.Executors))
		}
	}
	cfg.Attempts, cfg.Executors = o.Attempts, o.Executors
	return nil
}

// worktrees makes an agent run's worktrees: one, or one per attempt with
// the attempt's suffix (quorum/agent-<time>-<slug>-a, -b, …) and the same
// time. They are made one at a time: attempts start together, and git's
// worktree bookkeeping is not made for adds that race.
type worktrees struct {
	repo       *workspace.Repo
	task, root string

	mu  sync.Mutex
	now time.Time
}

func (w *worktrees) make(ctx context.Context) (quorum.Workspace, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.now.IsZero() {
		w.now = time.Now()
	}
	o := workspace.Options{Root: w.root}
	if label, ok := quorum.AttemptLabel(ctx); ok {
		o.Now = func() time.Time { return w.now }
		o.Suffix = strings.ToLower(label)
	}
	return w.repo.NewWorktree(ctx, w.task, o)
}

// keepWinner removes the worktree and branch of every attempt but the
// winner, for --keep winner, marking each removed in the result. It
// removes nothing of a run that failed or was not judged: its work is
// for the user to look at. A removal that fails is warned about and the
// worktree kept.
func keepWinner(ctx context.Context, inv *cmdutil.Invocation, repo *workspace.Repo, a *quorum.AgentResult) {
	if a.Ranking == nil {
		return
	}
	for i := range a.Attempts {
		t := &a.Attempts[i]
		if t.Label == a.Ranking.Winner || t.Workspace == nil {
			continue
		}
		if err := repo.RemoveWorktree(ctx, t.Workspace.Dir, t.Workspace.Branch); err != nil {
			fmt.Fprintf(inv.ErrOut, "quorum: warning: attempt %s is kept: %v\n", t.Label, err)
			continue
		}
		t.Removed = true
	}
}
