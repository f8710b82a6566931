package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The states of a repository agent mode refuses to start in. Each error
// Open returns wraps one of them (or ErrGitMissing) and says what to do.
var (
	ErrNotRepository       = errors.New("workspace: not a git repository")
	ErrBareRepository      = errors.New("workspace: a bare repository has no working tree")
	ErrDetachedHead        = errors.New("workspace: HEAD is detached")
	ErrNoCommits           = errors.New("workspace: the repository has no commit yet")
	ErrOperationInProgress = errors.New("workspace: a git operation is in progress")
)

// Repo is a git repository agent mode may start from: not bare, HEAD on a
// branch with at least one commit, no merge, rebase, cherry-pick, revert
// or bisect under way.
type Repo struct {
	// Top is the working tree's top folder (git rev-parse --show-toplevel).
	Top string
	// GitDir is the repository's common git folder, shared by its worktrees.
	GitDir string
	// Branch is the branch HEAD is on, short form ("main").
	Branch string
	// Head is the commit HEAD names, in full.
	Head string

	// name and email are the user's git identity as Open found it, with
	// the global configuration: commits on the agent's branch carry it,
	// while quorum's later git commands read no global configuration.
	name, email string
}

// Open checks that dir is inside a repository agent mode can work from and
// describes it. It only reads. Its errors wrap one of the Err… values of
// this package and say what to do.
func Open(ctx context.Context, dir string) (*Repo, error) {
	// Messages name the folder as the user knows it: "" is the process's
	// working directory.
	folder := dir
	if abs, err := filepath.Abs(dir); err == nil {
		folder = abs
	}
	inside, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree", "--is-bare-repository")
	if err != nil {
		if errors.Is(err, ErrGitMissing) || ctx.Err() != nil {
			return nil, err
		}
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Message, "not a git repository") {
			return nil, fmt.Errorf("%w: %s; run quorum agent inside a git repository (git init, and commit something first)", ErrNotRepository, folder)
		}
		return nil, err
	}
	fields := strings.Fields(inside)
	if len(fields) == 2 && fields[1] == "true" {
		return nil, fmt.Errorf("%w (%s); clone it (git clone) or add a worktree (git worktree add) and run quorum agent there", ErrBareRepository, folder)
	}
	if len(fields) < 1 || fields[0] != "true" {
		return nil, fmt.Errorf("%w: %s is inside a git folder, not a working tree; run quorum agent in the working tree", ErrNotRepository, folder)
	}
	r := &Repo{}
	if r.Top, err = gitLine(ctx, dir, "rev-parse", "--show-toplevel"); err != nil {
		return nil, err
	}
	r.Top = resolve(r.Top, r.Top)
	common, err := gitLine(ctx, dir, "rev-parse", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	// Absolute, with links resolved: the worktree's git commands name it
	// from another folder, and the sandbox takes no relative path.
	if common, err = filepath.Abs(common); err != nil {
		return nil, fmt.Errorf("workspace: the repository's git folder: %w", err)
	}
	r.GitDir = resolve(common, common)
	if r.Head, err = gitLine(ctx, dir, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil || r.Head == "" {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w in %s; commit something first (the agent's branch starts from HEAD)", ErrNoCommits, r.Top)
	}
	// An operation first: a rebase detaches HEAD, and "detached" would send
	// the user the wrong way.
	// The operation markers live in the git folder of this worktree, which
	// for a linked worktree is not the common one.
	own, err := gitLine(ctx, dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, err
	}
	if op, advice := operationInProgress(own); op != "" {
		return nil, fmt.Errorf("%w in %s: a %s is under way; %s first", ErrOperationInProgress, r.Top, op, advice)
	}
	ref, err := gitLine(ctx, dir, "symbolic-ref", "-q", "HEAD")
	if err != nil || ref == "" {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w in %s (at %.12s); check out a branch first (git switch BRANCH, or git switch -c BRANCH to keep this commit)", ErrDetachedHead, r.Top, r.Head)
	}
	r.Branch = strings.TrimPrefix(ref, "refs/heads/")
	r.name, r.email = userIdentity(ctx, r.Top)
	return r, nil
}

// userIdentity reads user.name and user.email as the user's own git would,
// global and system configuration included (the only read of them here), before any
// executor has run; "" when not set.
func userIdentity(ctx context.Context, dir string) (name, email string) {
	path, err := exec.LookPath("git")
	if err != nil {
		return "", ""
	}
	env := os.Environ()
	for _, kv := range hardenedEnv {
		if !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") && !strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM=") {
			env = append(env, kv)
		}
	}
	read := func(key string) string {
		out, err := execGit(ctx, path, dir, env, []string{"config", key}, append(append([]string{}, hardening...), "config", key))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	return read("user.name"), read("user.email")
}

// operationInProgress names the operation gitDir's markers say is under
// way and how to end it, or returns "".
func operationInProgress(gitDir string) (op, advice string) {
	for _, m := range []struct{ file, op, advice string }{
		{"MERGE_HEAD", "merge", "finish it (git commit) or abort it (git merge --abort)"},
		{"rebase-merge", "rebase", "finish it (git rebase --continue) or abort it (git rebase --abort)"},
		{"rebase-apply", "rebase", "finish it (git rebase --continue) or abort it (git rebase --abort)"},
		{"CHERRY_PICK_HEAD", "cherry-pick", "finish it (git cherry-pick --continue) or abort it (git cherry-pick --abort)"},
		{"REVERT_HEAD", "revert", "finish it (git revert --continue) or abort it (git revert --abort)"},
		{"BISECT_LOG", "bisect", "end it (git bisect reset)"},
	} {
		if _, err := os.Stat(filepath.Join(gitDir, m.file)); err == nil {
			return m.op, m.advice
		}
	}
	return "", ""
}

// gitLine runs git and returns its output's first line, trimmed.
func gitLine(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := git(ctx, dir, args...)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(out, "\n")
	return strings.TrimSpace(line), nil
}
