package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// Options say where worktrees go and how they are named.
type Options struct {
	// Root is the folder under which worktrees are made, one subfolder per
	// repository: required, outside the repository's working tree. The
	// command passes its state directory's (quorum's, which outlives a
	// reboot, unlike a temporary folder).
	Root string
	// Now gives the time in the branch's name; nil means time.Now.
	Now func() time.Time
	// Suffix, when set, ends the branch's and the folder's name ("a" for
	// quorum agent's attempt A: quorum/agent-<time>-<slug>-a).
	Suffix string
}

// Worktree is a git worktree of a branch of its own, where agent mode
// carries out a change.
//
// It is a quorum.Workspace: agent mode hands it to quorum.Agent.
type Worktree struct {
	dir, branch, base string
	repo              *Repo
	// pin are the git folders NewWorktree made, which every later git
	// command of the worktree names itself (see gitDirs).
	pin *gitDirs
}

// Dir is the worktree's folder, absolute, with symbolic links resolved.
func (w *Worktree) Dir() string { return w.dir }

// Branch is the worktree's branch, short form ("quorum/agent-…").
func (w *Worktree) Branch() string { return w.branch }

// Base is the commit the branch started from: the repository's HEAD when
// Open looked.
func (w *Worktree) Base() string { return w.base }

// Repo is the repository the worktree belongs to.
func (w *Worktree) Repo() *Repo { return w.repo }

// maxBranchTries bounds the suffixes tried when a branch name is taken
// (two runs in the same second on the same task).
const maxBranchTries = 100

// NewWorktree adds a worktree of a new branch, quorum/agent-TIME-SLUG,
// started from r.Head, in a folder under o.Root named like the branch. A
// name already taken, as a branch or a folder, gets a suffix (-2, -3, …),
// so a second run never collides with the first one's branch. The user's
// working tree, index and HEAD are not touched.
func (r *Repo) NewWorktree(ctx context.Context, task string, o Options) (*Worktree, error) {
	if o.Root == "" {
		return nil, errors.New("workspace: no folder to make the worktree in (Options.Root)")
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace: the worktree folder %q: %w", o.Root, err)
	}
	root = resolve(root, root)
	if within(r.Top, root) {
		return nil, fmt.Errorf("workspace: the worktree folder %s is inside the repository %s; choose a folder outside it", root, r.Top)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	name := "agent-" + now().UTC().Format("20060102-150405") + "-" + slug(task)
	if o.Suffix != "" {
		name += "-" + slug(o.Suffix)
	}
	parent := filepath.Join(root, filepath.Base(r.Top))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("workspace: making the worktree folder: %w; set another with --worktree-root", err)
	}
	for i := 1; i <= maxBranchTries; i++ {
		leaf := name
		if i > 1 {
			leaf = fmt.Sprintf("%s-%d", name, i)
		}
		branch := "quorum/" + leaf
		dir := filepath.Join(parent, leaf)
		if taken, err := branchExists(ctx, r.Top, branch); err != nil {
			return nil, err
		} else if taken {
			continue
		}
		if _, err := os.Lstat(dir); err == nil {
			continue
		}
		if _, err := git(ctx, r.Top, "worktree", "add", "--quiet", "-b", branch, dir, r.Head); err != nil {
			return nil, fmt.Errorf("workspace: adding the worktree: %w", err)
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, fmt.Errorf("workspace: the new worktree %s: %w", dir, err)
		}
		// Read now, before any executor ran in it, and never again.
		own, err := gitLine(ctx, real, "rev-parse", "--absolute-git-dir")
		if err != nil {
			return nil, fmt.Errorf("workspace: the new worktree's git folder: %w", err)
		}
		return &Worktree{dir: real, branch: branch, base: r.Head, repo: r, pin: &gitDirs{gitDir: r.GitDir, index: filepath.Join(own, "index"), workTree: real}}, nil
	}
	return nil, fmt.Errorf("workspace: %d branches named quorum/%s… exist already; delete some (git branch -D)", maxBranchTries, name)
}

// RemoveWorktree removes the worktree dir, with whatever it holds, and
// deletes its branch: quorum agent --keep winner drops the attempts that
// lost this way. It removes only what an agent made: a branch under
// quorum/agent-, a folder git lists as one of the repository's worktrees
// on that branch.
func (r *Repo) RemoveWorktree(ctx context.Context, dir, branch string) error {
	if !strings.HasPrefix(branch, "quorum/agent-") {
		return fmt.Errorf("workspace: %s is not an agent's branch (quorum/agent-…); it is left alone", branch)
	}
	list, err := git(ctx, r.Top, "worktree", "list", "--porcelain")
	if err != nil {
		return err
	}
	if !listed(list, dir, branch) {
		return fmt.Errorf("workspace: %s is not a worktree of %s on %s; it is left alone", dir, r.Top, branch)
	}
	if _, err := git(ctx, r.Top, "worktree", "remove", "--force", dir); err != nil {
		return fmt.Errorf("workspace: removing the worktree %s: %w", dir, err)
	}
	if _, err := git(ctx, r.Top, "branch", "-D", branch); err != nil {
		return fmt.Errorf("workspace: deleting the branch %s: %w", branch, err)
	}
	return nil
}

// listed reports whether git worktree list --porcelain's output lists dir
// on branch.
func listed(list, dir, branch string) bool {
	for _, rec := range strings.Split(list, "\n\n") {
		if strings.HasPrefix(rec, "worktree "+dir+"\n") && strings.Contains(rec, "\nbranch refs/heads/"+branch) {
			return true
		}
	}
	return false
}

func branchExists(ctx context.Context, dir, branch string) (bool, error) {
	_, err := git(ctx, dir, "rev-parse", "--verify", "-q", "refs/heads/"+branch)
	var ge *GitError
	if errors.As(err, &ge) {
		return false, nil // rev-parse -q --verify fails quietly on a missing ref
	}
	return err == nil, err
}

// maxSlug bounds the task's part of a branch name.
const maxSlug = 40

// slug makes a branch-name part of a task: lower-case letters and digits
// of its first words, joined by hyphens; "task" when nothing is left.
func slug(task string) string {
	var b strings.Builder
	pendingDash := false
	for _, r := range strings.ToLower(task) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if pendingDash && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingDash = false
			b.WriteRune(r)
			if b.Len() >= maxSlug {
				break
			}
			continue
		}
		pendingDash = true
	}
	s := strings.TrimRight(b.String(), "-")
	if s == "" {
		return "task"
	}
	return s
}

// Commit records everything in the worktree (new, changed and deleted
// files) as one commit on its branch and returns the commit's id; changed
// is false, and no commit is made, when there is nothing to record. The
// user's git identity (as Open read it) is used where one is set, a
// neutral one otherwise.
//
// It reads no git metadata the worktree holds or the executor could
// rewrite: git runs on the repository's own git folder with the
// worktree's index, both as NewWorktree found them (see gitDirs), the
// commit is made with plumbing (write-tree, commit-tree) on the branch's
// tip and the branch moved only from that tip (update-ref), so neither a
// rewritten .git file, nor a commondir, nor a HEAD switched to another
// branch leads the commit anywhere else; and no configured command runs
// (hardening).
func (w *Worktree) Commit(ctx context.Context, message string) (commit string, changed bool, err error) {
	ref := "refs/heads/" + w.branch
	tip, err := w.gitLine(ctx, "rev-parse", "--verify", "-q", ref+"^{commit}")
	if err != nil {
		return "", false, fmt.Errorf("workspace: reading the branch %s: %w", w.branch, err)
	}
	if _, err := w.git(ctx, "add", "--all"); err != nil {
		return "", false, fmt.Errorf("workspace: staging the agent's changes: %w", err)
	}
	if _, err := w.git(ctx, "diff-index", "--cached", "--quiet", tip, "--"); err == nil {
		return "", false, nil
	} else if ge := (*GitError)(nil); !errors.As(err, &ge) {
		return "", false, err
	}
	tree, err := w.gitLine(ctx, "write-tree")
	if err != nil {
		return "", false, fmt.Errorf("workspace: recording the agent's changes: %w", err)
	}
	name, email := w.repo.name, w.repo.email
	if email == "" {
		name, email = "quorum agent", "quorum-agent@localhost"
	} else if name == "" {
		name = email
	}
	id := []string{"-c", "user.name=" + name, "-c", "user.email=" + email}
	if commit, err = w.gitLine(ctx, append(id, "commit-tree", tree, "-p", tip, "-m", message)...); err != nil {
		return "", false, fmt.Errorf("workspace: committing the agent's changes: %w", err)
	}
	if _, err := w.git(ctx, "update-ref", "-m", "quorum agent: "+oneLine(message), ref, commit, tip); err != nil {
		return "", false, fmt.Errorf("workspace: moving the branch %s to the agent's commit: %w", w.branch, err)
	}
	return commit, true, nil
}

// oneLine is s's first line.
func oneLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Diff returns the unified diff of the branch against its base (git diff
// BASE BRANCH): what has been committed, which is what review reads.
func (w *Worktree) Diff(ctx context.Context) (string, error) {
	return w.git(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", w.base, "refs/heads/"+w.branch, "--")
}

// MetadataPaths are the paths outside the worktree's files that hold its
// git metadata, which its commands must not write: the repository's
// common git folder (its refs, configuration, hooks and the worktree's own
// git folder) and the worktree's .git file. quorum's sandbox makes them
// read-only for the executor.
func (w *Worktree) MetadataPaths() []string {
	return []string{w.pin.gitDir, filepath.Join(w.dir, ".git")}
}

// git runs git in the worktree with its folders pinned.
func (w *Worktree) git(ctx context.Context, args ...string) (string, error) {
	out, err := runGit(ctx, w.dir, w.pin, args...)
	return string(out), err
}

// gitLine is git's first line of output, trimmed.
func (w *Worktree) gitLine(ctx context.Context, args ...string) (string, error) {
	out, err := w.git(ctx, args...)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(out, "\n")
	return strings.TrimSpace(line), nil
}

// Contains reports whether path, absolute or relative to the worktree,
// names something inside the worktree once symbolic links are followed
// (as far as the path exists). The worktree's own folder counts.
func (w *Worktree) Contains(path string) bool {
	return within(w.dir, resolve(w.dir, path))
}

// Writable reports whether path may be written: inside the worktree and
// not its .git file, which ties the worktree to the repository (a write
// there could point git at another repository).
func (w *Worktree) Writable(path string) bool {
	p := resolve(w.dir, path)
	return within(w.dir, p) && !within(filepath.Join(w.dir, ".git"), p)
}

// resolve makes path absolute against dir and follows the symbolic links
// of its longest existing prefix, so that a link inside the worktree to a
// folder outside it is seen for where it leads.
func resolve(dir, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	path = filepath.Clean(path)
	rest := ""
	for p := path; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether path is dir or below it; both are clean and
// absolute.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
