package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC) }

// userRepo makes a repository with a committed file, an uncommitted
// change and a staged one, and hooks that leave a mark if git ever runs
// them: the state a user's repository is in when they start an agent.
func userRepo(t *testing.T) (dir, marks string) {
	t.Helper()
	dir = gittest.NewRepo(t, map[string]string{"main.go": "package main\n", "README.md": "# demo\n"})
	gittest.Write(t, dir, map[string]string{"main.go": "package main // edited, not committed\n", "staged.txt": "staged\n"})
	gittest.Git(t, dir, "add", "staged.txt")
	marks = t.TempDir()
	for _, hook := range []string{"post-checkout", "pre-commit", "commit-msg", "post-commit", "reference-transaction"} {
		gittest.Write(t, dir, map[string]string{".git/hooks/" + hook: "#!/bin/sh\ntouch " + filepath.Join(marks, hook) + "\n"})
		os.Chmod(filepath.Join(dir, ".git", "hooks", hook), 0o755)
	}
	return dir, marks
}

// mustOpen opens dir as Open does, failing the test on an error.
func mustOpen(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustWorktree adds a worktree as NewWorktree does, failing the test on
// an error.
func mustWorktree(t *testing.T, r *Repo, task string, o Options) *Worktree {
	t.Helper()
	w, err := r.NewWorktree(context.Background(), task, o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func noHookRan(t *testing.T, marks string) {
	t.Helper()
	if ran, _ := os.ReadDir(marks); len(ran) > 0 {
		t.Fatalf("a hook of the user's ran: %s", ran[0].Name())
	}
}

// A worktree is made on a new branch outside the repository, from HEAD;
// work committed there lands on the branch; the user's working tree, index,
// HEAD and hooks are untouched throughout.
func TestWorktreeLeavesTheUserAlone(t *testing.T) {
	ctx := context.Background()
	dir, marks := userRepo(t)
	before := gittest.Take(t, dir)
	r := mustOpen(t, dir)
	root := t.TempDir()
	w := mustWorktree(t, r, "Add a --verbose flag!", Options{Root: root, Now: fixedNow})
	if want := "quorum/agent-20261125-093000-add-a-verbose-flag"; w.Branch() != want {
		t.Fatalf("branch %q, want %q", w.Branch(), want)
	}
	if !strings.HasPrefix(w.Dir(), root) || within(dir, w.Dir()) {
		t.Fatalf("worktree at %s: want it under %s, outside %s", w.Dir(), root, dir)
	}
	// The worktree holds HEAD, not the user's uncommitted edit.
	if b, _ := os.ReadFile(filepath.Join(w.Dir(), "main.go")); string(b) != "package main\n" {
		t.Fatalf("the worktree's main.go is %q, want HEAD's", b)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "staged.txt")); !os.IsNotExist(err) {
		t.Fatalf("the user's staged file reached the worktree: %v", err)
	}

	gittest.Write(t, w.Dir(), map[string]string{"flag.go": "package main // --verbose\n", "main.go": "package main // agent\n"})
	os.Remove(filepath.Join(w.Dir(), "README.md"))
	commit, changed, err := w.Commit(ctx, "agent: add --verbose")
	if err != nil || !changed || commit == "" {
		t.Fatalf("Commit = %q, %v, %v", commit, changed, err)
	}
	if got := gittest.Git(t, dir, "rev-parse", w.Branch()); got != commit {
		t.Fatalf("the branch is at %s, want the commit %s", got, commit)
	}
	diff, err := w.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+++ b/flag.go", "--- a/README.md", "+package main // agent"} {
		if !strings.Contains(diff, want) {
			t.Fatalf("the diff lacks %q:\n%s", want, diff)
		}
	}
	// Nothing more to record: no empty commit.
	if c, changed, err := w.Commit(ctx, "again"); err != nil || changed || c != "" {
		t.Fatalf("a second Commit with nothing new = %q, %v, %v", c, changed, err)
	}
	before.Unchanged(t)
	noHookRan(t, marks)
}

// A second run with the same task in the same second gets a branch and a
// folder of its own.
func TestWorktreeNamesNeverCollide(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"a": "a"})
	r := mustOpen(t, dir)
	root := t.TempDir()
	first := mustWorktree(t, r, "same task", Options{Root: root, Now: fixedNow})
	second := mustWorktree(t, r, "same task", Options{Root: root, Now: fixedNow})
	if first.Branch() == second.Branch() || first.Dir() == second.Dir() {
		t.Fatalf("two runs share %s / %s", first.Branch(), first.Dir())
	}
	if !strings.HasSuffix(second.Branch(), "-2") {
		t.Fatalf("the second branch is %s, want the suffix -2", second.Branch())
	}
}

// A worktree folder inside the repository is refused: it would be in the
// user's working tree.
func TestWorktreeRootMissingOrInsideRepositoryRefused(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a": "a"})
	r := mustOpen(t, dir)
	before := gittest.Take(t, dir)
	if _, err := r.NewWorktree(ctx, "t", Options{Root: filepath.Join(dir, "wt")}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("NewWorktree inside the repository = %v, want a refusal", err)
	}
	// No root at all: refused, rather than a folder guessed from the
	// process's environment (the command decides where state goes).
	if _, err := r.NewWorktree(ctx, "t", Options{}); err == nil || !strings.Contains(err.Error(), "Options.Root") {
		t.Fatalf("NewWorktree without a root = %v, want a refusal", err)
	}
	before.Unchanged(t)
}

// Without an identity configured anywhere, the commit still lands, under
// a neutral name.
func TestCommitWithoutIdentity(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a": "a"})
	gittest.Git(t, dir, "config", "--unset", "user.email")
	gittest.Git(t, dir, "config", "--unset", "user.name")
	t.Setenv("EMAIL", "")
	r := mustOpen(t, dir)
	w := mustWorktree(t, r, "t", Options{Root: t.TempDir()})
	gittest.Write(t, w.Dir(), map[string]string{"b": "b"})
	if _, changed, err := w.Commit(ctx, "m"); err != nil || !changed {
		t.Fatalf("Commit = %v, %v", changed, err)
	}
	if author := gittest.Git(t, w.Dir(), "log", "-1", "--format=%an <%ae>"); author != "quorum agent <quorum-agent@localhost>" {
		t.Fatalf("author %q", author)
	}
}

// Contains and Writable judge a path where it leads: .. and a symbolic
// link out of the worktree are outside, the .git file is not writable.
func TestContainsAndWritable(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"a": "a"})
	r := mustOpen(t, dir)
	w := mustWorktree(t, r, "t", Options{Root: t.TempDir()})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(w.Dir(), "escape")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path               string
		contains, writable bool
	}{
		{"a", true, true},
		{filepath.Join(w.Dir(), "new/deep/file.go"), true, true},
		{w.Dir(), true, true},
		{"../x", false, false},
		{filepath.Join(w.Dir(), "sub/../../x"), false, false},
		{filepath.Join(dir, "a"), false, false},
		{"escape/secret", false, false},
		{"escape", false, false},
		{".git", true, false},
		{"/etc/passwd", false, false},
	} {
		if got := w.Contains(tc.path); got != tc.contains {
			t.Errorf("Contains(%q) = %v, want %v", tc.path, got, tc.contains)
		}
		if got := w.Writable(tc.path); got != tc.writable {
			t.Errorf("Writable(%q) = %v, want %v", tc.path, got, tc.writable)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Add a --verbose flag!":     "add-a-verbose-flag",
		"  ":                        "task",
		"日本語":                       "task",
		"fix  bug #12 in (parser)":  "fix-bug-12-in-parser",
		strings.Repeat("word ", 30): "word-word-word-word-word-word-word-word-w",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// A Worktree is what quorum.Agent carries a plan out in.
var _ quorum.Workspace = (*Worktree)(nil)

// An attempt's worktree carries its suffix; RemoveWorktree drops the worktree and
// its branch, running none of the user's hooks and leaving the user's
// tree as it was.
func TestWorktreeSuffixAndRemove(t *testing.T) {
	dir, marks := userRepo(t)
	before := gittest.Take(t, dir)
	r := mustOpen(t, dir)
	root := t.TempDir()
	a := mustWorktree(t, r, "same task", Options{Root: root, Now: fixedNow, Suffix: "a"})
	b := mustWorktree(t, r, "same task", Options{Root: root, Now: fixedNow, Suffix: "b"})
	if a.Branch() != "quorum/agent-20261125-093000-same-task-a" || b.Branch() != "quorum/agent-20261125-093000-same-task-b" || !strings.HasSuffix(a.Dir(), "-a") {
		t.Fatalf("branches %s, %s, folder %s; want the suffixes -a and -b", a.Branch(), b.Branch(), a.Dir())
	}
	ctx := context.Background()
	if err := r.RemoveWorktree(ctx, a.Dir(), b.Branch()); err == nil {
		t.Fatal("a worktree was removed with another's branch")
	}
	if err := r.RemoveWorktree(ctx, a.Dir(), "main"); err == nil {
		t.Fatal("the branch main was deleted")
	}
	if err := r.RemoveWorktree(ctx, a.Dir(), a.Branch()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(a.Dir()); !os.IsNotExist(err) {
		t.Fatalf("the removed worktree %s is still there: %v", a.Dir(), err)
	}
	if out := gittest.Git(t, dir, "branch", "--list", "quorum/*"); strings.Contains(out, a.Branch()) || !strings.Contains(out, b.Branch()) {
		t.Fatalf("branches left: %q; want %s gone, %s kept", out, a.Branch(), b.Branch())
	}
	noHookRan(t, marks)
	before.Unchanged(t)
}
