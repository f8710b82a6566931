package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// trap is a shell script that leaves a mark when run, for configuration
// an executor could write to make quorum's git run a command.
func trap(t *testing.T, marks, name string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), name+".sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+filepath.Join(marks, name)+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// ranTrap reports the marks left, and removes them.
func ranTrap(t *testing.T, marks string) []string {
	t.Helper()
	entries, _ := os.ReadDir(marks)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		os.Remove(filepath.Join(marks, e.Name()))
	}
	return names
}

// armed checks that plain git, run in the worktree as a user would, does
// run the trap: the escape is real, so its absence from quorum's own
// commands is the fix, not an accident.
func armed(t *testing.T, dir, marks string) {
	t.Helper()
	gittest.Run(dir, "add", "--all")
	gittest.Run(dir, "status")
	gittest.Run(dir, "reset", "-q")
	if len(ranTrap(t, marks)) == 0 {
		t.Fatal("the trap did not go off under plain git; the test proves nothing")
	}
}

// evilGitDir makes a git folder whose configuration runs trap from the
// file-system monitor and a clean filter, and whose hooks run it too.
func evilGitDir(t *testing.T, script string) string {
	t.Helper()
	evil := filepath.Join(t.TempDir(), "evil.git")
	gittest.Git(t, filepath.Dir(evil), "init", "-q", "--bare", evil)
	gittest.Git(t, evil, "config", "core.fsmonitor", script)
	gittest.Git(t, evil, "config", "core.bare", "false")
	gittest.Git(t, evil, "config", "filter.evil.clean", script)
	gittest.Git(t, evil, "config", "filter.evil.required", "true")
	os.WriteFile(filepath.Join(evil, "hooks", "pre-commit"), []byte("#!/bin/sh\n"+script+" </dev/null\n"), 0o755)
	return evil
}

// The executor rewrites the worktree's .git file, or its git folder's
// commondir, to lead git to a git folder of its own whose configuration
// runs a command: quorum's commit follows neither and runs nothing, and
// still commits on the agent's branch in the user's repository.
func TestCommitIgnoresRedirectedGitMetadata(t *testing.T) {
	for _, redirect := range []string{".git file", "commondir"} {
		t.Run(redirect, func(t *testing.T) {
			ctx := context.Background()
			dir, hookMarks := userRepo(t)
			r := mustOpen(t, dir)
			w := mustWorktree(t, r, "t", Options{Root: t.TempDir()})
			marks := t.TempDir()
			evil := evilGitDir(t, trap(t, marks, "escape"))
			gittest.Write(t, w.Dir(), map[string]string{".gitattributes": "* filter=evil\n", "new.txt": "work\n"})
			switch redirect {
			case ".git file":
				os.WriteFile(filepath.Join(w.Dir(), ".git"), []byte("gitdir: "+evil+"\n"), 0o644)
			case "commondir":
				os.WriteFile(filepath.Join(filepath.Dir(w.pin.index), "commondir"), []byte(evil+"\n"), 0o644)
			}
			armed(t, w.Dir(), marks)

			commit, changed, err := w.Commit(ctx, "step")
			if ran := ranTrap(t, marks); len(ran) > 0 {
				t.Fatalf("quorum's commit ran the executor's command (%v)", ran)
			}
			noHookRan(t, hookMarks)
			if err != nil || !changed {
				t.Fatalf("Commit = %v, %v", changed, err)
			}
			if got := gittest.Git(t, dir, "rev-parse", w.Branch()); got != commit {
				t.Fatalf("the branch %s in the user's repository is at %s, want the commit %s", w.Branch(), got, commit)
			}
			if got := gittest.Git(t, dir, "show", commit+":new.txt"); got != "work" {
				t.Fatalf("new.txt committed as %q", got)
			}
			if _, err := w.Diff(ctx); err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if ran := ranTrap(t, marks); len(ran) > 0 {
				t.Fatalf("quorum's diff ran the executor's command (%v)", ran)
			}
		})
	}
}

// Configuration the executor could write in place — the repository's own
// (a filter, the file-system monitor, a hooks folder with a hook in it)
// or the user's global one — makes quorum's git run nothing.
func TestCommitRunsNoConfiguredCommand(t *testing.T) {
	ctx := context.Background()
	dir, hookMarks := userRepo(t)
	r := mustOpen(t, dir)
	w := mustWorktree(t, r, "t", Options{Root: t.TempDir()})
	marks := t.TempDir()
	script := trap(t, marks, "escape")
	hooks := t.TempDir()
	for _, h := range []string{"pre-commit", "post-commit", "commit-msg", "post-index-change"} {
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\n"+script+" </dev/null\n"), 0o755)
	}
	gittest.Git(t, dir, "config", "core.fsmonitor", script)
	gittest.Git(t, dir, "config", "filter.evil.clean", script)
	gittest.Git(t, dir, "config", "filter.evil.required", "true")
	gittest.Git(t, dir, "config", "core.hooksPath", hooks)
	global := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(global, []byte("[core]\n\tfsmonitor = "+script+"\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	gittest.Write(t, w.Dir(), map[string]string{".gitattributes": "*.txt filter=evil\n", "new.txt": "work\n"})
	armed(t, w.Dir(), marks)

	if _, changed, err := w.Commit(ctx, "step"); err != nil || !changed {
		t.Fatalf("Commit = %v, %v", changed, err)
	}
	if ran := ranTrap(t, marks); len(ran) > 0 {
		t.Fatalf("quorum's commit ran a configured command (%v)", ran)
	}
	noHookRan(t, hookMarks)
	if got := gittest.Git(t, dir, "show", w.Branch()+":new.txt"); got != "work" {
		t.Fatalf("new.txt committed as %q (a filter ran?)", got)
	}
}

// quorum's hooks folder is below /dev/null, where no one can plant a hook;
// none is made in the shared temporary folder any more.
func TestNoHooksFolderInTemp(t *testing.T) {
	if noHooks != os.DevNull {
		t.Fatalf("core.hooksPath is %q; want a path below %s", noHooks, os.DevNull)
	}
	if err := os.WriteFile(filepath.Join(noHooks, "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err == nil {
		t.Fatal("a hook could be written below the hooks path")
	}
	for _, a := range hardening {
		if strings.Contains(a, os.TempDir()+"/") {
			t.Fatalf("a git setting names the temporary folder: %s", a)
		}
	}
}

// A worktree whose HEAD was switched to the user's branch is still
// committed on the agent's branch: the user's branch does not move.
func TestCommitIgnoresASwitchedHead(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := mustOpen(t, dir)
	w := mustWorktree(t, r, "t", Options{Root: t.TempDir()})
	main := gittest.Git(t, dir, "rev-parse", "main")
	own := filepath.Dir(w.pin.index)
	os.WriteFile(filepath.Join(own, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	gittest.Write(t, w.Dir(), map[string]string{"new.txt": "work\n"})
	commit, changed, err := w.Commit(ctx, "step")
	if err != nil || !changed {
		t.Fatalf("Commit = %v, %v", changed, err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "main"); got != main {
		t.Fatalf("main moved to %s", got)
	}
	if got := gittest.Git(t, dir, "rev-parse", w.Branch()); got != commit {
		t.Fatalf("the agent's branch is at %s, want %s", got, commit)
	}
}

// Opened from a relative folder, the repository's git folder is still
// absolute: the worktree's commands name it from elsewhere, and the
// sandbox takes no relative path.
func TestOpenRelativeGitDirIsAbsolute(t *testing.T) {
	dir, _ := userRepo(t)
	t.Chdir(dir)
	r := mustOpen(t, ".")
	if !filepath.IsAbs(r.GitDir) {
		t.Fatalf("GitDir %q is relative", r.GitDir)
	}
	w := mustWorktree(t, r, "t", Options{Root: t.TempDir()})
	for _, p := range w.MetadataPaths() {
		if !filepath.IsAbs(p) {
			t.Fatalf("metadata path %q is relative", p)
		}
	}
	gittest.Write(t, w.Dir(), map[string]string{"new.txt": "work\n"})
	if _, changed, err := w.Commit(context.Background(), "step"); err != nil || !changed {
		t.Fatalf("Commit = %v, %v", changed, err)
	}
}
