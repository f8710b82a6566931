package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
)

func TestDiffRange(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "one\n"})
	gittest.Write(t, dir, map[string]string{"a.txt": "two\n"})
	gittest.Git(t, dir, "commit", "-qam", "two")

	diff, err := DiffRange(ctx, dir, "HEAD~1..HEAD", 1<<20, false)
	if err != nil || !strings.Contains(diff, "-one\n+two\n") {
		t.Fatalf("DiffRange = %q, %v", diff, err)
	}
	if _, err := DiffRange(ctx, dir, "HEAD~1..HEAD", 10, false); !errors.Is(err, ErrDiffTooLarge) {
		t.Errorf("past the limit: %v, want ErrDiffTooLarge", err)
	}
	var ge *GitError
	if _, err := DiffRange(ctx, dir, "nope..HEAD", 1<<20, false); !errors.As(err, &ge) || !strings.Contains(ge.Message, "nope") {
		t.Errorf("an unknown revision: %v, want a GitError with git's message", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := DiffRange(cancelled, dir, "HEAD~1..HEAD", 1<<20, false); !errors.Is(err, context.Canceled) {
		t.Errorf("with its context over: %v", err)
	}

	// Contained: a folder inside the repository is not taken for it, and
	// GIT_DIR does not lead git to another repository.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := DiffRange(ctx, sub, "HEAD~1..HEAD", 1<<20, true); !errors.As(err, &ge) || !strings.Contains(ge.Message, "ot a git repository") {
		t.Errorf("contained, below the repository's top: %v, want git's not-a-repository", err)
	}
	if _, err := DiffRange(ctx, sub, "HEAD~1..HEAD", 1<<20, false); err != nil {
		t.Errorf("not contained, below the repository's top: %v", err)
	}
	other := gittest.NewRepo(t, map[string]string{"b.txt": "b\n"})
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	if diff, err := DiffRange(ctx, dir, "HEAD~1..HEAD", 1<<20, true); err != nil || !strings.Contains(diff, "a.txt") {
		t.Errorf("contained, with GIT_DIR elsewhere: %q, %v", diff, err)
	}
}
