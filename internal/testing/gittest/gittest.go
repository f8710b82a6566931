// Package gittest makes throwaway git repositories for tests and proves
// that a repository was left alone: Snapshot records a working tree, its
// index and HEAD byte for byte, and Snapshot.Unchanged fails the test on
// any difference. Agent mode's tests take one before a run and check it
// after, so a run that touched the user's files fails.
package gittest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Isolate points git at no global or system configuration for the rest of
// the test, so the machine's settings (a hook path, signing, an identity)
// cannot change what the test sees. It sets environment variables, so the
// test cannot run in parallel.
func Isolate(t testing.TB) {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	// An identity in the environment would beat a repository's own; unset
	// (t.Setenv first, so the test's end restores them).
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// Git runs git in dir and fails the test if it fails; it returns the
// output, trimmed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Run(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

// Run runs git in dir and returns its combined output and error.
func Run(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// NewRepo makes a repository in a new temporary folder, on branch main,
// with a local identity and files committed as one commit (path → text).
// It calls Isolate. It returns the folder, symbolic links resolved.
func NewRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	Isolate(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "config", "user.name", "Test User")
	Git(t, dir, "config", "user.email", "test@example.invalid")
	Write(t, dir, files)
	Git(t, dir, "add", "--all")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

// Write writes files (path → text) under dir, making folders as needed.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Snapshot is a repository's working tree, index and HEAD as they were.
type Snapshot struct {
	dir   string
	head  string
	ref   string
	index string            // hash of .git/index
	files map[string]string // path → hash of the bytes, or "link:" + target
}

// Take records dir's working tree (every file, tracked or not, the .git
// folder apart), its index and HEAD.
func Take(t testing.TB, dir string) Snapshot {
	t.Helper()
	s := Snapshot{dir: dir, files: map[string]string{}}
	s.head = Git(t, dir, "rev-parse", "HEAD")
	s.ref, _ = Run(dir, "symbolic-ref", "-q", "HEAD")
	if b, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
		s.index = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			s.files[rel] = "link:" + target
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s.files[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Unchanged fails the test if the repository's working tree, index or
// HEAD differ from the snapshot, naming every difference.
func (s Snapshot) Unchanged(t testing.TB) {
	t.Helper()
	now := Take(t, s.dir)
	var diffs []string
	if now.head != s.head {
		diffs = append(diffs, fmt.Sprintf("HEAD moved: %s → %s", s.head, now.head))
	}
	if now.ref != s.ref {
		diffs = append(diffs, fmt.Sprintf("HEAD's branch changed: %q → %q", s.ref, now.ref))
	}
	if now.index != s.index {
		diffs = append(diffs, "the index changed")
	}
	var paths []string
	for p := range s.files {
		paths = append(paths, p)
	}
	for p := range now.files {
		if _, ok := s.files[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		before, had := s.files[p]
		after, has := now.files[p]
		switch {
		case !has:
			diffs = append(diffs, "removed: "+p)
		case !had:
			diffs = append(diffs, "added: "+p)
		case before != after:
			diffs = append(diffs, "changed: "+p)
		}
	}
	if len(diffs) > 0 {
		t.Errorf("the user's repository %s was touched:\n  %s", s.dir, strings.Join(diffs, "\n  "))
	}
}

// Equal reports whether the file at path holds want, for a test's own
// checks on files outside any repository.
func Equal(path string, want []byte) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, want)
}

// Diverge makes main and a branch named other change the same line of
// file a differently, each in a commit, and leaves main checked out: a
// merge or rebase of other then stops on a conflict.
func Diverge(t testing.TB, dir string) {
	t.Helper()
	Git(t, dir, "switch", "-q", "-c", "other")
	Write(t, dir, map[string]string{"a": "other\n"})
	Git(t, dir, "add", "a")
	Git(t, dir, "commit", "-qm", "other")
	Git(t, dir, "switch", "-q", "main")
	Write(t, dir, map[string]string{"a": "main\n"})
	Git(t, dir, "add", "a")
	Git(t, dir, "commit", "-qm", "main")
}
