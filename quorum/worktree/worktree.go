// Package worktree gives quorum.Agent a workspace a user can pass: a git
// worktree of a new branch, outside the user's working tree, which is the
// workspace the quorum command's agent mode uses.
//
//	repo, err := worktree.Open(ctx, ".")
//	...
//	a, err := quorum.Agent(ctx, quorum.Copilot(client), task, quorum.AgentConfig{
//		Config:    quorum.Config{Models: models},
//		Approve:   approve,
//		Workspace: repo.Workspace(task, worktree.Options{Root: root}),
//	})
//
// The user's working tree, index and HEAD are never touched: Open only
// reads, the worktree is added on a branch of its own (quorum/agent-…)
// from HEAD, and every step is committed there. quorum's git on the
// worktree pins the git folders it made and runs no command a
// configuration names (hooks, the file-system monitor, filters), so
// nothing the executor writes runs on the host. The worktree is a
// quorum.MetadataHolder: the executor's sandbox makes its git metadata
// read-only. The worktree and its branch stay when the run ends, for the
// user to merge or drop (git worktree remove, git branch -D).
//
// A Repo is not safe for concurrent use, except the func Workspace
// returns: quorum.Agent calls it once per attempt, from the attempts'
// goroutines at once when there are several (AgentConfig.Attempts), and it
// makes their worktrees one at a time.
package worktree

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// Errors of Open, for errors.Is: the repository states agent mode refuses
// to start in, and a missing git.
var (
	ErrNotRepository       = workspace.ErrNotRepository
	ErrBareRepository      = workspace.ErrBareRepository
	ErrDetachedHead        = workspace.ErrDetachedHead
	ErrNoCommits           = workspace.ErrNoCommits
	ErrOperationInProgress = workspace.ErrOperationInProgress
	ErrGitMissing          = workspace.ErrGitMissing
)

// Options say where worktrees go.
type Options struct {
	// Root is the folder under which worktrees are made, one subfolder per
	// repository: required, outside the repository's working tree, and
	// best outside the host's temporary folder, which the executor's
	// sandbox hides (a worktree inside it leaves it shared; see
	// quorum.SandboxInfo.Warnings).
	Root string
	// Now gives the time in the branch's name; nil means time.Now.
	Now func() time.Time
}

// Repo is a git repository agent mode can start from.
type Repo struct{ r *workspace.Repo }

// Open checks that dir is inside a git repository agent mode can work
// from (not bare, HEAD on a branch with a commit, no merge or rebase under
// way) and describes it. It only reads. Its errors wrap one of the Err…
// values and say what to do.
func Open(ctx context.Context, dir string) (*Repo, error) {
	r, err := workspace.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return &Repo{r: r}, nil
}

// Top is the repository's top folder; Branch the branch HEAD is on; Head
// the commit the agent's branch will start from.
func (r *Repo) Top() string    { return r.r.Top }
func (r *Repo) Branch() string { return r.r.Branch }
func (r *Repo) Head() string   { return r.r.Head }

// NewWorktree adds a worktree of a new branch, quorum/agent-TIME-SLUG
// (SLUG from task), started from Head, under o.Root.
func (r *Repo) NewWorktree(ctx context.Context, task string, o Options) (quorum.Workspace, error) {
	w, err := r.r.NewWorktree(ctx, task, workspace.Options{Root: o.Root, Now: o.Now})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Workspace is NewWorktree as quorum.AgentConfig.Workspace takes it: the
// worktree is made once the plan is approved, not before. With several
// attempts, each gets a worktree of its own, made one at a time, their
// branches named for the attempt and one time: quorum/agent-TIME-SLUG-a,
// -b, ….
func (r *Repo) Workspace(task string, o Options) func(ctx context.Context) (quorum.Workspace, error) {
	var mu sync.Mutex
	var first time.Time
	return func(ctx context.Context) (quorum.Workspace, error) {
		label, ok := quorum.AttemptLabel(ctx)
		if !ok {
			return r.NewWorktree(ctx, task, o)
		}
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			first = time.Now()
			if o.Now != nil {
				first = o.Now()
			}
		}
		w, err := r.r.NewWorktree(ctx, task, workspace.Options{Root: o.Root, Now: func() time.Time { return first }, Suffix: strings.ToLower(label)})
		if err != nil {
			return nil, err
		}
		return w, nil
	}
}
