package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// Each state agent mode must not start in is refused with its sentinel and
// a message that says what to do, before anything is written.
func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T) string
		want   error
		advice string
	}{
		{"not a repository", func(t *testing.T) string { gittest.Isolate(t); return t.TempDir() }, ErrNotRepository, "git init"},
		{"bare", func(t *testing.T) string {
			gittest.Isolate(t)
			dir := t.TempDir()
			gittest.Git(t, dir, "init", "-q", "--bare")
			return dir
		}, ErrBareRepository, "git worktree add"},
		{"no commits", func(t *testing.T) string {
			gittest.Isolate(t)
			dir := t.TempDir()
			gittest.Git(t, dir, "init", "-q")
			return dir
		}, ErrNoCommits, "commit something"},
		{"detached", func(t *testing.T) string {
			dir := gittest.NewRepo(t, map[string]string{"a": "a"})
			gittest.Git(t, dir, "switch", "-q", "--detach")
			return dir
		}, ErrDetachedHead, "git switch"},
		{"merge in progress", func(t *testing.T) string {
			dir := gittest.NewRepo(t, map[string]string{"a": "base\n"})
			gittest.Diverge(t, dir)
			if out, err := gittest.Run(dir, "merge", "other"); err == nil {
				t.Fatalf("the merge did not conflict: %s", out)
			}
			return dir
		}, ErrOperationInProgress, "git merge --abort"},
		{"rebase in progress", func(t *testing.T) string {
			dir := gittest.NewRepo(t, map[string]string{"a": "base\n"})
			gittest.Diverge(t, dir)
			if out, err := gittest.Run(dir, "rebase", "other"); err == nil {
				t.Fatalf("the rebase did not stop: %s", out)
			}
			return dir
		}, ErrOperationInProgress, "git rebase --abort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.make(t)
			r, err := Open(ctx, dir)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, %v; want an error wrapping %v", r, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.advice) {
				t.Fatalf("the error %q does not say what to do (%q)", err, tc.advice)
			}
		})
	}
}

// Open from a subfolder describes the whole repository.
func TestOpenDescribes(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"sub/a.txt": "a"})
	r, err := Open(context.Background(), filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Top != dir || r.Branch != "main" || r.Head != gittest.Git(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("Open = %+v; want top %s, branch main, head at HEAD", r, dir)
	}
	if r.GitDir != filepath.Join(dir, ".git") {
		t.Fatalf("GitDir = %s", r.GitDir)
	}
}

// Without git on PATH, Open says to install it.
func TestOpenWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Open(context.Background(), t.TempDir())
	if !errors.Is(err, ErrGitMissing) {
		t.Fatalf("Open = %v, want ErrGitMissing", err)
	}
}

// A context already ended stops git and is reported.
func TestOpenHonoursContext(t *testing.T) {
	dir := gittest.NewRepo(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open with an ended context = %v, want context.Canceled", err)
	}
}

// Opened at "" (the process's working directory) outside a repository,
// the error names the folder, not an empty string.
func TestOpenOutsideARepositoryNamesTheFolder(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	t.Chdir(dir)
	_, err := Open(context.Background(), "")
	if !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), ": "+dir+"; run quorum agent inside a git repository") {
		t.Fatalf("Open(\"\") = %v; want ErrNotRepository naming %s", err, dir)
	}
}
